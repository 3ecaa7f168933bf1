"""From an empty data folder, `pipeline stress` finds the known-wrong stages unaided from the
recipes and shrinks them to their smallest known counterexamples (real `pipeline` processes)."""

from __future__ import annotations

from stresskit import cases, findings, run_cli

SMALLEST_CF103119G = "3 1\n0 1 3\n2 1\n"   # three numbers and one query


def test_cf103119g_editorial_is_found_and_shrunk_to_three_numbers_and_one_query(tmp_path):
    data = tmp_path / "data"
    done = run_cli(data, "stress", "--problem", "cf103119g", "--solver", "editorial",
                   "--budget", "60s")
    assert done.returncode == 1, done.stderr      # 1: a failure was found
    row = findings(data).row(0, named=True)
    assert row["verdict"] == "WA" and row["locally_minimal"]
    assert row["shrunk_size"] <= 4                 # n + m of the smallest known
    kept = (data / "raw" / row["source"]).read_text()
    assert len(kept) <= len(SMALLEST_CF103119G)
    assert kept == SMALLEST_CF103119G              # the one smallest in the order
    assert (row["answer"].split(), row["expected"].split()) == (["Grammy"], ["Alice"])
    stored = cases(data, "cf103119g")
    assert stored.filter(stored["case_id"] == row["case_id"])["group"].to_list() == ["found"]
    assert "finding 1: WA" in done.stdout and "    | 0 1 3" in done.stdout


def test_insq15g_independent_people_is_shrunk_to_two_people(tmp_path):
    data = tmp_path / "data"
    done = run_cli(data, "stress", "--problem", "insq15g", "--solver", "independent-people",
                   "--budget", "60s")
    assert done.returncode == 1, done.stderr
    row = findings(data).row(0, named=True)
    assert row["shrunk_size"] == 2 and row["locally_minimal"]
    assert (data / "raw" / row["source"]).read_text() == "1 2 2\n1 1\n1 1\n"
    assert (row["answer"].split(), row["expected"].split()) == (["No"], ["Yes"])
