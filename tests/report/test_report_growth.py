"""The log-log fit and the SVG chart drawn from it."""

from __future__ import annotations

import re

import polars as pl
import pytest

from pipeline.report.growth import Series, fit_loglog, growth_series
from pipeline.report.svg import PALETTE, format_size, format_time, loglog_chart, series_colors


def test_fit_recovers_power_laws():
    sizes = [1, 3, 10, 30, 100, 300, 1000]
    cubic = fit_loglog(sizes, [0.002 * n ** 3 for n in sizes])
    assert cubic.exponent == pytest.approx(3.0)
    assert cubic.predict_ms(10) == pytest.approx(2.0)
    assert (cubic.points, cubic.min_size, cubic.max_size) == (7, pytest.approx(1),
                                                               pytest.approx(1000))
    flat = fit_loglog(sizes, [5.0] * len(sizes))
    assert flat.exponent == pytest.approx(0.0, abs=1e-12)


def test_fit_needs_two_positive_distinct_sizes():
    assert fit_loglog([10, 10, 10], [1.0, 2.0, 3.0]) is None
    assert fit_loglog([0, 10], [1.0, 2.0]) is None                # size 0 is left out
    assert fit_loglog([5, 10, 20], [0.0, 2.0, 4.0]).points == 2   # time 0 is left out
    assert fit_loglog([], []) is None


def test_series_leave_out_skips_and_empty_sizes():
    results = pl.DataFrame({
        "solver": ["fast"] * 4 + ["brute"] * 3,
        "size": [0, 10, 100, 1000, 10, 100, 1000],
        "wall_ms": [0.5, 1.0, 10.0, 100.0, 1.0, 100.0, None],
        "verdict": ["AC", "AC", "AC", "AC", "AC", "AC", "SKIP"],
    })
    fast, brute = growth_series(results)
    assert fast.solver == "fast" and len(fast.points) == 3
    assert fast.label == "fast: n^1.00"
    assert brute.label == "brute: n^2.00" and len(brute.points) == 2
    lonely = growth_series(results.filter(pl.col("size") == 10))
    assert lonely[0].label == "fast: (no fit)"


def test_chart_has_points_fit_lines_and_exponents_in_the_legend():
    sizes = [10, 100, 1000, 10000]
    series = [Series("fast", tuple((n, 0.01 * n) for n in sizes), fit_loglog(
        sizes, [0.01 * n for n in sizes])),
        Series("brute", tuple((n, 0.001 * n ** 2) for n in sizes[:2]), fit_loglog(
            sizes[:2], [0.001 * n ** 2 for n in sizes[:2]]))]
    svg = loglog_chart(series, "arc087e", "total length", chart_id="c1")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<circle") == 6
    assert len(re.findall(r'<path class="fit" d="M[\d.]+,[\d.]+ L[\d.]+,[\d.]+"', svg)) == 2
    assert "fast: n^1.00" in svg and "brute: n^2.00" in svg
    assert "total length (log scale)" in svg
    assert "<script" not in svg and "http" not in svg


def test_points_on_the_same_pixel_are_drawn_once_and_empty_charts_are_fine():
    many = Series("fast", tuple((100, 5.0) for _ in range(5000)) + ((1000, 50.0),), None)
    svg = loglog_chart([many], "p", "n")
    assert svg.count("<circle") == 2
    assert "no timed cases" in loglog_chart([Series("fast", (), None)], "p", "n")


def test_tick_labels():
    assert [format_size(v) for v in (1, 20, 1000, 5e5, 3e6)] == ["1", "20", "1k", "500k", "3M"]
    assert [format_time(v) for v in (0.01, 1, 50, 2000)] == ["10 µs", "1 ms", "50 ms", "2 s"]


def test_solvers_keep_their_colour_unless_two_would_share_one():
    preferred = {"brute": PALETTE[0], "fast": PALETTE[2], "cpp": PALETTE[0]}
    assert series_colors(["fast"], preferred) == [PALETTE[2]]
    assert series_colors(["brute", "fast"], preferred) == [PALETTE[0], PALETTE[2]]
    assert series_colors(["brute", "cpp"], preferred) == [PALETTE[0], PALETTE[1]]
    assert series_colors(["x", "fast"], preferred) == [PALETTE[0], PALETTE[1]]
    svg = loglog_chart([Series("fast", ((1, 1.0), (10, 10.0)), None)], "p", "n",
                       colors=preferred)
    assert f'data-solver="fast" fill="{PALETTE[2]}"' in svg
