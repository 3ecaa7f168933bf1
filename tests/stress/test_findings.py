"""Keeping a case: judge files under DATA/raw/<problem>/<group>/, ingested as an ingest of
DATA/raw would ingest them, and findings rows that `pipeline query` sees."""

from __future__ import annotations

import os
import signal
import time

import pytest
from stresskit import cases

from pipeline.corpus.ingest import ingest
from pipeline.problems import get_problem
from pipeline.report.query import run_query
from pipeline.stress.findings import interrupts_deferred, keep_case, read_findings, write_finding


def test_a_kept_case_is_labelled_as_a_full_ingest_labels_it(tmp_path):
    problem = get_problem("cf103119g")
    data = tmp_path / "data"
    kept = keep_case(data, problem, "found", "editorial-x", "3 1\n0 1 3\n2 1\n", "Alice\n")
    assert kept.path == data / "raw" / "cf103119g" / "found" / "editorial-x.in"
    assert kept.source == "cf103119g/found/editorial-x.in" and kept.problems == ()
    again = ingest(data, [data / "raw"])                # the next nightly's ingest
    summary = again.problems["cf103119g"]
    assert (summary.found, summary.added, summary.unchanged) == (1, 0, 1)
    stored = cases(data, "cf103119g")
    assert stored["source"].to_list() == [kept.source] and stored["group"].to_list() == ["found"]
    assert stored["case_id"].to_list() == [kept.case_id]


def test_a_conflicting_expected_answer_is_reported_not_stored(tmp_path):
    problem = get_problem("cf103119g")
    data = tmp_path / "data"
    keep_case(data, problem, "found", "a", "3 1\n0 1 3\n2 1\n", "Alice\n")
    kept = keep_case(data, problem, "found", "b", "3 1\n0 1 3\n2 1\n", "Grammy\n")
    assert kept.problems and "conflict" in kept.problems[0]
    assert cases(data, "cf103119g")["expected"].to_list() == ["Alice\n"]


def test_findings_rows_are_a_table_pipeline_query_sees(tmp_path):
    data = tmp_path / "data"
    for number in range(2):
        write_finding(data, {"finding_id": f"f{number}", "kind": "stress", "problem": "toy",
                             "solver": "planted", "shrunk_size": 2 + number,
                             "found_at": None})
    frame = run_query(data, "select finding_id, shrunk_size from findings order by finding_id")
    assert frame.rows() == [("f0", 2), ("f1", 3)]
    assert read_findings(data).height == 2
    assert run_query(tmp_path / "empty", "select count(*) as n from findings").item() == 0


def test_ctrl_c_while_keeping_waits_until_the_case_is_kept():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            done.append("kept")
    assert done == ["kept"]
