"""Constraint coverage of a package from its testlib validator's test-overview log.

Real parts throughout: the fixture Polygon package `polysum` (its testlib validator reads `n`
in [1, 100] and each `a_i` in [-10^12, 10^12]) is ingested, run and measured through the real
`pipeline` command, and the counts are checked against the stored inputs themselves, read
back from the `cases` table and parsed here. A Kattis validator that is not a testlib one is
never given the flag.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_strength import pipeline, strength_of

from pipeline.packages.validate import parse_overview, speaks_testlib
from pipeline.programs.program import Program

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "packages"
N_LOW, N_HIGH = 1, 100
A_LOW, A_HIGH = -10**12, 10**12


def stored_inputs(data: Path, problem: str) -> list[str]:
    done = pipeline(data, "query", f"SELECT input FROM cases WHERE problem = '{problem}'",
                    "--format", "json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["input"] for line in done.stdout.splitlines() if line.strip()]


def expected_hits(inputs: list[str]) -> dict[str, tuple[int, int]]:
    """Per variable, the cases that hit its low end and its high end, from the inputs."""
    hits = {"n": [0, 0], "a_i": [0, 0]}
    for text in inputs:
        n, *numbers = (int(token) for token in text.split())
        assert len(numbers) == n
        hits["n"][0] += n == N_LOW
        hits["n"][1] += n == N_HIGH
        hits["a_i"][0] += A_LOW in numbers
        hits["a_i"][1] += A_HIGH in numbers
    return {name: (low, high) for name, (low, high) in hits.items()}


def coverage_of(data: Path) -> dict[str, tuple[int, int]]:
    rows = strength_of(data, "polysum")["coverage"]
    for row in rows:  # the log names no values: the ends and the values reached are unknown
        assert (row["low"], row["high"], row["lowest"], row["highest"]) == (None,) * 4, row
    return {row["name"]: (row["at_low"], row["at_high"]) for row in rows}


def add_manual_test(package: Path, text: str) -> None:
    """A manual test of group `large` as Polygon writes one: the next number, its answer."""
    xml = package / "problem.xml"
    source = xml.read_text()
    count = source.count("<test ")
    index = count + 1
    (package / "tests" / f"{index:02d}").write_text(text)
    (package / "tests" / f"{index:02d}.a").write_text(f"{sum(map(int, text.split()[1:]))}\n")
    source = source.replace(f"<test-count>{count}</test-count>",
                            f"<test-count>{index}</test-count>")
    source = source.replace("</tests>", '    <test group="large" method="manual" points="0"/>\n'
                            "            </tests>")
    assert source.count("<test ") == index
    xml.write_text(source)


def test_polysum_coverage_comes_from_its_testlib_validator(tmp_path: Path, shared_builds) -> None:
    """Each variable's cases at each end are those of the stored inputs; a test added with
    n = 100 and both extreme values moves the counts by one, and the warnings go."""
    data = shared_builds(tmp_path / "data")
    first = tmp_path / "first" / "polysum"
    shutil.copytree(FIXTURES / "polysum", first)
    assert pipeline(data, "ingest", str(first)).returncode == 0
    assert pipeline(data, "run", "--problem", "polysum", "--solver",
                    "solutions/main.cpp").returncode == 0
    before = expected_hits(stored_inputs(data, "polysum"))
    assert coverage_of(data) == before
    assert before["a_i"] == (0, 0), "the fixture's random values never reach +-10^12"
    text = pipeline(data, "strength", "--problem", "polysum").stdout
    section = text.split("constraint coverage of polysum", 1)[1]
    assert "as the validator checks" in section
    assert "a_i  as the validator checks  reached -  at low 0, at high 0  WARNING: no case " \
        "reaches its low or high end" in section
    page = tmp_path / "report.html"
    assert pipeline(data, "report", "--out", str(page)).returncode == 0
    table = page.read_text().split('<table class="coverage">', 1)[1].split("</table>", 1)[0]
    assert ("<tr><td>a_i</td><td>as the validator checks</td><td>-</td><td>0 / 0</td><td>"
            '<span class="tag">no case at its low or high end</span>') in table
    assert f"<tr><td>n</td><td>as the validator checks</td><td>-</td><td>{before['n'][0]} / " \
        f"{before['n'][1]}</td>" in table

    second = tmp_path / "second" / "polysum"  # the same package with one more test
    shutil.copytree(first, second)
    values = [A_HIGH, A_LOW] + [7] * (N_HIGH - 2)
    add_manual_test(second, f"{N_HIGH}\n{' '.join(map(str, values))}\n")
    assert pipeline(data, "ingest", str(second)).returncode == 0
    assert pipeline(data, "run", "--problem", "polysum", "--solver",
                    "solutions/main.cpp").returncode == 0
    after = expected_hits(stored_inputs(data, "polysum"))
    assert after == {"n": (before["n"][0], before["n"][1] + 1), "a_i": (1, 1)}
    assert coverage_of(data) == after
    section = pipeline(data, "strength", "--problem", "polysum").stdout.split(
        "constraint coverage of polysum", 1)[1]
    assert "a_i  as the validator checks  reached -  at low 1, at high 1\n" in section + "\n"


def test_a_validator_that_is_not_testlib_is_never_given_the_flag(tmp_path: Path) -> None:
    """circlearea's Kattis validator is Python: it is not asked, so the package shows no
    coverage, and the text says why. Its stand-in here would write an overview log (and
    coverage would show `r`) if it were given the flag."""
    data = tmp_path / "data"
    package = tmp_path / "circlearea"
    shutil.copytree(FIXTURES / "circlearea", package)
    validator = package / "input_validators" / "validate.py"
    validator.write_text(validator.read_text().replace("import sys\n", (
        "import sys\n"
        "if '--testOverviewLogFileName' in sys.argv:  # include \"testlib.h\" (a comment)\n"
        "    log = sys.argv[sys.argv.index('--testOverviewLogFileName') + 1]\n"
        "    open(log, 'w').write('\"r\": min-value-hit max-value-hit\\n')\n"), 1))
    assert pipeline(data, "ingest", str(package)).returncode == 0
    assert pipeline(data, "run", "--problem", "circlearea", "--solver",
                    "accepted/area.py").returncode == 0
    assert strength_of(data, "circlearea")["coverage"] == []
    text = pipeline(data, "strength", "--problem", "circlearea").stdout
    assert "constraint coverage of circlearea: no testlib input validator" in text
    assert "validators that are not testlib ones are not asked" in text


def test_only_sources_that_include_testlib_speak_it(tmp_path: Path) -> None:
    def program(path: Path) -> Program:
        return Program(name=path.name, role="input_validator", path=path, files=(path,),
                       language="cpp", convention="kattis")

    assert speaks_testlib(program(FIXTURES / "polysum" / "files" / "validator.cpp"))
    own = tmp_path / "kattis_testlib.cpp"
    own.write_text('#include <cstdio>\n#  include "testlib.h"\nint main() { return 42; }\n')
    assert speaks_testlib(program(own))
    plain = tmp_path / "plain.cpp"
    plain.write_text('#include <cstdio>\n// like testlib.h, but not it\nint main() {}\n')
    assert not speaks_testlib(program(plain))


def test_the_overview_log_is_read_per_variable_and_features_are_left_out() -> None:
    log = ('"a_i": min-value-hit max-value-hit\n"k":\n"n": max-value-hit\n'
           'feature "tree": hit\nfeature "path":\n')
    assert [(h.name, h.min_hit, h.max_hit) for h in parse_overview(log)] == [
        ("a_i", True, True), ("k", False, False), ("n", False, True)]
