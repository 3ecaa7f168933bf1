"""One vocabulary of verdicts: every outside spelling is read through `Verdict.from_string`
from the one table beside the enum (`verdicts.SPELLINGS`), and no other module of the pipeline
spells a verdict as a string."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline.verdicts import FOLDER_RULES, POLYGON_TAGS, SPELLINGS, Verdict

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"

# Every spelling the pipeline reads, where it reads it, and the verdict it means (written out
# here, not taken from the table, so a changed meaning fails).
EXPECTED = {
    "pipeline": {"AC": Verdict.AC, "WA": Verdict.WA, "TLE": Verdict.TLE, "MLE": Verdict.MLE,
                 "RE": Verdict.RE, "OLE": Verdict.OLE, "CE": Verdict.CE, "JE": Verdict.JE,
                 "SKIP": Verdict.SKIP, "NOEXP": Verdict.NOEXP},
    "submissions.yaml": {"AC": Verdict.AC, "WA": Verdict.WA, "TLE": Verdict.TLE,
                         "RTE": Verdict.RE},
    "folder": {"accepted": Verdict.AC, "partially_accepted": Verdict.AC,
               "wrong_answer": Verdict.WA, "time_limit_exceeded": Verdict.TLE,
               "run_time_error": Verdict.RE},
    "domjudge": {"CORRECT": Verdict.AC, "WRONG-ANSWER": Verdict.WA, "NO-OUTPUT": Verdict.WA,
                 "TIMELIMIT": Verdict.TLE, "RUN-ERROR": Verdict.RE,
                 "MEMORY-LIMIT": Verdict.MLE, "OUTPUT-LIMIT": Verdict.OLE,
                 "COMPILER-ERROR": Verdict.CE},
    "@EXPECTED_RESULTS@": {"CORRECT": Verdict.AC, "WRONG-ANSWER": Verdict.WA,
                           "NO-OUTPUT": Verdict.WA, "TIMELIMIT": Verdict.TLE,
                           "RUN-ERROR": Verdict.RE, "MEMORY-LIMIT": Verdict.MLE,
                           "OUTPUT-LIMIT": Verdict.OLE, "COMPILER-ERROR": Verdict.CE,
                           "ACCEPTED": Verdict.AC, "WRONG_ANSWER": Verdict.WA,
                           "TIME_LIMIT_EXCEEDED": Verdict.TLE, "RUN_TIME_ERROR": Verdict.RE},
    "expected folder": {"wrong_answer": Verdict.WA, "time_limit_exceeded": Verdict.TLE,
                        "run_time_error": Verdict.RE, "memory_limit_exceeded": Verdict.MLE,
                        "output_limit_exceeded": Verdict.OLE},
}

# What each submission folder (2023-07 / 2025-09) and Polygon tag expects, written out.
AC, WA, TLE, MLE, RE = Verdict.AC, Verdict.WA, Verdict.TLE, Verdict.MLE, Verdict.RE
EXPECTED_FOLDER_RULES = {
    "accepted": {"permitted": {AC}},
    "rejected": {"required": {RE, TLE, WA}},
    "wrong_answer": {"permitted": {AC, WA}, "required": {WA}},
    "time_limit_exceeded": {"permitted": {AC, TLE}, "required": {TLE}},
    "run_time_error": {"permitted": {AC, RE}, "required": {RE}},
    "brute_force": {"permitted": {AC, RE, TLE}, "required": {RE, TLE},
                    "use_for_time_limit": False},
}
EXPECTED_POLYGON_TAGS = {
    "main": ({"permitted": {AC}},),
    "accepted": ({"permitted": {AC}},),
    "rejected": ({"required": {WA, TLE, MLE, RE, Verdict.OLE}},),
    "wrong-answer": ({"permitted": {AC, WA}, "required": {WA}},),
    "presentation-error": ({"permitted": {AC, WA}, "required": {WA},
                            "message": "presentation error"},),
    "time-limit-exceeded": ({"permitted": {AC, TLE}, "required": {TLE}},),
    "time-limit-exceeded-or-accepted": ({"permitted": {AC, TLE}},),
    "time-limit-exceeded-or-memory-limit-exceeded": ({"permitted": {AC, TLE, MLE},
                                                      "required": {TLE, MLE}},),
    "memory-limit-exceeded": ({"permitted": {AC, MLE}, "required": {MLE}},),
    "failed": ({"permitted": {AC, RE}, "required": {RE}},),
    "do-not-run": (),
}

# Outside spellings other modules hold as strings for what else they are, each with why.
ALLOWED = {
    "accepted": "a submissions folder (generators.yaml's submissions/accepted) and the label "
                "of an accepted submission (reference solutions, expected_to_pass)",
    "main": "the label of Polygon's main solution (the reference; problem.xml must name one)",
    "partially_accepted": "the legacy folder whose submissions are AC but not of full score",
    "rejected": "a word of harden's report (a new test the ingest rejected)",
    "failed": "a run's status in the runs table",
}
# The spellings no module but the table's may hold as a string: every dialect's, every
# folder's and tag's, and the outcome statuses of old ("tle", ...), less `ALLOWED`.
BANNED = ({spelling for table in SPELLINGS.values() for spelling in table}
          | set(FOLDER_RULES) | set(POLYGON_TAGS)
          | {"tle", "mle", "re", "ole", "skip"}) - set(ALLOWED)
TABLE = PIPELINE / "verdicts.py"


@pytest.mark.parametrize("dialect", sorted(EXPECTED))
def test_every_spelling_reads_as_its_verdict(dialect):
    for spelling, verdict in EXPECTED[dialect].items():
        assert Verdict.from_string(spelling, dialect) is verdict, (dialect, spelling)
    assert list(SPELLINGS[dialect]) == list(EXPECTED[dialect])  # no more, in this order


def test_a_spelling_is_read_only_where_it_is_written():
    # submissions.yaml says RTE, never RE; a legacy folder is no DOMjudge word; case counts
    for dialect, text in [("submissions.yaml", "RE"), ("submissions.yaml", "ac"),
                          ("folder", "memory_limit_exceeded"), ("domjudge", "ACCEPTED"),
                          ("@EXPECTED_RESULTS@", "correct"), ("pipeline", "RTE"),
                          ("pipeline", "tle")]:
        with pytest.raises(ValueError, match=f"unknown verdict {text!r} in {dialect}; known: "):
            Verdict.from_string(text, dialect)


def test_the_table_covers_every_dialect_named():
    assert sorted(SPELLINGS) == sorted(EXPECTED)


def test_every_folder_and_polygon_tag_keeps_its_rule():
    assert FOLDER_RULES == EXPECTED_FOLDER_RULES
    assert list(POLYGON_TAGS) == list(EXPECTED_POLYGON_TAGS)  # the order messages list them in
    assert POLYGON_TAGS == EXPECTED_POLYGON_TAGS


def test_the_allowed_spellings_are_outside_spellings_still():
    # an entry left here after its spelling left the table would allow nothing
    outside = {s for table in SPELLINGS.values() for s in table} | set(FOLDER_RULES) \
        | set(POLYGON_TAGS)
    assert set(ALLOWED) <= outside


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of a module, class or function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _spellings(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of `tree` that spell a verdict, docstrings left out."""
    skip = _docstrings(tree)
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and node.value in BANNED and id(node) not in skip]


def test_no_module_but_the_table_spells_a_verdict():
    found = [f"{path.relative_to(PIPELINE.parent)}:{node.lineno}: {node.value!r}"
             for path in sorted(PIPELINE.rglob("*.py")) if path != TABLE
             for node in _spellings(ast.parse(path.read_text(), filename=str(path)))]
    assert not found, "verdicts spelled outside pipeline/verdicts.py (use Verdict):\n" + \
        "\n".join(found)


def test_the_scan_finds_a_spelling_in_code_not_in_a_docstring():
    tree = ast.parse('"""AC is fine here."""\ndef f(status):\n    """WA too."""\n'
                     '    return status == "tle" or status in ("OK", "TLE")\n')
    assert [node.value for node in _spellings(tree)] == ["tle", "TLE"]
