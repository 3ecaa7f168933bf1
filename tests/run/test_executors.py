"""The local pool: batches of jobs through a few long-lived workers, with a watch on time.

Built-in stages run inside the workers; the parent kills a worker whose case overruns, records
`TLE`, and hands the rest of that worker's batch to a replacement.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from runkit import (
    alive,
    check_turns_by_problem,
    command,
    corpus,
    external,
    jobs_of,
    py,
    run_cli,
    run_jobs,
    stage,
)

from pipeline.programs.jobs import Job
from pipeline.run.executors import LocalPoolExecutor, batches
from pipeline.verdicts import Verdict


def _tiny(count: int, spec=None) -> list[Job]:
    spec = spec or stage("fast")
    return [Job(i, spec, f"case{i}", f"{i} 1\n") for i in range(count)]


# -- batching ------------------------------------------------------------------------------------

def test_tiny_stage_jobs_travel_in_batches_of_64_and_external_ones_in_fours():
    assert [len(b) for b in batches(_tiny(200))] == [64, 64, 64, 8]
    programs = _tiny(10, external(py("sum")))
    assert [len(b) for b in batches(programs)] == [4, 4, 2]
    submissions = _tiny(3, replace(external(py("sum")), kind="submission"))
    assert [len(b) for b in batches(submissions)] == [1, 1, 1]
    assert [job.key for b in batches(_tiny(200)) for job in b] == list(range(200))


def test_batches_stop_at_a_byte_budget_so_a_big_input_travels_alone():
    small = [Job(i, stage("fast"), f"s{i}", "1 1\n") for i in range(3)]
    big = Job(3, stage("fast"), "big", "1 " + "0" * 600_000 + "\n")
    bigger = Job(4, stage("fast"), "bigger", "1 " + "0" * 900_000 + "\n")
    grouped = [[job.key for job in b] for b in batches([*small, big, bigger], max_bytes=1 << 20)]
    assert grouped == [[0, 1, 2, 3], [4]]


def test_a_job_of_a_solver_run_one_at_a_time_waits_while_another_of_it_is_out():
    from pipeline.run.dask_executor import _Pace, next_in_turn
    from pipeline.run.executors import held_back

    serial, free = external(py("sum"), name="serial"), external(py("sum"), name="free")
    jobs = [Job(0, serial, "a", "1\n"), Job(1, serial, "b", "1\n"), Job(2, free, "c", "1\n"),
            Job(3, serial, "d", "1\n")]
    assert held_back([jobs[1]], frozenset({"serial"}), out={"serial"})
    assert not held_back([jobs[1]], frozenset({"serial"}), out={"free"})
    assert not held_back([jobs[2]], frozenset({"serial"}), out={"serial", "free"})
    assert not held_back([jobs[1]], frozenset(), out={"serial"})

    def taken(live: list[list[Job]], graded_here=frozenset()) -> list[Job]:
        return next_in_turn(pending, frozenset({"serial"}), live, _Pace({}, {}), 2,
                            set(graded_here))

    pending = deque(jobs[1:])  # job 0 is out on the cluster: jobs 1 and 3 wait, job 2 goes
    assert taken([[jobs[0]]]) == [jobs[2]]
    assert taken([[jobs[0]]]) == []
    # Once it is back, the solver's next jobs travel together, in order (the worker stops at
    # their first failure), unless its answers are graded here: then one at a time.
    assert taken([], {("toy", "serial")}) == [jobs[1]]
    assert taken([]) == [jobs[3]] and not pending
    pending = deque(jobs)
    assert taken([]) == [jobs[0], jobs[1], jobs[3]] and list(pending) == [jobs[2]]


def test_pending_batches_go_by_rank_then_arrival_and_a_handed_back_one_before_all():
    from pipeline.run.executors import _Pending

    serial, free = external(py("sum"), name="serial"), external(py("sum"), name="free")
    jobs = [Job(i, serial if i % 2 else free, f"c{i}", "1\n") for i in range(8)]
    pending = _Pending()
    for rank, batch in [(5, [jobs[0]]), (2, [jobs[2], jobs[1], jobs[3]]), (5, [jobs[4]]),
                        (2, [jobs[5]])]:
        pending.add(batch, rank)
    pending.first([jobs[6]])
    pending.first([jobs[7]])
    assert (len(pending), pending.jobs, pending.head().key) == (6, 8, 7)

    def keys(batches) -> list[list[int]]:
        return [[job.key for job in batch] for batch in batches]

    # a held-back batch keeps its place; the first job of a batch that travels alone goes
    # alone, the rest of its batch stays where it was
    not_serial = lambda batch: batch[0].solver.name != "serial"  # noqa: E731
    taken = pending.take(not_serial, alone=lambda batch: True)
    assert keys([next(taken), next(taken)]) == [[6], [2]]
    assert pending.jobs == 6
    assert keys(pending.take(lambda batch: True, alone=lambda batch: False)) == [
        [7], [1, 3], [5], [0], [4]]
    assert not pending and pending.jobs == 0


def test_a_pool_runs_the_jobs_of_a_solver_one_at_a_time_when_asked():
    """Two workers, four jobs of one solver run one at a time: when each outcome comes, no
    other job of it is out (each travels alone); the same jobs of a solver not so named are
    out several at once (a batch of four, here)."""
    def most_out_at_once(one_at_a_time: frozenset[str]) -> int:
        most = 0
        with LocalPoolExecutor(2) as executor:
            jobs = _tiny(4, external(py("sum"), name="prog"))
            for _ in executor.run(jobs, one_at_a_time=one_at_a_time):
                out = sum(len(w.batch) - w.done for w in executor._workers if w.busy)
                most = max(most, out + 1)  # the job just back was out with these
        return most

    assert most_out_at_once(frozenset({"prog"})) == 1
    assert most_out_at_once(frozenset()) > 1


def test_many_tiny_cases_go_through_few_workers_fast():
    with LocalPoolExecutor(2) as executor:
        started = time.monotonic()
        outcomes = run_jobs(executor, _tiny(3000, stage("pid")))
        elapsed = time.monotonic() - started
    served = Counter(outcome.answer for outcome in outcomes.values())
    assert all(outcome.verdict is None for outcome in outcomes.values())
    assert len(served) == 2  # the two worker processes answered all 3000 cases between them
    assert elapsed < 5  # far below 3000 process starts
    walls = sorted(outcome.wall_ms for outcome in outcomes.values())
    assert walls[len(walls) // 2] < 1  # each case is timed alone: microseconds, not a start


def test_every_job_gets_exactly_one_outcome_in_any_order(pool):
    mixed = jobs_of([(stage("fast"), "1 2\n"), (external(py("sum")), "3 4\n"),
                     (stage("brute"), "5 6\n"), (stage("fast"), "7 8\n")] * 5)
    outcomes = run_jobs(pool, mixed)
    assert [outcomes[i].answer for i in range(20)] == ["3\n", "7\n", "11\n", "15\n"] * 5


# -- outcomes of built-in stages -----------------------------------------------------------------

def test_a_stage_is_timed_on_its_own_with_no_process_measurements(pool):
    [outcome] = run_jobs(pool, jobs_of([(stage("nap"), "1 2\n")])).values()
    assert (outcome.verdict, outcome.answer) == (None, "3\n")
    assert 2 <= outcome.wall_ms < 100
    assert outcome.cpu_ms < outcome.wall_ms  # it slept
    assert outcome.peak_rss_kb is None and outcome.exit_code is None


def test_a_raising_stage_is_a_runtime_error_naming_the_exception_and_place(pool):
    [outcome] = run_jobs(pool, jobs_of([(stage("crashy"), "4 5\n")])).values()
    assert outcome.verdict == Verdict.RE
    assert outcome.error.startswith("RuntimeError: crashy gives up on 4 5 at ")
    assert "toy/__init__.py:" in outcome.error


def test_a_memory_error_in_a_stage_is_a_memory_verdict(pool):
    [outcome] = run_jobs(pool, jobs_of([(stage("hungry"), "1 1\n")])).values()
    assert (outcome.verdict, outcome.error) == (Verdict.MLE, "MemoryError")


def test_a_case_beyond_a_stages_limits_is_skipped_with_the_reason(pool):
    outcomes = run_jobs(pool, jobs_of([(stage("brute"), "1 1000\n"), (stage("brute"), "1 1001\n"),
                                       (stage("fast"), f"{10**12} 1\n")]))
    assert (outcomes[0].verdict, outcomes[0].answer) == (None, "1001\n")
    assert (outcomes[1].verdict, outcomes[1].error) == (Verdict.SKIP, "b = 1001 is above 1000")
    assert (outcomes[2].verdict, outcomes[2].error) == (Verdict.SKIP, "a or b is above 1000000000")


def test_an_input_the_parser_rejects_is_a_runtime_error(pool):
    [outcome] = run_jobs(pool, jobs_of([(stage("fast"), "1 two\n")])).values()
    assert outcome.verdict == Verdict.RE
    assert outcome.error.startswith("input rejected: line 1")


# -- timeouts and dead workers -------------------------------------------------------------------

def test_an_overdue_stage_is_killed_its_worker_replaced_and_the_batch_finished():
    with LocalPoolExecutor(1) as executor:
        jobs = [*_tiny(3, stage("pid")), Job(3, stage("sleepy", timeout_s=0.5), "slow", "1 1\n"),
                *(Job(i, stage("pid"), f"case{i}", "1 1\n") for i in range(4, 8))]
        assert len(list(batches(jobs))) == 1  # all in one batch, so on one worker
        started = time.monotonic()
        outcomes = run_jobs(executor, jobs)
        elapsed = time.monotonic() - started
        [survivor] = [worker.process.pid for worker in executor._workers]
    slow = outcomes[3]
    assert slow.verdict == Verdict.TLE
    assert slow.error.startswith("wall clock 1 s cap reached (limit + 0.5 s, its waits for "
                                 "a core not counted; 0.0")
    assert 1000 <= slow.wall_ms < 3500 and slow.cpu_ms < 100  # it slept: little CPU
    # Outcomes travel in groups, so the quick jobs before the overdue one may not have been
    # reported when it was killed: they then run again on the replacement. Either way every
    # other job gets its answer, and those after the overdue one come from a new worker.
    after = {outcomes[i].answer for i in range(4, 8)}
    assert all(outcomes[i].verdict is None for i in (0, 1, 2, 4, 5, 6, 7))
    assert len(after) == 1 and int(after.pop()) == survivor
    killed = {int(outcomes[i].answer) for i in range(3)} - {survivor}
    assert all(not alive(pid) for pid in killed)  # the overdue worker was killed
    assert elapsed < 6  # not the 60 s the stage wanted


def test_the_clock_starts_when_the_worker_is_ready_not_when_it_is_spawned():
    """A fresh worker's start-up (and its import of the problem) is not charged to its first
    case: with a timeout far below a process start, fast cases still pass, even right after a
    worker was killed and replaced."""
    with LocalPoolExecutor(1) as executor:
        jobs = [*_tiny(5, stage("fast", timeout_s=0.05)),
                Job(5, stage("sleepy", timeout_s=0.05), "slow", "1 1\n"),
                *(Job(i, stage("fast", timeout_s=0.05), f"case{i}", "1 1\n") for i in range(6, 10))]
        outcomes = run_jobs(executor, jobs)
    verdicts = [outcomes[i].verdict for i in range(10)]
    assert verdicts == [None] * 5 + [Verdict.TLE] + [None] * 4


def test_a_stage_that_kills_every_worker_it_runs_on_is_a_judge_error_and_the_rest_still_run(
        pool):
    """A worker that dies costs its case no verdict: the case runs again on a fresh worker,
    and when that one dies too it is a judge error naming both deaths, never RE."""
    jobs = [*_tiny(2), Job(2, stage("dies"), "dies", "1 1\n"), *(
        Job(i, stage("fast"), f"case{i}", f"{i} 1\n") for i in range(3, 6))]
    outcomes = run_jobs(pool, jobs)
    assert outcomes[2].verdict == Verdict.JE
    # (how a worker ended is read before the worker server reaps it; on a loaded machine it
    # may have been reaped first, which the message then says)
    death = "(killed by SIGKILL|exit status unknown)"
    assert re.fullmatch(rf"judge error: its worker died twice \({death}, then {death}\); "
                        "--resume runs it again", outcomes[2].error), outcomes[2].error
    assert (outcomes[2].wall_ms, outcomes[2].cpu_ms) == (None, None)  # no time of the program
    assert [outcomes[i].answer for i in (0, 1, 3, 4, 5)] == ["1\n", "2\n", "4\n", "5\n", "6\n"]


def test_a_case_whose_worker_died_once_gets_its_verdict_on_a_fresh_worker(tmp_path,
                                                                          monkeypatch):
    """The stage kills its worker the first time only (it leaves a file first): the retry on
    the replacement answers, so the case gets the verdict of its answer, and each job of the
    batch exactly one outcome."""
    marker = tmp_path / "died"
    monkeypatch.setenv("TOY_DIES_ONCE", str(marker))  # the workers take it as they start
    with LocalPoolExecutor(2) as executor:
        jobs = [*_tiny(2), Job(2, stage("dies"), "dies", "7 1\n"), *(
            Job(i, stage("fast"), f"case{i}", f"{i} 1\n") for i in range(3, 6))]
        outcomes = run_jobs(executor, jobs)
    assert marker.exists()  # made just before the stage killed its first worker
    assert (outcomes[2].verdict, outcomes[2].answer, outcomes[2].error) == (None, "8\n", None)
    assert [outcomes[i].answer for i in (0, 1, 3, 4, 5)] == ["1\n", "2\n", "4\n", "5\n", "6\n"]


def test_a_pools_workers_start_as_it_is_made_and_run_its_first_jobs():
    """Forked in the background as the pool is made, they are up before a first job comes
    (a run's builds and case loading go on meanwhile), and its first jobs run on them."""
    with LocalPoolExecutor(2) as executor:
        executor._started()  # (the background start, waited for)
        pids = [worker.process.pid for worker in executor._workers]
        assert len(pids) == 2 and all(pid is not None and alive(pid) for pid in pids)
        outcomes = run_jobs(executor, _tiny(8, external(py("sum"))))
        assert [outcome.answer for _, outcome in sorted(outcomes.items())] == \
            [f"{i + 1}\n" for i in range(8)]
        assert [worker.process.pid for worker in executor._workers] == pids


def test_closing_the_pool_stops_every_worker():
    executor = LocalPoolExecutor(2)
    run_jobs(executor, _tiny(200))
    workers = [worker.process.pid for worker in executor._workers]
    assert len(workers) == 2 and all(alive(pid) for pid in workers)
    executor.close()
    assert not any(alive(pid) for pid in workers)
    assert executor._workers == []


def test_a_pool_first_used_from_a_thread_that_ends_keeps_its_workers():
    """A worker asks to be killed when its parent dies (PR_SET_PDEATHSIG), which Linux ties to
    the thread that started it: a pool first used from a short-lived thread lost its workers
    to SIGKILL when that thread ended, and its next batch failed with a broken pipe. They are
    started from a thread that lasts as long as the process."""
    with LocalPoolExecutor(1) as executor:
        with ThreadPoolExecutor(1) as thread:  # the thread ends with this block
            first = thread.submit(run_jobs, executor, _tiny(2, external(py("sum")))).result()
        assert [o.answer for o in first.values()] == ["1\n", "2\n"]
        [worker] = executor._workers
        time.sleep(0.5)  # (the kill, when it came, came at once)
        assert alive(worker.process.pid)
        again = run_jobs(executor, _tiny(2, external(py("sum"))))
        assert [o.answer for o in again.values()] == ["1\n", "2\n"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")
def test_a_pools_workers_take_the_environment_of_the_process_now_not_when_the_first_started(
        monkeypatch, outside_tmp):
    """Workers are forked from one worker server, started with this process's first pool. A data
    folder hidden after that (a later run of a long-lived process) is hidden from the programs
    of the next pool's workers all the same: a worker takes the environment the pool's process
    has when it starts the worker, not the one the server was started with."""
    from pipeline.programs import contained

    monkeypatch.delenv(contained.HIDE_ENV, raising=False)
    data = outside_tmp / "data"
    (data / "cases").mkdir(parents=True)
    secret = data / "cases" / "secret.txt"
    secret.write_text("private\n")
    request = json.dumps({"paths": [str(secret)], "port": 1}) + "\n"
    looks = jobs_of([(external(py("look_around"), sandbox=True), request)])
    with LocalPoolExecutor(1) as first:
        [before] = run_jobs(first, looks).values()
    assert json.loads(before.answer)["paths"][str(secret)]["readable"] is True
    with contained.settings_kept():
        contained.hide(data)
        with LocalPoolExecutor(1) as second:
            [after] = run_jobs(second, looks).values()
    assert after.verdict is None, after
    assert json.loads(after.answer)["paths"][str(secret)] == {"exists": False, "readable": False}


def test_what_a_runs_workers_compute_counts_in_the_cpu_time_of_its_children(
        tmp_path, toy, monkeypatch):
    """A run's workers are forked by its worker server, not by the command itself. The command
    waits for the server at its end, so the CPU time its workers spent counts as the command's
    children's, as `time` and a bench's `wait4` read it."""
    monkeypatch.setenv("TOY_BUSY_MS", "300")  # the `busy` stage burns 0.3 s of CPU a case
    data = tmp_path / "data"
    corpus(data, {f"a/{i}.in": (f"{i} 1\n", None) for i in range(4)})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run_cli(data, "run", "--problem", "toy", "--solver", "busy", "--jobs", "2")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert used >= 4 * 0.3, f"{used:.2f} s of CPU counted"


def test_what_a_runs_contained_programs_compute_counts_in_the_cpu_time_of_its_children(
        tmp_path, toy):
    """A worker reaps the launcher of each program it ran as it starts the next one, and at
    its end waits for the last ones: the CPU time of every program counts as the command's
    children's too (each worker's last program, here its only one, used to count nowhere)."""
    data = tmp_path / "data"
    corpus(data, {f"a/{i}.in": (f"{i} 1\n", None) for i in range(2)})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run_cli(data, "run", "--problem", "toy", "--jobs", "2",
                   "--external", f"burn={command(py('busy_then_sum', '1.0'))}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert used >= 2 * 1.0, f"{used:.2f} s of CPU counted"


# -- a pool let grow while the cores sit idle ----------------------------------------------------

def test_a_pool_grows_only_for_programs_and_only_while_its_workers_want_no_core():
    from pipeline.run.executors import may_grow

    # one worker busy wanting a tenth of a core (its program sleeps), the cores idle: a batch
    # starts beside it
    assert may_grow(0.1, busy=1, size=1, grow_to=3, next_kind="submission", idle_cores=0.9)
    assert may_grow(1.4, busy=2, size=1, grow_to=3, next_kind="external", idle_cores=0.5)
    # not for built-in stages (they compute in the worker), nor past grow_to, nor while the
    # busy workers compute or wait for a core
    assert not may_grow(0.1, busy=1, size=1, grow_to=3, next_kind="stage", idle_cores=0.9)
    assert not may_grow(0.1, busy=3, size=1, grow_to=3, next_kind="submission",
                        idle_cores=0.9)
    assert not may_grow(0.8, busy=1, size=1, grow_to=3, next_kind="submission",
                        idle_cores=0.9)
    assert not may_grow(None, busy=1, size=1, grow_to=3, next_kind="submission",
                        idle_cores=0.9)
    # nor while the machine's cores are busy (with the pool's programs, whose waits for a
    # core are undercounted once they end, or with other work): nothing would run sooner
    assert not may_grow(0.1, busy=1, size=1, grow_to=3, next_kind="submission",
                        idle_cores=0.3)
    assert not may_grow(0.1, busy=1, size=1, grow_to=3, next_kind="submission",
                        idle_cores=None)
    # below its size a pool starts batches anyway (that is not growing)
    assert not may_grow(0.0, busy=0, size=1, grow_to=3, next_kind="submission",
                        idle_cores=0.9)


def test_a_grown_pool_keeps_its_batches_running_until_the_cores_are_busy():
    """Grown, a pool follows each batch that ends with another (the programs that left the
    cores idle, sleeping or waiting on each other, do so again) until a look finds the cores
    idle less than BUSY_TO_SHRINK on average; then it runs one batch fewer."""
    from pipeline.run.executors import BUSY_TO_SHRINK, keeps_growing

    assert keeps_growing(0.9) and keeps_growing(BUSY_TO_SHRINK)
    assert not keeps_growing(0.1) and not keeps_growing(0.0)
    assert keeps_growing(None)  # not known (the first look, or /proc/stat unreadable)


def test_the_machines_idle_cores_are_read_between_two_looks():
    """The first look gives no figure; the next, the cores idle on average since, between
    none and all of them."""
    from pipeline.run.executors import idle_cores_since

    first, reading = idle_cores_since(None)
    assert first is None
    time.sleep(0.3)
    idle, _ = idle_cores_since(reading)
    assert idle is not None and 0.0 <= idle <= (os.cpu_count() or 1) * 1.1


def test_a_grown_pool_starts_a_new_worker_only_for_work_worth_its_start():
    """A new worker costs a Python start and its imports (some 0.3 s of a core): the pool
    starts one only while the jobs left, at the average time of those done, are at least
    NEW_WORKER_WORK_S per batch running; an idle worker it has is used regardless."""
    from pipeline.run.executors import NEW_WORKER_WORK_S, worth_a_new_worker

    # 2 jobs left of 50 ms each (the end of a small package's run): not worth it
    assert not worth_a_new_worker(pending_jobs=2, done_jobs=10, busy_s=0.5, busy=2)
    # 60 jobs of 0.5 s each, shared by 3 batches: 10 s each, worth it
    assert worth_a_new_worker(pending_jobs=60, done_jobs=4, busy_s=2.0, busy=2)
    # the bound itself: the work left per batch is exactly NEW_WORKER_WORK_S
    assert worth_a_new_worker(pending_jobs=3, done_jobs=1, busy_s=NEW_WORKER_WORK_S, busy=2)
    # nothing done yet: only when at least two jobs per batch running are left
    assert not worth_a_new_worker(pending_jobs=3, done_jobs=0, busy_s=0.0, busy=1)
    assert worth_a_new_worker(pending_jobs=4, done_jobs=0, busy_s=0.0, busy=1)


def test_a_pool_growing_at_the_end_of_a_small_run_starts_no_worker():
    """A pool of one worker let grow, its program sleeping (the cores idle): with only a
    few short jobs left it starts no second process, and still answers every job."""
    sleepy = external((sys.executable, "-c", "import time\ntime.sleep(0.4)\nprint('slept')"),
                      name="sleepy")
    summing = external(py("sum"), name="sum")
    with LocalPoolExecutor(1, grow_to=3) as executor:
        # external programs travel 4 to a batch: one batch runs, one of 2 jobs is left
        outcomes = run_jobs(executor, jobs_of([(sleepy, "1 2\n"), (summing, "3 4\n")] * 3))
        assert len(executor._workers) == 1
    assert [outcomes[i].verdict for i in range(6)] == [None] * 6
    assert [outcomes[i].answer for i in range(1, 6, 2)] == ["7\n"] * 3


def test_what_workers_want_is_their_cpu_time_and_their_waits_for_a_core():
    """A process tree computing wants about a core; one sleeping wants none."""
    from pipeline.run.executors import demand_since

    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.3)
        first, reading = demand_since([busy.pid], None)
        assert first is None
        time.sleep(0.5)
        computing, _ = demand_since([busy.pid], reading)
        _, reading = demand_since([idle.pid], None)
        time.sleep(0.5)
        sleeping, _ = demand_since([idle.pid], reading)
    finally:
        for process in (busy, idle):
            process.kill()
            process.wait()
    assert computing > 0.7 and sleeping < 0.1


def test_a_workers_tree_is_read_from_its_pids_cgroup_as_from_all_of_proc():
    """A process that made its pids cgroup (as a worker does before its first program) is
    measured from that cgroup's processes: the same CPU time and processes as a walk of every
    process's parent finds, however many other processes the machine runs."""
    from pipeline.programs import contained
    from pipeline.programs.processes import proc_stats

    worker = ("import subprocess, sys, time\n"
              "from pipeline.programs import contained\n"
              "if contained.process_cgroup() is None: print('none', flush=True); sys.exit()\n"
              "child = subprocess.Popen([sys.executable, '-c', "
              "'import time\\nend = time.process_time() + 0.2\\n"
              "while time.process_time() < end: pass\\nprint(flush=True)\\ntime.sleep(60)'],"
              " stdout=subprocess.PIPE)\n"
              "child.stdout.readline()\n"
              "print(child.pid, flush=True)\n"
              "time.sleep(60)\n")
    root = subprocess.Popen([sys.executable, "-c", worker], stdout=subprocess.PIPE, text=True)
    said: list[str] = []
    try:
        said = root.stdout.readline().split()
        if said == ["none"]:
            pytest.skip("no pids cgroup here")
        child = int(said[0])
        members = contained._cgroup_members(root.pid)
        walked = contained.descendants(root.pid, proc_stats())
        assert members is not None and sorted(members) == sorted(walked)
        assert child in members
        (cpu, _), = contained.trees_times([root.pid]).values()
        assert cpu == contained._times(root.pid, proc_stats())[0]
        assert cpu >= 0.15  # the child's 0.2 s of computing (it is still running) counted
    finally:
        root.kill()
        root.wait()
        if said and said != ["none"]:
            os.kill(int(said[0]), signal.SIGKILL)
    assert contained._cgroup_members(root.pid) is None  # gone: nothing read from it


def test_a_pool_let_grow_gives_every_job_one_outcome(tmp_path):
    """Sleeping programs leave the cores idle: the pool may run more of their batches at once
    than it has workers; whether it does depends on the machine's load, what it must do
    either way is answer every job once, rightly."""
    sleepy = external((sys.executable, "-c", "import time\ntime.sleep(0.3)\nprint('slept')"),
                      name="sleepy")
    summing = external(py("sum"), name="sum")
    with LocalPoolExecutor(1, grow_to=3) as executor:
        outcomes = run_jobs(executor, jobs_of([(sleepy, "1 2\n"), (summing, "3 4\n")] * 8))
        assert len(executor._workers) <= 3
    assert [outcomes[i].verdict for i in range(16)] == [None] * 16
    assert [outcomes[i].answer for i in range(1, 16, 2)] == ["7\n"] * 8


# -- one queue for several callers (a contest's problems, `run.queue`) ---------------------------

def test_a_contest_queue_runs_each_problems_solver_one_at_a_time_by_problem(tmp_path):
    """Two problems' runs on one queue, each with a solver named `prog` run one at a time
    (`check_turns_by_problem`)."""
    check_turns_by_problem(LocalPoolExecutor(2), tmp_path)


def test_a_contest_queue_sends_a_solvers_next_case_once_its_run_has_taken_in_the_last(tmp_path):
    """A solver run one case at a time on a contest's queue: its next case is decided (`skip`,
    as --fail-fast decides) only after its run has done with the case before, however long that
    takes; so a failure stops it, and the cases after it are not run."""
    from pipeline.run.queue import ContestQueue

    ran = tmp_path / "ran"
    spec = external(("/bin/sh", "-c", f"echo x >> {ran}; echo 1"))
    failed: list[int] = []
    queue = ContestQueue(LocalPoolExecutor(2), {"toy": 0})
    lane = queue.lane("toy")
    got = []
    try:
        for job, outcome in lane.run(jobs_of([(spec, "")] * 4), one_at_a_time=frozenset({"prog"}),
                                     skip=lambda job: "failed before" if failed else None):
            got.append((job.key, outcome.verdict, outcome.error))
            time.sleep(0.5)  # the run takes its time over the case, then finds it failed
            failed.append(job.key)
    finally:
        queue.close()
    assert got == [(0, None, None)] + [(key, Verdict.SKIP, "failed before") for key in (1, 2, 3)]
    assert ran.read_text() == "x\n"  # the program ran on the first case only
