"""The `fast` stage of cf103119g: the lemma (only last occurrences can lose) run by a compiled
kernel, native (native.c) where available, else the numba one below; both compute the same.
"""

from __future__ import annotations

import itertools

from pipeline.problems.cf103119g import native
from pipeline.problems.cf103119g.case import Case

_KERNEL = None


def _kernel():
    """The numba kernel (compiled, or loaded from numba's cache, on first use)."""
    global _KERNEL
    if _KERNEL is None:
        import numpy as np
        from numba import njit

        @njit(cache=True)
        def run(values, flat, queries):
            n = values.shape[0]
            m = flat.shape[0] // 2
            seq = np.empty(n + m, np.int64)
            last = np.full(256, -1, np.int64)
            # Values present, linked in decreasing order of last occurrence; 256 = head.
            nxt = np.full(257, -1, np.int64)
            prv = np.full(257, -1, np.int64)
            nxt[256] = 256
            prv[256] = 256
            losing = np.zeros(256, np.bool_)
            out = np.empty(queries, np.bool_)
            length = 0
            dirty = True
            q = 0
            for t in range(n + m):
                if t < n:
                    op = 1
                    x = values[t]
                else:
                    op = flat[2 * (t - n)]
                    x = flat[2 * (t - n) + 1]
                if op == 1:
                    if last[x] >= 0:  # unlink
                        nxt[prv[x]] = nxt[x]
                        prv[nxt[x]] = prv[x]
                    first = nxt[256]  # link at the head (the rightmost last occurrence)
                    nxt[x] = first
                    prv[x] = 256
                    prv[first] = x
                    nxt[256] = x
                    last[x] = length
                    seq[length] = x
                    length += 1
                    dirty = True
                else:
                    i = x - 1
                    v = seq[i]
                    if last[v] != i:
                        out[q] = True  # an equal value later: winning by the lemma
                    else:
                        if dirty:
                            u = nxt[256]
                            while u != 256:
                                lu = last[u]
                                lose = True
                                for b in range(8):
                                    w = u ^ (1 << b)
                                    if last[w] > lu and losing[w]:
                                        lose = False
                                        break
                                losing[u] = lose
                                u = nxt[u]
                            dirty = False
                        out[q] = not losing[v]
                    q += 1
            return out

        _KERNEL = run
    return _KERNEL


def _fast(case: Case) -> tuple[bool, ...]:
    if native.functions() is not None:
        packed = case.packed if case.packed is not None else native.pack(case.values, case.ops)
        return native.solve(packed)
    return jit_fast(case)


def jit_fast(case: Case) -> tuple[bool, ...]:
    """The answers from the numba kernel (the fallback; tests compare it with native code)."""
    import numpy as np

    run = _kernel()
    values = np.array(case.values, dtype=np.int64)
    flat = np.fromiter(itertools.chain.from_iterable(case.ops), dtype=np.int64,
                       count=2 * case.m)
    queries = int(np.count_nonzero(flat[0::2] == 2))
    return tuple(run(values, flat, queries).tolist())
