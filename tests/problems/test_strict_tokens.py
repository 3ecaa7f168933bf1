"""Judge files are held to the judges' strictness (issue 22, faults N2, N3, N4).

A C++ judge's `std::cin` splits tokens on spaces and newlines (and tabs), not on a no-break
space, U+2003, `\\x1c`..`\\x1f` or U+0085 as Python's `str.split` does, and a checker compares
`00004` with `4` as different tokens. So for all five problems: tokens are separated by spaces
and newlines only (`\\r\\n` is a newline; no statement allows a tab), integers are canonical (no
leading zero, no `-0`, no `+`), and expected outputs follow the same rules as inputs.

Every test writes real files for every problem, a good case beside a bad one, and ingests them
with a real `pipeline ingest` process: the good cases are stored, each bad file is a reject
naming its file, line, column and rule, on the console and in the `rejects` table.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.problems import get_problem

REPO = Path(__file__).resolve().parents[2]
PROBLEMS = ("movcoin2", "insq15g", "arc087e", "bipartitebattle", "cf103119g")


@dataclass(frozen=True)
class Bad:
    """A broken judge file: `bad.in`, or `bad.out` beside the sample's `bad.in`."""

    text: str
    line: int
    column: int
    rule: str
    part: str = "in"


def sample(problem_id: str) -> tuple[str, str]:
    folder = get_problem(problem_id).samples
    return (folder / "01.in").read_text(), (folder / "01.out").read_text()


def good_case(problem_id: str) -> tuple[str, str]:
    """A generated tiny case (a recipe's output) and the fast stage's answer to it."""
    problem = get_problem(problem_id)
    tiny = next(r for r in problem.recipes if r.kind == "tiny")
    case = problem.generate(tiny.name, 7)
    return problem.render(case), problem.format_answer(case, problem.stage("fast")(case))


def place(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def at_first_space(text: str, separator: str) -> Bad:
    """`text` with its first space replaced by `separator`: a `separator` reject there."""
    offset = text.index(" ")
    return Bad(text[:offset] + separator + text[offset + 1:], *place(text, offset), "separator")


def token_replaced(text: str, index: int, new: str, rule: str = "non-canonical") -> Bad:
    """`text` with its token number `index` (0-based) replaced by `new`."""
    token = list(re.finditer(r"\S+", text))[index]
    return Bad(text[:token.start()] + new + text[token.end():], *place(text, token.start()),
               rule)


def first_token_as(problem_id: str, make) -> Bad:
    text, _ = sample(problem_id)
    first = text.split()[0]
    return token_replaced(text, 0, make(first))


def ingest_beside_good(tmp_path: Path, bad: dict[str, Bad]) -> tuple[Path, str]:
    """Lay out `raw/<problem>/good.in|.out` and the bad file for each problem, ingest `raw`
    with a real process, and check what every test expects: exit 1, each good case stored
    alone, each bad file a reject at its line, column and rule. Returns the data folder and
    the console output."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    for problem_id, broken in bad.items():
        folder = raw / problem_id
        folder.mkdir(parents=True)
        good_in, good_out = good_case(problem_id)
        (folder / "good.in").write_text(good_in)
        (folder / "good.out").write_text(good_out)
        if broken.part == "in":
            (folder / "bad.in").write_bytes(broken.text.encode("utf-8"))
        else:
            (folder / "bad.in").write_text(sample(problem_id)[0])
            (folder / "bad.out").write_bytes(broken.text.encode("utf-8"))
    done = subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest",
                           str(raw)], cwd=REPO, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "Traceback" not in output
    rejects = pl.read_parquet(list((data / "tables" / "rejects").glob("*.parquet")))
    for problem_id, broken in bad.items():
        cases = pl.read_parquet(data / "tables" / "cases" / f"{problem_id}.parquet")
        assert cases["source"].to_list() == [f"{problem_id}/good.in"], (problem_id, output)
        source = f"{problem_id}/bad.{broken.part}"
        found = rejects.filter(pl.col("source") == source)
        assert found.select("line", "column", "rule").rows() == [
            (broken.line, broken.column, broken.rule)], (source, found.to_dicts())
        assert f"reject {source}:{broken.line}: " in output, output
        assert f"[{broken.rule}]" in output
    return data, output


# -- N2: separators -------------------------------------------------------------------------

def test_n2_nbsp_is_not_a_separator(tmp_path):
    bad = {p: at_first_space(sample(p)[0], "\u00a0") for p in PROBLEMS}
    _, output = ingest_beside_good(tmp_path, bad)
    assert "U+00A0 (no-break space) between tokens: the format separates tokens by spaces " \
        "and newlines only [separator]" in output


def test_n2_em_space_u2003_is_not_a_separator(tmp_path):
    ingest_beside_good(tmp_path, {p: at_first_space(sample(p)[0], "\u2003") for p in PROBLEMS})


def test_n2_file_separator_x1c_is_not_a_separator(tmp_path):
    ingest_beside_good(tmp_path, {p: at_first_space(sample(p)[0], "\x1c") for p in PROBLEMS})


def test_n2_unit_separator_x1f_is_not_a_separator(tmp_path):
    ingest_beside_good(tmp_path, {p: at_first_space(sample(p)[0], "\x1f") for p in PROBLEMS})


def test_n2_next_line_u0085_is_not_a_separator(tmp_path):
    ingest_beside_good(tmp_path, {p: at_first_space(sample(p)[0], "\x85") for p in PROBLEMS})


def test_n2_tab_is_not_a_separator_as_no_statement_allows_one(tmp_path):
    _, output = ingest_beside_good(tmp_path,
                                   {p: at_first_space(sample(p)[0], "\t") for p in PROBLEMS})
    assert "a tab between tokens" in output


def test_n2_crlf_and_a_lone_cr_are_newlines(tmp_path):
    """What stays accepted: `\\r\\n` and a lone `\\r` end lines (stored as `\\n`), and runs of
    spaces and newlines, as in the statements' shared rules."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    for problem_id in PROBLEMS:
        text, answer = sample(problem_id)
        folder = raw / problem_id
        folder.mkdir(parents=True)
        (folder / "crlf.in").write_bytes(text.replace("\n", "  \r\n\r\n").encode())
        (folder / "cr.in").write_bytes(text.replace("\n", "\r").encode())
        (folder / "cr.out").write_bytes(answer.replace("\n", "\r\n").encode())
    done = subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest",
                           str(raw)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for problem_id in PROBLEMS:
        text, answer = sample(problem_id)
        cases = pl.read_parquet(data / "tables" / "cases" / f"{problem_id}.parquet")
        by_source = {row["source"]: row for row in cases.iter_rows(named=True)}
        assert by_source[f"{problem_id}/cr.in"]["input"] == text
        assert by_source[f"{problem_id}/cr.in"]["expected"] == answer


# -- N3: canonical integers -----------------------------------------------------------------

def test_n3_leading_zero_01_is_not_a_number(tmp_path):
    _, output = ingest_beside_good(
        tmp_path, {p: first_token_as(p, lambda token: "0" + token) for p in PROBLEMS})
    assert "should be a canonical integer (no leading zero, no '+', no '-0')" in output


def test_n3_minus_zero_is_not_a_number(tmp_path):
    """`-0` where 0 is a valid value (movcoin2's coins, cf103119g's values), and as the first
    number of the other three."""
    movcoin2 = sample("movcoin2")[0]
    zero = movcoin2.split().index("0")
    cf103119g = sample("cf103119g")[0]
    bad = {p: first_token_as(p, lambda token: "-0") for p in ("insq15g", "arc087e",
                                                                 "bipartitebattle")}
    bad["movcoin2"] = token_replaced(movcoin2, zero, "-0")
    bad["cf103119g"] = token_replaced(cf103119g, 2, "-0")  # A_1, in 0..255
    ingest_beside_good(tmp_path, bad)


def test_n3_5000_leading_zeros_are_not_a_number(tmp_path):
    _, output = ingest_beside_good(
        tmp_path, {p: first_token_as(p, lambda token: "0" * 5000 + token) for p in PROBLEMS})
    assert "(5,001 characters)" in output
    assert max(len(line) for line in output.splitlines()) < 600  # the token is quoted short


def test_n3_plus_sign_is_not_a_number(tmp_path):
    ingest_beside_good(tmp_path,
                       {p: first_token_as(p, lambda token: "+" + token) for p in PROBLEMS})


# -- N4: expected outputs -------------------------------------------------------------------

def test_n4_movcoin2_expected_00004_is_a_reject_not_a_stored_answer(tmp_path):
    text, answer = sample("movcoin2")
    assert answer.startswith("4\n")
    data, _ = ingest_beside_good(tmp_path, {"movcoin2": Bad(
        "0000" + answer, 1, 1, "non-canonical", part="out")})
    stored = pl.read_parquet(data / "tables" / "cases" / "movcoin2.parquet")
    # the case with the broken answer is not stored, so no solver is judged WA against it
    assert text not in stored["input"].to_list()
    assert not any(e.startswith("0000") for e in stored["expected"].drop_nulls().to_list())


def test_n4_expected_outputs_follow_the_rules_of_inputs(tmp_path):
    """A leading zero in an integer answer, and a separator that is not a space or a newline
    in a word answer, are rejects of the expected output."""
    def out(problem_id: str, make) -> Bad:
        bad = make(sample(problem_id)[1])
        return Bad(bad.text, bad.line, bad.column, bad.rule, part="out")

    def separator_at_first_newline(answer: str, separator: str) -> Bad:
        offset = answer.index("\n")
        return Bad(answer[:offset] + separator + answer[offset:], 1, offset + 1, "separator")

    bad = {
        "bipartitebattle": out("bipartitebattle", lambda a: token_replaced(a, 0, "0" + a.strip())),
        "movcoin2": out("movcoin2", lambda a: token_replaced(a, 1, "-0")),
        "arc087e": out("arc087e", lambda a: separator_at_first_newline(a, "\u00a0")),
        "insq15g": out("insq15g", lambda a: separator_at_first_newline(a, "\t")),
        "cf103119g": out("cf103119g", lambda a: separator_at_first_newline(a, "\x1c")),
    }
    ingest_beside_good(tmp_path, bad)
