"""find_cases: which files are inputs, where their answers are, and their groups."""

from pipeline.corpus.walk import FoundCase, find_cases


def cases(paths):
    return {c.input: c for c in find_cases(paths).cases}


def test_plain_pairs_with_every_answer_suffix_and_lone_inputs():
    found = cases(["a/01.in", "a/01.out", "a/02.in", "a/02.ans", "a/03.in", "a/03.a", "a/04.in"])
    assert found["a/01.in"].expected == "a/01.out"
    assert found["a/02.in"].expected == "a/02.ans"
    assert found["a/03.in"].expected == "a/03.a"
    assert found["a/04.in"].expected is None
    assert found["a/01.in"].group == "a"


def test_kattis_package_groups():
    found = cases(["pkg/data/sample/1.in", "pkg/data/sample/1.ans",
                   "pkg/data/secret/g1/big.in", "pkg/data/secret/g1/big.ans",
                   "pkg/data/secret/x.in", "pkg/problem.yaml"])
    assert found["pkg/data/sample/1.in"] == FoundCase("pkg/data/sample/1.in",
                                                      "pkg/data/sample/1.ans", "sample")
    assert found["pkg/data/secret/g1/big.in"].group == "secret/g1"
    assert found["pkg/data/secret/x.in"].group == "secret"


def test_polygon_tests_folder():
    found = cases(["tests/01", "tests/01.a", "tests/02"])
    assert found["tests/01"].expected == "tests/01.a"
    assert found["tests/02"].expected is None


def test_atcoder_in_and_out_folders_with_any_extension():
    found = cases(["ac/in/sample_01.txt", "ac/out/sample_01.txt", "ac/in/max", "ac/out/max"])
    assert found["ac/in/sample_01.txt"].expected == "ac/out/sample_01.txt"
    assert found["ac/in/max"].expected == "ac/out/max"
    assert found["ac/in/max"].group == "ac"


def test_tps_subtask_groups():
    found = cases(["tests/1-01.in", "tests/1-01.out", "tests/2-13.in", "tests/2-13.out"])
    assert found["tests/2-13.in"].group == "2"
    assert found["tests/1-01.in"].expected == "tests/1-01.out"


def test_files_of_no_case_are_skipped_and_listed():
    discovery = find_cases(["a/01.in", "a/01.out", "a/.DS_Store", "a/statement.pdf",
                            "a/checker.cpp", "a/orphan.out", "a/manifest.json"])
    assert [c.input for c in discovery.cases] == ["a/01.in"]
    assert set(discovery.skipped) == {"a/.DS_Store", "a/statement.pdf", "a/checker.cpp",
                                      "a/orphan.out", "a/manifest.json"}
