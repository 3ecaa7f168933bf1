"""Hostile package files at ingest: each attack is a package built here, ingested by a real
`pipeline` process beside a good package (or good files of its own) that is still stored.

- P1/P2: a YAML alias bomb ("billion laughs", 1 KB) in problem.yaml is refused at the line of
  the alias that goes over the budget, in little memory;
- P5/P6: symbolic links out of a package (a test input to /etc/passwd, a submission to a
  private file, a folder to /etc) are rejects, never read or copied; links inside are fine,
  and so, in a contest folder (contest.yaml or problems.yaml), are links inside the contest;
- P8/P9: paths in a Polygon problem.xml that leave the package (`../` in the input path
  pattern, an absolute `<source path>`) are refused naming problem.xml, the line and the rule.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import polars as pl
import pytest
from diskkit import nested_folders
from packagekit import TINY_KATTIS, tiny_kattis, tiny_polygon, write_tree

REPO = Path(__file__).resolve().parents[2]
SECRET = "SECRET-TEXT-never-to-be-read\n"


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300)


def ingest_measured(data: Path, root: Path) -> tuple[int, int, str]:
    """(exit code, peak memory in KB, stdout) of a real `pipeline ingest ROOT`, run as the
    only child of a small parent that reports its children's peak memory."""
    measure = ("import resource, subprocess, sys; "
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "print(done.stdout); print(done.stderr, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "pipeline",
                           "--data-dir", str(data), "ingest", str(root)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    first, _, rest = done.stdout.partition("\n")
    code, peak_kb = map(int, first.split())
    assert "Traceback" not in done.stderr, done.stderr
    return code, peak_kb, rest


def stored(data: Path, problem: str) -> list[str]:
    path = data / "tables" / "cases" / f"{problem}.parquet"
    return sorted(pl.read_parquet(path)["source"].to_list()) if path.exists() else []


def rejects(data: Path) -> dict[str, tuple[str, str]]:
    """source -> (rule, message) of every stored reject."""
    files = list((data / "tables" / "rejects").glob("*.parquet"))
    if not files:
        return {}
    frame = pl.read_parquet(files)
    return {s: (r, m) for s, r, m in frame.select("source", "rule", "message").iter_rows()}


def nowhere_in(folder: Path, text: str) -> list[Path]:
    """The files under `folder` whose bytes hold `text` (there should be none)."""
    needle = text.strip().encode()
    return [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
            and needle in p.read_bytes()]


GOOD_SOURCES = ["good/data/sample/1.in", "good/data/secret/01.in", "good/data/secret/02.in"]


def laughs(levels: int = 9) -> str:
    """A billion laughs: each level a list of ten aliases of the level below."""
    lines = ['lol0: &l0 "lol"']
    for level in range(1, levels + 1):
        lines.append(f"lol{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def mapping_laughs(levels: int = 9) -> str:
    """The same as nested mappings (whose keys the line table walks)."""
    lines = ["m0: &m0 {" + ", ".join(f"k{i}: x" for i in range(10)) + "}"]
    for level in range(1, levels + 1):
        lines.append(f"m{level}: &m{level} {{" + ", ".join(
            f"k{i}: *m{level - 1}" for i in range(10)) + "}")
    return "\n".join(lines) + "\n"


MODERN = "problem_format_version: 2023-07\nname: Bomb\n"
BOMBS = {
    # P1: yamlfile's line table walks every key path of nested mappings.
    "p1-mapping-bomb": ({"problem.yaml": "name: Bomb\nvalidator_flags: x\n" + mapping_laughs()
                         .replace("m9: &m9", "limits: &m9")}, "problem.yaml", "yaml-alias", 6),
    # P2: the problem's title is `str()` of the name: a list of a billion strings.
    "p2-name-bomb": ({"problem.yaml": laughs().replace("lol9: &l9", "name: &l9")},
                     "problem.yaml", "yaml-alias", 5),
    "p1-itself": ({"problem.yaml": "name: &n {title: *n}\n"}, "problem.yaml", "yaml-alias", 1),
    "p1-deep": ({"problem.yaml": "name: " + "[" * 150 + "]" * 150 + "\n"}, "problem.yaml",
                "yaml-depth", 1),
    "p1-testdata-bomb": ({"data/testdata.yaml": laughs().replace("lol9: &l9",
                                                                 "grader_flags: &l9")},
                         "data/testdata.yaml", "yaml-alias", 5),
    "p1-submissions-yaml-bomb": ({"problem.yaml": MODERN, "submissions/submissions.yaml":
                                  laughs().replace("lol9: &l9", "accepted/*:\n  message: &l9")},
                                 "submissions/submissions.yaml", "yaml-alias", 5),
    "p1-huge-yaml": ({"problem.yaml": "name: Bomb\n" + "# padding\n" * (2 << 20)},
                     "problem.yaml", "too-large", None),
}


@pytest.mark.parametrize("variant", sorted(BOMBS))
def test_p1_p2_a_yaml_alias_bomb_is_refused_at_its_line_in_little_memory(tmp_path, variant):
    files, file, rule, line = BOMBS[variant]
    assert variant == "p1-huge-yaml" or sum(len(t.encode()) for t in files.values()) < 1500
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good")
    tiny_kattis(raw / "bomb", files)
    code, peak_kb, out = ingest_measured(data, raw)
    assert code == 1
    where = f"{file}:{line}" if line else file
    assert f"reject bomb: {where}: rule {rule}:" in out, out
    assert stored(data, "good") == GOOD_SOURCES
    assert not (data / "problems" / "bomb").exists()
    assert peak_kb < 300 * 1024, f"peak {peak_kb / 1024:.0f} MB"


def test_p1_aliases_within_the_budget_still_load(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good", {"problem.yaml": "name: &n Tiny Sum\nsource: *n\n"
                               "limits: &l {memory: 256}\n"})
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 0, done.stdout + done.stderr
    assert stored(data, "good") == GOOD_SOURCES


def linked_package(tmp_path: Path) -> tuple[Path, Path]:
    """(ingest root, the outside file) for a package whose links lead out and in."""
    outside = write_tree(tmp_path / "home", {".bashrc": SECRET, "etc/passwd": SECRET})
    raw = tmp_path / "raw"
    package = tiny_kattis(raw / "good", {"extra/three.in": "7 8\n", "extra/three.ans": "15\n"})
    secret = package / "data" / "secret"
    # Out of the package: a test input, a real system file, a submission, a folder.
    os.symlink(outside / "etc" / "passwd", secret / "04.in")
    (secret / "04.ans").write_text("0\n")
    os.symlink("/etc/passwd", secret / "05.in")
    (secret / "05.ans").write_text("0\n")
    os.symlink(outside / ".bashrc", package / "submissions" / "accepted" / "x.py")
    os.symlink("/etc", secret / "etc")
    # Inside the package: a test whose files are links to files elsewhere in it.
    os.symlink("../../extra/three.in", secret / "03.in")
    os.symlink(package / "extra" / "three.ans", secret / "03.ans")
    # A loop and a named pipe.
    os.symlink("..", secret / "loop")
    os.mkfifo(secret / "06.in")
    (secret / "06.ans").write_text("0\n")
    return raw, outside


def test_p5_a_test_file_linked_out_of_the_package_is_a_reject_and_never_read(tmp_path):
    raw, outside = linked_package(tmp_path)
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    found = rejects(data)
    for name in ("04.in", "05.in", "etc"):
        rule, message = found[f"good/data/secret/{name}"]
        assert rule == "link-outside-package" and "leads outside the package" in message
    assert found["good/data/secret/04.ans"][0] == "case-left-out"
    assert found["good/data/secret/loop"][0] == "broken-link"
    assert found["good/data/secret/06.in"][0] == "not-a-file"
    assert found["good/data/secret/06.ans"][0] == "case-left-out"
    # The good files are stored, the link inside the package among them.
    assert stored(data, "good") == sorted([*GOOD_SOURCES, "good/data/secret/03.in"])
    copy = data / "problems" / "good" / "package" / "data" / "secret"
    assert sorted(p.name for p in copy.iterdir()) == ["01.ans", "01.in", "02.ans", "02.in",
                                                      "03.ans", "03.in"]
    # Nothing of what the links name was read into the data folder.
    with open("/etc/passwd") as handle:
        system_line = handle.readline()
    assert nowhere_in(data, SECRET) == [] and nowhere_in(data, system_line) == []


def test_p6_a_submission_or_folder_linked_out_is_never_copied_or_run(tmp_path):
    raw, outside = linked_package(tmp_path)
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(raw))
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    rule, message = rejects(data)["good/submissions/accepted/x.py"]
    assert rule == "link-outside-package" and str(outside / ".bashrc") in message
    registered = data / "problems" / "good" / "package"
    assert sorted(p.name for p in (registered / "submissions" / "accepted").iterdir()) == \
        ["sum.py"]
    assert not (registered / "data" / "secret" / "etc").exists()
    listed = pipeline(data, "problems")
    assert "good" in listed.stdout
    # A second look at the same package says the same and changes nothing.
    again = pipeline(data, "ingest", str(raw))
    assert "package unchanged" in again.stdout
    assert rejects(data)["good/submissions/accepted/x.py"][0] == "link-outside-package"


@pytest.mark.parametrize("description", ["problem.yaml", "problem.xml"])
def test_p5_the_package_description_linked_out_refuses_the_package_unread(tmp_path,
                                                                          description):
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good")
    make = tiny_kattis if description == "problem.yaml" else tiny_polygon
    package = make(raw / "linked")
    outside = tmp_path / "elsewhere" / description
    outside.parent.mkdir()
    outside.write_text((package / description).read_text() + f"<!-- {SECRET} -->\n")
    (package / description).unlink()
    os.symlink(outside, package / description)
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"reject linked: {description}: rule link-outside-package" in done.stdout, done.stdout
    assert stored(data, "good") == GOOD_SOURCES
    assert nowhere_in(data, SECRET) == []


def test_p8_a_polygon_input_path_pattern_with_dotdot_is_refused_at_its_line(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    write_tree(tmp_path / "outside", {"01": SECRET, "02": SECRET})
    tiny_polygon(raw / "polygood")
    tiny_polygon(raw / "polybad", input_pattern="tests/../../../outside/%02d")
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "reject polybad: problem.xml:11: rule path-outside-package: <input-path-pattern> " \
        "'tests/../../../outside/%02d': the test path 'tests/../../../outside/01' leads " \
        "outside the package" in done.stdout, done.stdout
    assert stored(data, "polygood") == ["polygood/tests/01", "polygood/tests/02"]
    assert nowhere_in(data, SECRET) == []


def test_p5_a_polygon_test_linked_out_of_the_package_refuses_it_unread(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    outside = write_tree(tmp_path / "outside", {"02": SECRET})
    tiny_polygon(raw / "polygood")
    package = tiny_polygon(raw / "polybad")
    (package / "tests" / "02").unlink()
    os.symlink(outside / "02", package / "tests" / "02")
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "reject polybad: tests/02: rule link-outside-package" in done.stdout, done.stdout
    assert stored(data, "polygood") == ["polygood/tests/01", "polygood/tests/02"]
    assert nowhere_in(data, SECRET) == []


@pytest.mark.parametrize("path", ["/etc/passwd", "../../outside/main.py",
                                  "solutions/../../../outside/main.py"])
def test_p9_a_polygon_source_path_outside_the_package_is_refused_at_its_line(tmp_path, path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    write_tree(tmp_path / "outside", {"main.py": "print(" + repr(SECRET) + ")\n"})
    tiny_polygon(raw / "polygood")
    tiny_polygon(raw / "polybad", main=path)
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "ValueError" not in done.stdout + done.stderr
    assert f"reject polybad: problem.xml:22: rule path-outside-package: the solution's " \
        f"<source path> {path!r} leads outside the package" in done.stdout, done.stdout
    assert stored(data, "polygood") == ["polygood/tests/01", "polygood/tests/02"]


@pytest.mark.parametrize("where, line, change", [
    ("<answer-path-pattern> '../../outside/%02d.a'", 12,
     lambda xml: xml.replace("tests/%02d.a", "../../outside/%02d.a")),
    ("the resource <file path> '/etc/passwd'", 19,
     lambda xml: xml.replace("<assets>", '<files><resources><file path="/etc/passwd" '
                             'type="h.g++"/></resources></files>\n    <assets>')),
])
def test_p8_p9_other_problem_xml_paths_outside_the_package_are_refused(tmp_path, where, line,
                                                                        change):
    raw, data = tmp_path / "raw", tmp_path / "data"
    write_tree(tmp_path / "outside", {"01.a": SECRET, "02.a": SECRET})
    tiny_polygon(raw / "polygood")
    xml = tiny_polygon(raw / "polybad") / "problem.xml"
    xml.write_text(change(xml.read_text()))
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"reject polybad: problem.xml:{line}: rule path-outside-package: {where}" \
        in done.stdout, done.stdout
    assert stored(data, "polygood") == ["polygood/tests/01", "polygood/tests/02"]
    assert nowhere_in(data, SECRET) == []


def test_p5_a_data_or_include_folder_linked_out_is_a_reject_naming_it(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    outside = write_tree(tmp_path / "outside", {"secret/01.in": "1 1\n",
                                                "secret/01.ans": "2\n"})
    tiny_kattis(raw / "good")
    os.symlink("/usr/include", raw / "good" / "include")
    linked = tiny_kattis(raw / "linked")
    shutil.rmtree(linked / "data")
    os.symlink(outside, linked / "data")
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "reject linked: data: rule link-outside-package: symbolic link to " \
        f"{outside} leads outside the package" in done.stdout, done.stdout
    assert rejects(data)["good/include"][0] == "link-outside-package"
    assert stored(data, "good") == GOOD_SOURCES
    assert not (data / "problems" / "good" / "package" / "include").exists()


def test_a_submissions_folder_linked_out_is_the_reject_not_a_missing_accepted_one(tmp_path):
    """A package needs an accepted submission when it gives no time limit: when its
    submissions/ (or submissions/accepted/) is a link out, which is never followed, the
    refusal names the link, not the accepted submission it hid."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    outside = write_tree(tmp_path / "outside", {"accepted/sum.py": "print(2)\n"})
    whole = tiny_kattis(raw / "whole")
    shutil.rmtree(whole / "submissions")
    os.symlink(outside, whole / "submissions")
    part = tiny_kattis(raw / "part")
    shutil.rmtree(part / "submissions" / "accepted")
    os.symlink(outside / "accepted", part / "submissions" / "accepted")
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "reject whole: submissions: rule link-outside-package: symbolic link to " \
        f"{outside} leads outside the package" in done.stdout, done.stdout
    assert "reject part: problem.yaml: rule missing-accepted: the package gives no time limit " \
        "and submissions/accepted/ holds no submission" in done.stdout, done.stdout
    assert "(submissions/accepted was left out: symbolic link to " \
        f"{outside / 'accepted'} leads outside the package" in done.stdout, done.stdout


def zipped(target: Path, files: dict[str, str], bomb: str | None = None) -> Path:
    """`files` (under the archive's one folder) zipped into `target`; `bomb` names a member
    of 100 MB that deflates to about 100 KB."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, text in files.items():
            archive.writestr(f"{target.stem}/{rel}", text)
        if bomb is not None:
            with archive.open(f"{target.stem}/{bomb}", "w") as member:
                member.write(b"name: x\n")
                for _ in range(100):
                    member.write(b"#" * (1 << 20))
    return target


@pytest.mark.parametrize("variant", ["bad-yaml", "bombed-problem-yaml", "bombed-data"])
def test_p1_a_zipped_package_that_is_bad_or_a_bomb_costs_only_itself(tmp_path, variant):
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good")
    files = dict(TINY_KATTIS)
    if variant == "bad-yaml":
        files["problem.yaml"] = "name: [unclosed\n"
        archive = zipped(raw / "zipped.zip", files)
        expected = "reject zipped.zip: problem.yaml:2: rule yaml-syntax"
    elif variant == "bombed-problem-yaml":
        del files["problem.yaml"]
        archive = zipped(raw / "zipped.zip", files, bomb="problem.yaml")
        expected = "reject zipped.zip: zipped/problem.yaml: rule too-large: would inflate"
    else:
        archive = zipped(raw / "zipped.zip", files, bomb="data/secret/03.in")
        expected = "reject zipped.zip: zipped.zip!zipped/data/secret/03.in: rule too-large: " \
                   "would inflate"
    assert archive.stat().st_size < 400_000
    code, peak_kb, out = ingest_measured(data, raw)
    assert code == 1
    assert expected in out, out
    assert stored(data, "good") == GOOD_SOURCES
    assert peak_kb < 300 * 1024, f"peak {peak_kb / 1024:.0f} MB"
    assert not list(data.rglob("03.in"))  # the bomb was never inflated


@pytest.mark.parametrize("dependency", ["../../outside/evil.py", "/OUTSIDE/evil.py"])
def test_second_pass_a_generators_file_list_outside_generators_is_never_read_or_run(
        tmp_path, dependency):
    """generators.yaml's `generators:` lists a generator's files, relative to generators/;
    one listed as `../../outside/evil.py` or by an absolute path was copied into the build and
    run (its output, the secret, reached the data folder in a reject's message). Now the entry
    is a reject naming the file, and nothing of it is read."""
    outside = write_tree(tmp_path / "outside", {"evil.py": f"print({SECRET!r})\n"})
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good")
    package = tiny_kattis(raw / "gen", {
        "generators/generators.yaml": (
            "solution: /submissions/accepted/sum.py\n"
            f"generators:\n  gen:\n    - {dependency.replace('/OUTSIDE', str(outside))}\n"
            "data:\n  secret:\n    data:\n      - a: gen 1\n      - b:\n          in: '4 5'\n")})
    shutil.rmtree(package / "data" / "secret")
    done = pipeline(data, "ingest", str(raw))
    assert "Traceback" not in done.stderr, done.stderr
    assert "generator gen: " in done.stdout and "is not in generators/" in done.stdout, \
        done.stdout
    assert stored(data, "good") == GOOD_SOURCES
    assert nowhere_in(data, SECRET) == []


def test_second_pass_a_problem_xml_over_16_mb_is_refused_unread(tmp_path):
    """A problem.xml of 20 MB (a comment) was read whole and parsed: 300 MB cost 1.2 GB and
    two minutes. Like a YAML file of a package, it is now refused by its size."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_polygon(raw / "polygood")
    xml = tiny_polygon(raw / "huge") / "problem.xml"
    xml.write_text(xml.read_text().replace("<assets>", "<!--" + "x" * (20 << 20) + "-->"
                                           "<assets>"))
    code, peak_kb, out = ingest_measured(data, raw)
    assert code == 1
    assert "reject huge: problem.xml: rule too-large: 20,972,386 bytes, more than the " \
        "16,777,216 a problem.xml may have" in out, out
    assert stored(data, "polygood") == ["polygood/tests/01", "polygood/tests/02"]
    assert peak_kb < 200 * 1024, f"peak {peak_kb / 1024:.0f} MB"


def test_second_pass_xml_entities_of_problem_xml_read_nothing_outside(tmp_path):
    """An external entity (`<!ENTITY x SYSTEM "file:///...">`, XXE) and a parameter entity
    in problem.xml read no file; an entity bomb stops at expat's amplification limit."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    secret = write_tree(tmp_path / "outside", {"secret.txt": SECRET}) / "secret.txt"
    tiny_polygon(raw / "polygood")
    for name, doctype, name_element in [
            ("xxe", f'<!ENTITY x SYSTEM "file://{secret}">', '<name language="english" '
             'value="Tiny">&x;</name>'),
            ("param", f'<!ENTITY % p SYSTEM "file://{secret}"> %p;', None),
            ("bomb", '<!ENTITY l0 "lollollollol">' + "".join(
                f'<!ENTITY l{i} "' + f"&l{i - 1};" * 10 + '">' for i in range(1, 10)),
             '<name language="english" value="&l9;"/>')]:
        xml = tiny_polygon(raw / name) / "problem.xml"
        text = xml.read_text().replace("<problem ", f"<!DOCTYPE problem [{doctype}]>\n<problem ",
                                       1)
        if name_element:
            text = text.replace('<name language="english" value="Tiny Polygon"/>',
                                name_element)
        xml.write_text(text)
    code, peak_kb, out = ingest_measured(data, raw)
    assert "reject bomb: problem.xml:5: rule xml-syntax: not well-formed XML: limit on input " \
        "amplification factor" in out, out
    assert peak_kb < 300 * 1024
    assert stored(data, "xxe") == ["xxe/tests/01", "xxe/tests/02"]
    assert nowhere_in(data, SECRET) == []


def test_second_pass_a_package_file_named_with_a_newline_or_nested_deep_is_left_out(
        tmp_path):
    """In a package, a test file whose name holds a newline, and folders 500 deep (copying
    them was a RecursionError), are rejects; the package's other cases are stored."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    package = tiny_kattis(raw / "good", {"data/secret/x\ny.in": "1 1\n",
                                         "data/secret/x\ny.ans": "2\n"})
    with nested_folders(package / "data" / "secret", 500):
        done = pipeline(data, "ingest", str(raw))
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    found = rejects(data)
    assert found["good/data/secret/x\\ny.in"][0] == "file-name"
    assert found["good/data/secret/" + "/".join(["d"] * 63)][0] == "too-deep"
    assert stored(data, "good") == GOOD_SOURCES


def test_second_pass_a_large_file_in_a_zipped_package_is_digested_in_pieces(tmp_path):
    """A zipped package holding a 300 MB file (stored, not a bomb) was read whole to digest
    the archive and its files: memory grew with the file. Now it is read in pieces."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    raw.mkdir()
    with zipfile.ZipFile(raw / "big.zip", "w", zipfile.ZIP_STORED) as archive:
        for rel, text in TINY_KATTIS.items():
            archive.writestr(f"big/{rel}", text)
        with archive.open("big/attachments/blob.bin", "w", force_zip64=True) as member:
            chunk = os.urandom(1 << 20)
            for _ in range(300):
                member.write(chunk)
    code, peak_kb, out = ingest_measured(data, raw)
    assert code == 0, out
    assert stored(data, "big") == ["big.zip/data/sample/1.in", "big.zip/data/secret/01.in",
                                   "big.zip/data/secret/02.in"]
    assert peak_kb < 200 * 1024, f"peak {peak_kb / 1024:.0f} MB"


# A contest's shared validator header, as BAPCtools contests keep it at the contest's root.
CONTEST_HEADER = r"""#include <cstdio>
// Checks one line of two integers in 1..1000; says what is wrong on stdout.
inline bool valid_sum_input() {
    long a, b; char end;
    if (std::scanf("%ld %ld%c", &a, &b, &end) != 3 || end != '\n') {
        std::puts("contest header: expected two integers and a newline");
        return false;
    }
    if (a < 1 || b < 1 || a > 1000 || b > 1000) {
        std::printf("contest header: %ld %ld out of 1..1000\n", a, b);
        return false;
    }
    return true;
}
"""
CONTEST_VALIDATOR = ('#include "validation.h"\n'
                     "int main() { return valid_sum_input() ? 42 : 43; }\n")


def contest_with_linked_header(tmp_path: Path, contest_file: str | None) -> Path:
    """A contest folder (holding `contest_file` when given) with the header at
    validator/validation.h and one problem `good` whose validator links to it the BAPCtools
    way (input_validators/v/validation.h -> ../../../validator/validation.h); one of its
    secret inputs is out of range. Returns the problem folder."""
    contest = tmp_path / "contest"
    write_tree(contest, {"validator/validation.h": CONTEST_HEADER})
    if contest_file:
        write_tree(contest, {contest_file: "name: A contest\n" if contest_file == "contest.yaml"
                             else "- id: good\n  label: A\n"})
    package = tiny_kattis(contest / "good", {
        "input_validators/v/validate.cpp": CONTEST_VALIDATOR,
        "data/secret/03.in": "0 5\n", "data/secret/03.ans": "5\n"})
    os.symlink("../../../validator/validation.h",
               package / "input_validators" / "v" / "validation.h")
    return package


@pytest.mark.parametrize("contest_file", ["contest.yaml", "problems.yaml"])
def test_p5_a_link_that_stays_inside_the_contest_folder_is_the_packages_own_file(
        tmp_path, contest_file):
    package = contest_with_linked_header(tmp_path, contest_file)
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert "Traceback" not in done.stderr, done.stderr
    found = rejects(data)
    assert "good/input_validators/v/validation.h" not in found, found
    # The validator was built with the contest's header: its own message rejects 03.in.
    rule, message = found["good/data/secret/03.in"]
    assert rule == "validator" and "contest header: 0 5 out of 1..1000" in message, message
    assert stored(data, "good") == GOOD_SOURCES
    copied = data / "problems" / "good" / "package" / "input_validators" / "v" / "validation.h"
    assert not copied.is_symlink() and copied.read_text() == CONTEST_HEADER
    # The header itself is unchanged: a link is read, never written through.
    assert (tmp_path / "contest" / "validator" / "validation.h").read_text() == CONTEST_HEADER


def test_p5_without_a_contest_yaml_the_same_link_leads_outside_the_package(tmp_path):
    package = contest_with_linked_header(tmp_path, None)
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert "Traceback" not in done.stderr, done.stderr
    rule, message = rejects(data)["good/input_validators/v/validation.h"]
    assert rule == "link-outside-package" and "leads outside the package" in message


def test_p5_a_link_out_of_the_contest_folder_stays_refused_and_unread(tmp_path):
    package = contest_with_linked_header(tmp_path, "contest.yaml")
    write_tree(tmp_path / "private", {"notes.txt": SECRET})
    os.symlink(tmp_path / "private" / "notes.txt", package / "data" / "secret" / "04.in")
    (package / "data" / "secret" / "04.ans").write_text("0\n")
    os.symlink("../..", package / "data" / "secret" / "contest")  # the contest: a loop
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert "Traceback" not in done.stderr, done.stderr
    found = rejects(data)
    rule, message = found["good/data/secret/04.in"]
    assert rule == "link-outside-package", message
    assert f"leads outside the contest folder {tmp_path / 'contest'}" in message
    assert found["good/data/secret/contest"][0] == "broken-link"
    assert nowhere_in(data, SECRET) == []
