"""The people per distinct cell, and which stand at odd distance from the corner (the `fast`
stage's core, used by the sizes and the recipes too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported by the functions (not by `pipeline solve`)
    import numpy as np

_MIX1 = 0x9E3779B97F4A7C15
_MIX2 = 0xC2B2AE3D27D4EB4F


def _odd_mask(xs: np.ndarray, ys: np.ndarray, m: int) -> np.ndarray:
    """People at odd distance (X - 1) + (M - Y) from the corner."""
    return ((xs ^ ys) & 1) != ((m + 1) & 1)


def _run_lengths(same: np.ndarray) -> np.ndarray:
    """The lengths of the runs of a sorted sequence whose neighbours are `same` or not."""
    import numpy as np

    edges = np.flatnonzero(~same) + 1
    return np.diff(np.concatenate(([0], edges, [same.shape[0] + 1])))


def _cell_counts(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Number of people on each distinct cell (in no particular order)."""
    import numpy as np

    if xs.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    x_low, y_low = int(xs.min()), int(ys.min())
    if int(xs.max()) - x_low < 2**31 and int(ys.max()) - y_low < 2**31:
        keys = ((xs - x_low) << 32) | (ys - y_low)  # exact: distinct cells, distinct keys
        keys.sort()
        return _run_lengths(keys[1:] == keys[:-1])
    ux, uy = xs.view(np.uint64), ys.view(np.uint64)
    with np.errstate(over="ignore"):
        h = ux * np.uint64(_MIX1)
        h ^= h >> np.uint64(29)
        h += uy
        h *= np.uint64(_MIX2)
        h ^= h >> np.uint64(32)
    order = np.argsort(h)
    h, sx, sy = h[order], xs[order], ys[order]
    same = h[1:] == h[:-1]
    if np.any(same & ((sx[1:] != sx[:-1]) | (sy[1:] != sy[:-1]))):
        order = np.lexsort((ys, xs))  # a hash collision: sort exactly instead
        sx, sy = xs[order], ys[order]
        same = (sx[1:] == sx[:-1]) & (sy[1:] == sy[:-1])
    return _run_lengths(same)
