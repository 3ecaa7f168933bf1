"""The log-log fit and the SVG chart drawn from it."""

from __future__ import annotations

import re

import polars as pl
import pytest

from pipeline.report.growth import Series, fit_loglog, growth_series, per_size
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
        "solver": ["fast"] * 5 + ["brute"] * 5,
        "size": [0, 10, 100, 1000, 10000, 10, 100, 1000, 10000, 100000],
        "wall_ms": [0.5, 1.0, 10.0, 100.0, 1000.0, 1.0, 100.0, 10000.0, 1e6, None],
        "verdict": ["AC"] * 9 + ["SKIP"],
    })
    fast, brute = growth_series(results)
    assert fast.solver == "fast" and len(fast.points) == 4
    assert fast.label == "fast: n^1.00"
    assert brute.label == "brute: n^2.00" and len(brute.points) == 4
    lonely = growth_series(results.filter(pl.col("size") == 10))
    assert lonely[0].label == "fast: (no fit)" and lonely[0].no_fit == "one size only"
    two = growth_series(results.filter(pl.col("size") <= 1000))   # 100 and 1000 above 5x
    assert two[0].fit is None and two[0].no_fit == "2 sizes above 5x fixed cost"


def test_cases_of_one_size_are_summarised_by_median_and_90th_percentile():
    points = [(100.0, float(ms)) for ms in range(1, 11)] + [(1000.0, 50.0), (1001.0, 70.0)]
    small, big = per_size(points)
    assert (small.size, small.median_ms, small.cases) == (100.0, 5.5, 10)
    assert small.p90_ms == pytest.approx(9.1)
    assert (big.size, big.median_ms, big.cases) == (1000.5, 60.0, 2)  # one twentieth of a decade


def test_the_fit_leaves_out_sizes_where_the_fixed_cost_dominates():
    """t(n) = 2 ms + 0.001 n^2: below n of about 100 the time is the constant; a fit over every
    size would read n^0.3 (the issue's brute n^0.33), over the sizes above 5x the fixed cost it
    reads the real exponent."""
    sizes = [1, 3, 10, 30, 100, 300, 1000, 3000]
    times = [2 + 0.001 * n ** 2 for n in sizes]
    everything = fit_loglog(sizes, times)
    assert everything.exponent < 1.2
    results = pl.DataFrame({"solver": ["brute"] * len(sizes), "size": sizes,
                            "wall_ms": times, "verdict": ["AC"] * len(sizes)})
    [brute] = growth_series(results)
    assert brute.fixed_ms == pytest.approx(2.001)
    assert brute.fit.exponent == pytest.approx(2.0, abs=0.1)
    assert (brute.fit.min_size, brute.fit.max_size) == (pytest.approx(100), pytest.approx(3000))
    flat = growth_series(results.with_columns(pl.lit(0.05).alias("wall_ms")))[0]
    assert flat.fit is None and flat.no_fit == "0 sizes above 5x fixed cost"


def test_cases_without_a_timing_are_kept_apart():
    results = pl.DataFrame({
        "solver": ["fast"] * 6,
        "size": [10, 100, 1000, 10000, 5000, 7000],
        "wall_ms": [0.1, 1.0, 10.0, 100.0, 2000.0, 3.0],
        "verdict": ["AC", "WA", "AC", "AC", "TLE", "RE"],
    })
    [fast] = growth_series(results)
    assert [size for size, _ in fast.points] == [10, 100, 1000, 10000]   # WA is a timing
    assert fast.untimed == ((5000.0, "TLE"), (7000.0, "RE"))
    assert fast.label == "fast: n^1.00"                         # the 2 s kill is not a time


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
    assert [format_time(v) for v in (677.383, 3966.15, 0.0123)] == ["677 ms", "3.97 s", "12.3 µs"]


def test_solvers_keep_their_colour_unless_two_would_share_one():
    preferred = {"brute": PALETTE[0], "fast": PALETTE[2], "cpp": PALETTE[0]}
    assert series_colors(["fast"], preferred) == [PALETTE[2]]
    assert series_colors(["brute", "fast"], preferred) == [PALETTE[0], PALETTE[2]]
    assert series_colors(["brute", "cpp"], preferred) == [PALETTE[0], PALETTE[1]]
    assert series_colors(["x", "fast"], preferred) == [PALETTE[0], PALETTE[1]]
    svg = loglog_chart([Series("fast", ((1, 1.0), (10, 10.0)), None)], "p", "n",
                       colors=preferred)
    assert f'data-solver="fast" fill="{PALETTE[2]}"' in svg


def test_chart_draws_medians_percentiles_faint_raw_points_and_untimed_cases_apart():
    sizes = [10, 10, 10, 100, 100, 100, 1000, 1000, 1000, 10000, 10000, 10000]
    times = [0.1, 0.12, 0.5, 1.0, 1.1, 3.0, 10.0, 11.0, 30.0, 100.0, 110.0, 300.0]
    results = pl.DataFrame({
        "solver": ["fast"] * 14, "size": sizes + [5000, 9000],
        "wall_ms": times + [2000.0, None], "verdict": ["AC"] * 12 + ["TLE", "RE"]})
    [fast] = growth_series(results)
    svg = loglog_chart([fast], "p", "n", chart_id="c")
    assert svg.count('class="raw"') == 12 and svg.count('fill-opacity="0.18"') == 12
    assert svg.count('class="median"') == 4 and svg.count('class="p90"') == 4
    assert 'class="untimed"' in svg and svg.count("l6,6 m0,-6 l-6,6") == 2
    assert "x RE 1, TLE 1 (no timing)" in svg
    assert "fit over n = 100..10k, r² 1.00" in svg   # 10 is within 5x of the fixed cost
    # no circle of a timing lies in the band of the untimed cases (above the plot's top)
    plot_top = float(re.search(r'class="plot-area" x="\d+" y="(\d+)"', svg).group(1))
    assert all(float(cy) >= plot_top for cy in re.findall(r'<circle[^>]* cy="([\d.]+)"', svg))
    # the fit line spans exactly the fitted sizes: from the median of 100 to that of 10k
    medians = [float(x) for x in re.findall(r'class="median" cx="([\d.]+)"', svg)]
    fit = re.search(r'class="fit" d="M([\d.]+),[\d.]+ L([\d.]+),', svg)
    assert (float(fit.group(1)), float(fit.group(2))) == (pytest.approx(medians[1], abs=0.11),
                                                          pytest.approx(medians[3], abs=0.11))
    assert 'width="900"' in svg


def test_no_exponent_where_log_log_is_no_straight_line_or_too_short():
    """A corpus whose times depend on more than the size measure (the issue's bipartitebattle
    `sg-binomial` read n^-0.74): no exponent is printed, and the legend says why."""
    sizes = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    zigzag = [0.01, 5.0, 0.2, 9.0, 0.3, 2.0, 8.0, 0.1, 7.0, 0.4]
    results = pl.DataFrame({"solver": ["sg"] * 10, "size": sizes, "wall_ms": zigzag,
                            "verdict": ["AC"] * 10})
    [sg] = growth_series(results)
    assert sg.fit is None and sg.no_fit.startswith("no power law (r² 0.")
    assert sg.label == "sg: (no fit)" and ">no power law (r² 0." in loglog_chart([sg], "p", "n")
    short = pl.DataFrame({"solver": ["q"] * 5, "size": [100, 150, 200, 300, 400],
                          "wall_ms": [1.0, 20.0, 40.0, 90.0, 160.0], "verdict": ["AC"] * 5})
    [q] = growth_series(short)
    assert q.fit is None and q.no_fit == "span < 10x above 5x fixed cost"
    sizes = [1, 10, 100, 1000]
    good = fit_loglog(sizes, [0.01 * n * (1.1 if i % 2 else 0.9) for i, n in enumerate(sizes)])
    assert 0.99 < good.r_squared < 1.0
