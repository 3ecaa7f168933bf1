"""The `editorial` stage of cf103119g (known wrong): the seed's incremental buckets of losing
positions, which assume positions only ever go from losing to winning."""

from __future__ import annotations

from pipeline.problems.cf103119g.case import _COMPATIBLE, Case


def _editorial(case: Case) -> tuple[bool, ...]:
    """The seed's buckets of losing positions, assuming losing -> winning only."""
    winning: list[bool] = []
    buckets: list[list[int]] = [[] for _ in range(256)]

    def append(x: int) -> None:
        i = len(winning)
        winning.append(False)  # nothing after it yet
        for u in _COMPATIBLE[x]:
            bucket = buckets[u]
            for j in bucket:  # every earlier losing compatible position can move to i
                winning[j] = True
            bucket.clear()
        buckets[x].append(i)

    for v in case.values:
        append(v)
    answers = []
    for op, k in case.ops:
        if op == 1:
            append(k)
        else:
            answers.append(winning[k - 1])
    return tuple(answers)
