"""Charts as inline SVG text (no scripts, no fonts, nothing to download): `loglog_chart` of time
against size per solver, `history_chart` of the nightly history. Raw points are drawn once per
pixel, so thousands of cases stay small.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from html import escape

from pipeline.report.growth import Series
from pipeline.report.history import NightTotals, drift

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")

WIDTH, HEIGHT = 900, 480
LEFT, RIGHT, TOP, BOTTOM = 72, 260, 52, 50
PLOT_W = WIDTH - LEFT - RIGHT
UNTIMED_BAND = 18           # the band above the plot where cases without a timing go
PLOT_BACKGROUND = "#fbfcfe"
BAND_BACKGROUND = "#f6f1f1"
HISTORY_BACKGROUND = "#fcfbf6"
HISTORY_PLOT_HEIGHT = 220
FAILURE_ROW = 16


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
    values = (step * 10.0 ** decade for decade in range(math.floor(lo), math.ceil(hi) + 1)
              for step in steps)
    return [value for value in values if lo <= math.log10(value) <= hi]


def format_size(value: float) -> str:
    for bound, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= bound:
            return f"{value / bound:.3g}{suffix}"
    return f"{value:.3g}"


def format_time(ms: float) -> str:
    """Three significant digits at most: `2 s`, `677 ms`, `12.5 ms`, `40 µs`."""
    if ms >= 1000:
        return f"{ms / 1000:.3g} s"
    return f"{ms:.3g} ms" if ms >= 1 else f"{ms * 1000:.3g} µs"


def _fit_note(s: Series) -> str:
    if s.fit is not None:
        return (f"fit over n = {format_size(s.fit.min_size)}..{format_size(s.fit.max_size)}, "
                f"r² {s.fit.r_squared:.2f}")
    return s.no_fit or "no fit"


def _frame(kind: str, chart_id: str, height: int, title: str) -> list[str]:
    """The `<svg>` opening tag and the chart's title."""
    return [f'<svg class="{kind}" id="{escape(chart_id)}" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">',
            f'<text x="{LEFT}" y="18" class="chart-title">{escape(title)}</text>']


def _empty(out: list[str], middle: float, message: str) -> str:
    """The chart closed with only `message` in the middle of its plot."""
    out.append(f'<text x="{LEFT + PLOT_W / 2}" y="{middle}" text-anchor="middle" '
               f'class="axis">{message}</text></svg>')
    return "\n".join(out)


def _y_scale(lo: float, hi: float, top: int, height: int) -> Callable[[float], float]:
    """The pixel row of a time in ms on a log axis over [lo, hi] (log10 bounds)."""
    return lambda ms: top + height - (math.log10(ms) - lo) / (hi - lo) * height


def _y_grid(lo: float, hi: float, py: Callable[[float], float]) -> list[str]:
    """Grid lines and time labels at the ticks of a log time axis."""
    out = []
    for value in _ticks(lo, hi):
        y = py(value)
        out.append(f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" '
                   f'y2="{y:.1f}" stroke="#e3e6eb"/>')
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{escape(format_time(value))}</text>')
    return out


def _legend_entry(y: int, fill: str, label: str, note: str) -> str:
    """A legend entry's colour box, label and note (the caller closes its `<g>`)."""
    x = LEFT + PLOT_W + 16
    return (f'<g class="legend-entry"><rect x="{x}" y="{y - 9}" width="14" height="10" '
            f'fill="{fill}"/><text class="legend" x="{x + 20}" y="{y}">{escape(label)}</text>'
            f'<text class="legend-note" x="{x + 20}" y="{y + 14}">{escape(note)}</text>')


def loglog_chart(series: Sequence[Series], title: str, x_label: str,
                 y_label: str = "wall time (median over repeats)", chart_id: str = "chart",
                 colors: dict[str, str] | None = None) -> str:
    """An `<svg>` element: every series' points, per-size medians and 90th percentiles and
    fitted line on log-log axes, each solver in its colour of `colors`."""
    fills = series_colors([s.solver for s in series], colors)
    xs = [x for s in series for x, _ in s.points] + [x for s in series for x, _ in s.untimed]
    ys = [y for s in series for _, y in s.points] + [p.p90_ms for s in series for p in s.by_size]
    plot_h = HEIGHT - TOP - BOTTOM
    out = [*_frame("chart", chart_id, HEIGHT, title),
           f'<rect class="untimed-band" x="{LEFT}" y="{TOP - UNTIMED_BAND - 4}" '
           f'width="{PLOT_W}" height="{UNTIMED_BAND}" fill="{BAND_BACKGROUND}"/>',
           f'<text class="axis" x="{LEFT - 6}" y="{TOP - 9}" text-anchor="end">no timing</text>',
           f'<rect class="plot-area" x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{plot_h}" '
           f'fill="{PLOT_BACKGROUND}" stroke="#c9ced6"/>']
    if not xs or not ys:
        return _empty(out, TOP + plot_h / 2, "no timed cases with size &gt; 0")
    x_lo, x_hi = _range(xs)
    y_lo, y_hi = _range(ys)
    py = _y_scale(y_lo, y_hi, TOP, plot_h)

    def px(x: float) -> float:
        return LEFT + (math.log10(x) - x_lo) / (x_hi - x_lo) * PLOT_W

    for value in _ticks(x_lo, x_hi):
        x = px(value)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" '
                   f'y2="{TOP + plot_h}" stroke="#e3e6eb"/>')
        out.append(f'<text class="axis" x="{x:.1f}" y="{TOP + plot_h + 16}" '
                   f'text-anchor="middle">{escape(format_size(value))}</text>')
    out.extend(_y_grid(y_lo, y_hi, py))
    out.append(f'<text class="axis-label" x="{LEFT + PLOT_W / 2}" y="{HEIGHT - 12}" '
               f'text-anchor="middle">{escape(x_label)} (log scale)</text>')
    out.append(f'<text class="axis-label" transform="translate(16 {TOP + plot_h / 2}) '
               f'rotate(-90)" text-anchor="middle">{escape(y_label)} (log)</text>')
    clip = f"{chart_id}-clip"
    out.append(f'<clipPath id="{escape(clip)}"><rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" '
               f'height="{plot_h}"/></clipPath>')
    band_y = TOP - UNTIMED_BAND / 2 - 4
    for s, fill in zip(series, fills):
        out.append(f'<g class="series" data-solver="{escape(s.solver)}" fill="{fill}" '
                   f'clip-path="url(#{escape(clip)})">')
        # one circle per pixel: thousands of raw points stay a small chart
        for cx, cy in dict.fromkeys((round(px(x)), round(py(y))) for x, y in s.points):
            out.append(f'<circle class="raw" cx="{cx}" cy="{cy}" r="1.8" fill-opacity="0.18"/>')
        for p in s.by_size:
            x, y, top = px(p.size), py(p.median_ms), py(p.p90_ms)
            if top < y - 0.5:
                out.append(f'<path class="p90" d="M{x:.1f},{y:.1f} V{top:.1f} M{x - 3:.1f},'
                           f'{top:.1f} H{x + 3:.1f}" stroke="{fill}" stroke-width="1.3" '
                           f'fill="none"/>')
            out.append(f'<circle class="median" cx="{x:.1f}" cy="{y:.1f}" r="3.6">'
                       f'<title>{escape(s.solver)} n={format_size(p.size)}: median '
                       f'{escape(format_time(p.median_ms))}, 90th percentile '
                       f'{escape(format_time(p.p90_ms))}, {p.cases} cases</title></circle>')
        if s.fit is not None:
            x0, x1 = s.fit.min_size, s.fit.max_size
            out.append(f'<path class="fit" d="M{px(x0):.1f},{py(s.fit.predict_ms(x0)):.1f} '
                       f'L{px(x1):.1f},{py(s.fit.predict_ms(x1)):.1f}" stroke="{fill}" '
                       f'stroke-width="2" fill="none"><title>{escape(s.label)}, '
                       f'{escape(_fit_note(s))}</title></path>')
        out.append("</g>")
        if s.untimed:
            out.append(f'<g class="untimed" data-solver="{escape(s.solver)}" stroke="{fill}" '
                       'stroke-width="1.6">' + "".join(
                           f'<path d="M{px(x) - 3:.1f},{band_y - 3:.1f} l6,6 m0,-6 l-6,6">'
                           f'<title>{escape(s.solver)} {escape(verdict)} at n='
                           f'{format_size(x)}</title></path>' for x, verdict in s.untimed)
                       + "</g>")
    y = TOP + 4
    for s, fill in zip(series, fills):
        out.append(_legend_entry(y, fill, s.label, _fit_note(s)))
        y += 14
        if s.untimed:
            counts = sorted(Counter(verdict for _, verdict in s.untimed).items())
            note = "x " + ", ".join(f"{v} {n}" for v, n in counts) + " (no timing)"
            out.append(f'<text class="legend-note" x="{LEFT + PLOT_W + 36}" y="{y + 14}">'
                       f'{escape(note)}</text>')
            y += 14
        out.append("</g>")
        y += 22
    out.append("</svg>")
    return "\n".join(out)


def _night_label(night: NightTotals) -> str:
    return night.started_at.strftime("%m-%d %H:%M") if night.started_at else night.run_id[:11]


def history_chart(history: Sequence[NightTotals], solvers: Sequence[str], title: str,
                  chart_id: str = "history", colors: dict[str, str] | None = None) -> str:
    """An `<svg>` element: per solver its total CPU time on each night (oldest left, log
    axis), and under the plot each night's failures."""
    fills = series_colors(list(solvers), colors)
    top = 34
    grid_top = top + HISTORY_PLOT_HEIGHT + 44
    height = grid_top + FAILURE_ROW * (len(solvers) + 1) + 8
    out = [*_frame("history", chart_id, height, title),
           f'<rect class="plot-area" x="{LEFT}" y="{top}" width="{PLOT_W}" '
           f'height="{HISTORY_PLOT_HEIGHT}" fill="{HISTORY_BACKGROUND}" stroke="#c9ced6"/>']
    values = [n.cpu_ms[s] for n in history for s in solvers if n.cpu_ms.get(s, 0) > 0]
    if not history or not values:
        return _empty(out, top + HISTORY_PLOT_HEIGHT / 2, "no timed nightly runs")
    y_lo, y_hi = _range(values)
    py = _y_scale(y_lo, y_hi, top, HISTORY_PLOT_HEIGHT)
    step = PLOT_W / max(len(history), 1)

    def px(index: int) -> float:
        return LEFT + step * (index + 0.5)

    out.extend(_y_grid(y_lo, y_hi, py))
    every = max(1, math.ceil(len(history) / 10))
    for index, night in enumerate(history):
        if index % every == 0 or index == len(history) - 1:
            out.append(f'<text class="axis" x="{px(index):.1f}" '
                       f'y="{top + HISTORY_PLOT_HEIGHT + 16}" text-anchor="middle">'
                       f'{escape(_night_label(night))}</text>')
    out.append(f'<text class="axis-label" transform="translate(16 '
               f'{top + HISTORY_PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">'
               'total CPU time per night (log)</text>')
    for solver, fill in zip(solvers, fills):
        nights = [(i, n) for i, n in enumerate(history) if n.cpu_ms.get(solver, 0) > 0]
        points = [(px(i), py(n.cpu_ms[solver])) for i, n in nights]
        out.append(f'<g class="night-series" data-solver="{escape(solver)}" fill="{fill}">')
        if len(points) > 1:
            path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}"
                            for i, (x, y) in enumerate(points))
            out.append(f'<path class="trend" d="{path}" stroke="{fill}" stroke-width="2" '
                       'fill="none"/>')
        for (x, y), (_, night) in zip(points, nights):
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.4"><title>{escape(solver)} '
                       f'{escape(_night_label(night))}: {escape(format_time(night.cpu_ms[solver]))}'
                       f' CPU over {night.cases} cases (run {escape(night.run_id)})</title>'
                       '</circle>')
        out.append("</g>")
    out.append(f'<text class="axis-label" x="{LEFT - 6}" y="{grid_top}" text-anchor="end">'
               'failures</text>')
    for row, (solver, fill) in enumerate(zip(solvers, fills), start=1):
        y = grid_top + row * FAILURE_ROW
        out.append(f'<g class="failures" data-solver="{escape(solver)}">'
                   f'<rect x="{LEFT - 18}" y="{y - 9}" width="10" height="10" fill="{fill}"/>')
        for index, night in enumerate(history):
            count = night.failures.get(solver)
            kind = "failures-bad" if count else "failures-none"
            out.append(f'<text class="{kind}" x="{px(index):.1f}" y="{y}" '
                       f'text-anchor="middle">{"-" if count is None else count}</text>')
        out.append("</g>")
    for index, (solver, fill) in enumerate(zip(solvers, fills)):
        latest = history[-1].cpu_ms.get(solver)
        change = drift(list(history), solver)
        note = ("" if latest is None else f"last {format_time(latest)}") + (
            "" if change is None else f", {change - 1:+.0%} vs earlier median")
        out.append(_legend_entry(top + 8 + index * 34, fill, solver, note) + "</g>")
    out.append("</svg>")
    return "\n".join(out)
