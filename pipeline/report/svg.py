"""Log-log scatter charts as inline SVG text: no scripts, no fonts, nothing to download.

`loglog_chart` draws each series as circles plus its fitted line, with decade grid lines and a
legend on the right that prints each fitted growth exponent (`fast: n^1.04`). Points are placed
on whole pixels and drawn once per pixel, so a series of thousands of cases stays small.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from pipeline.report.growth import Series

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")

WIDTH, HEIGHT = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 200, 30, 50


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def series_colors(solvers: Sequence[str], preferred: dict[str, str] | None = None) -> list[str]:
    """A colour per solver: its `preferred` one (so a solver keeps its colour from chart to
    chart) unless two solvers of this chart would share it, else the palette in order."""
    chosen = [(preferred or {}).get(s) for s in solvers]
    if None in chosen or len(set(chosen)) < len(chosen):
        return [color(i) for i in range(len(solvers))]
    return [c for c in chosen if c is not None]


def _range(values: Sequence[float]) -> tuple[float, float]:
    """log10 bounds padded to a non-empty range."""
    lo, hi = math.log10(min(values)), math.log10(max(values))
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.04
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float) -> list[float]:
    """Values (not logs) for grid lines: decades, plus 2 and 5 when the span is short."""
    steps = (1,) if hi - lo > 3 else (1, 2, 5)
    ticks = []
    for decade in range(math.floor(lo), math.ceil(hi) + 1):
        for step in steps:
            value = step * 10.0 ** decade
            if lo <= math.log10(value) <= hi:
                ticks.append(value)
    return ticks


def format_size(value: float) -> str:
    for bound, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= bound:
            return f"{value / bound:g}{suffix}"
    return f"{value:g}"


def format_time(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:g} s"
    if ms >= 1:
        return f"{ms:g} ms"
    return f"{ms * 1000:g} µs"


def loglog_chart(series: Sequence[Series], title: str, x_label: str,
                 y_label: str = "wall time (median over repeats)", chart_id: str = "chart",
                 colors: dict[str, str] | None = None) -> str:
    """An `<svg>` element: every series' points and fitted line on log-log axes. `colors`
    maps solver names to the colours they should keep across charts."""
    fills = series_colors([s.solver for s in series], colors)
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    out = [f'<svg class="chart" id="{escape(chart_id)}" '
           f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           f'aria-label="{escape(title)}">',
           f'<text x="{LEFT}" y="18" class="chart-title">{escape(title)}</text>',
           f'<rect class="plot-area" x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" '
           f'fill="#fbfcfe" stroke="#c9ced6"/>']
    if not xs:
        out.append(f'<text x="{LEFT + plot_w / 2}" y="{TOP + plot_h / 2}" text-anchor="middle" '
                   f'class="axis">no timed cases with size &gt; 0</text></svg>')
        return "\n".join(out)
    x_lo, x_hi = _range(xs)
    y_lo, y_hi = _range(ys)

    def px(x: float) -> float:
        return LEFT + (math.log10(x) - x_lo) / (x_hi - x_lo) * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - (math.log10(y) - y_lo) / (y_hi - y_lo) * plot_h

    for value in _ticks(x_lo, x_hi):
        x = px(value)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" '
                   f'y2="{TOP + plot_h}" stroke="#e3e6eb"/>')
        out.append(f'<text class="axis" x="{x:.1f}" y="{TOP + plot_h + 16}" '
                   f'text-anchor="middle">{escape(format_size(value))}</text>')
    for value in _ticks(y_lo, y_hi):
        y = py(value)
        out.append(f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" '
                   f'y2="{y:.1f}" stroke="#e3e6eb"/>')
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{escape(format_time(value))}</text>')
    out.append(f'<text class="axis-label" x="{LEFT + plot_w / 2}" y="{HEIGHT - 12}" '
               f'text-anchor="middle">{escape(x_label)} (log scale)</text>')
    out.append(f'<text class="axis-label" transform="translate(16 {TOP + plot_h / 2}) '
               f'rotate(-90)" text-anchor="middle">{escape(y_label)} (log)</text>')
    clip = f"{chart_id}-clip"
    out.append(f'<clipPath id="{escape(clip)}"><rect x="{LEFT}" y="{TOP}" width="{plot_w}" '
               f'height="{plot_h}"/></clipPath>')
    for s, fill in zip(series, fills):
        out.append(f'<g class="series" data-solver="{escape(s.solver)}" fill="{fill}" '
                   f'clip-path="url(#{escape(clip)})">')
        seen: set[tuple[int, int]] = set()
        for x, y in s.points:
            key = (round(px(x)), round(py(y)))
            if key not in seen:
                seen.add(key)
                out.append(f'<circle cx="{key[0]}" cy="{key[1]}" r="2.6"/>')
        if s.fit is not None:
            x0, x1 = s.fit.min_size, s.fit.max_size
            out.append(f'<path class="fit" d="M{px(x0):.1f},{py(s.fit.predict_ms(x0)):.1f} '
                       f'L{px(x1):.1f},{py(s.fit.predict_ms(x1)):.1f}" stroke="{fill}" '
                       f'stroke-width="2" fill="none"><title>{escape(s.label)}</title></path>')
        out.append("</g>")
    legend_x = LEFT + plot_w + 16
    for index, (s, fill) in enumerate(zip(series, fills)):
        y = TOP + 12 + index * 20
        out.append(f'<g class="legend-entry"><rect x="{legend_x}" y="{y - 9}" width="14" '
                   f'height="10" fill="{fill}"/><text class="legend" x="{legend_x + 20}" '
                   f'y="{y}">{escape(s.label)}</text></g>')
    out.append("</svg>")
    return "\n".join(out)
