"""The report in a real headless Chromium: the charts are in the DOM and actually drawn, and
the verdict matrix fits the window.

Checks on a report of two problems:
- `--dump-dom`: the DOM Chromium built holds one `<svg>` chart per run with its raw points,
  per-size medians, fit lines and legend (so the inline SVG parsed as SVG, nothing was dropped);
- `--screenshot`: in the PNG, each chart's plot area (found by its background colour) holds
  pixels of every plotted solver's colour, so the points and lines were painted; so does each
  nightly history chart;
- `--screenshot` of a problem with seven long-named solvers, at 1400 and 900 px: the badge
  in the matrix's last column is painted, inside the page's box.

Chromium comes from Debian (`make system` installs it). Without it the test is skipped, except
under CI (the `CI` variable set), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from pipeline.report.html import write_report
from pipeline.report.svg import HISTORY_BACKGROUND, PALETTE

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-color-profile=srgb", "--force-device-scale-factor=1"]
PLOT_BACKGROUND = (0xFB, 0xFC, 0xFE)    # the `plot-area` rect's fill in pipeline.report.svg


def chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    if os.environ.get("CI") is not None:
        pytest.fail("chromium is not installed but CI is set: run `make system`")
    pytest.skip("chromium is not installed (`make system` installs it)")


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture
def report(bench, tmp_path) -> Path:
    bench.standard_cases()
    bench.standard_run("a1", 0)
    bench.standard_run("a2", 10, wrong={"fast": 3})
    sizes = (4, 16, 64, 256, 1024)
    ids = bench.add_cases("bipartitebattle", [(n, str(n % 4)) for n in sizes])
    bench.add_run("b1", "bipartitebattle", [
        {"case_id": c, "solver": "fast", "verdict": "AC", "answer": str(n % 4),
         "wall_ms": 0.01 * n, "size": n} for c, n in zip(ids, sizes)], minute=5)
    return write_report(bench.data, None, tmp_path / "report.html")


class ChartDom(HTMLParser):
    """Per `<svg class="chart">`: its circles, fit paths, series colours and legend texts."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[dict] = []
        self.in_legend = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg" and "chart" in (attrs.get("class") or ""):
            self.charts.append({"raw": 0, "median": 0, "fits": [], "legend": [], "fills": []})
        elif self.charts and tag == "g" and attrs.get("class") == "series":
            self.charts[-1]["fills"].append(attrs["fill"])
        elif self.charts and tag == "circle" and attrs.get("class") in ("raw", "median"):
            self.charts[-1][attrs["class"]] += 1
        elif self.charts and tag == "path" and attrs.get("class") == "fit":
            self.charts[-1]["fits"].append(attrs.get("d", ""))
        self.in_legend = tag == "text" and attrs.get("class") == "legend"

    def handle_data(self, data):
        if self.in_legend and self.charts:
            self.charts[-1]["legend"].append(data)
            self.in_legend = False


def test_the_charts_are_in_the_dom_chromium_builds(report, tmp_path):
    dom = run_chromium(tmp_path, "--dump-dom", report.as_uri()).stdout
    parser = ChartDom()
    parser.feed(dom)
    arc, bip = parser.charts
    assert arc["legend"] == ["brute: n^2.00", "editorial: n^1.50", "fast: n^1.00"]
    # one raw point and one median per case: every size has one case here
    assert arc["raw"] == arc["median"] == 6 + 10 + 10 and len(arc["fits"]) == 3
    assert bip["legend"] == ["fast: n^1.00"] and bip["raw"] == bip["median"] == 5
    assert len(bip["fits"]) == 1
    assert all(d.startswith("M") and " L" in d for d in arc["fits"] + bip["fits"])


def read_png(path: Path) -> np.ndarray:
    """An 8-bit RGB or RGBA, non-interlaced PNG as an (height, width, 3) array."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    channels = 3 if color == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    return unfilter(raw.reshape(height, 1 + width * channels), channels)[:, :, :3]


def unfilter(rows: np.ndarray, channels: int) -> np.ndarray:
    """The (height, width, channels) pixels of PNG scanlines (each a filter type byte, then
    the filtered bytes). A byte's prediction reads the decoded bytes left of it (a), above it
    (b) and above-left (c), so the pixels of one anti-diagonal (x + y = k) only need earlier
    ones: they are decoded together, all five filter types at once."""
    height, width = rows.shape[0], (rows.shape[1] - 1) // channels
    kinds = rows[:, 0].astype(np.int32)
    data = rows[:, 1:].reshape(height, width, channels).astype(np.int32)
    out = np.zeros((height + 1, width + 1, channels), dtype=np.int32)  # row 0, column 0: zeros
    for k in range(height + width - 1):
        y = np.arange(max(0, k - width + 1), min(height, k + 1))
        x = k - y
        a, b, c = out[y + 1, x], out[y, x + 1], out[y, x]
        p = a + b - c
        pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
        paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
        kind = kinds[y][:, None]
        predicted = np.select([kind == 0, kind == 1, kind == 2, kind == 3],
                              [np.zeros_like(a), a, b, (a + b) // 2], paeth)
        out[y + 1, x + 1] = (data[y, x] + predicted) & 0xFF
    return out[1:, 1:].astype(np.uint8)


def filtered(image: np.ndarray, kinds: list[int]) -> np.ndarray:
    """PNG scanlines of `image` (height, width, channels), row y filtered with kinds[y]: what
    an encoder writes (the test of `unfilter`)."""
    pixels = image.astype(np.int32)
    a = np.zeros_like(pixels)
    a[:, 1:] = pixels[:, :-1]
    b = np.zeros_like(pixels)
    b[1:] = pixels[:-1]
    c = np.zeros_like(pixels)
    c[1:, 1:] = pixels[:-1, :-1]
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
    predictions = [np.zeros_like(a), a, b, (a + b) // 2, paeth]
    lines = [np.concatenate([[kind], ((pixels[y] - predictions[kind][y]) & 0xFF).ravel()])
             for y, kind in enumerate(kinds)]
    return np.array(lines, dtype=np.uint8)


@pytest.mark.parametrize("channels", [3, 4])
def test_unfilter_decodes_every_filter_type(channels):
    rng = np.random.default_rng(channels)
    image = rng.integers(0, 256, size=(40, 23, channels), dtype=np.uint8)
    image[5:15] = image[5:15] // 64 * 64  # flat stretches too: Paeth picks a, b and c
    kinds = [int(kind) for kind in rng.integers(0, 5, size=40)]
    assert set(kinds) == {0, 1, 2, 3, 4}
    rows = filtered(image, kinds)
    assert not np.array_equal(rows[:, 1:], image.reshape(40, -1))
    assert np.array_equal(unfilter(rows, channels), image)


def hex_rgb(color: str) -> np.ndarray:
    return np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)


def plot_areas(image: np.ndarray, background=PLOT_BACKGROUND) -> list[tuple[int, int, int, int]]:
    """(top, bottom, left, right) of each block of rows painted with the plot background
    (grid lines and points break a block for a row or two, a gap between charts is wider)."""
    mask = np.all(image == background, axis=2)
    rows = np.flatnonzero(mask.sum(axis=1) > 100)
    areas = []
    for block in np.split(rows, np.flatnonzero(np.diff(rows) > 20) + 1):
        if block.size < 50:
            continue
        cols = np.flatnonzero(mask[block].any(axis=0))
        areas.append((int(block[0]), int(block[-1]), int(cols[0]), int(cols[-1])))
    return areas


def test_the_charts_are_painted(report, tmp_path):
    shot = tmp_path / "shot.png"
    run_chromium(tmp_path, "--window-size=1280,4000", f"--screenshot={shot}", report.as_uri())
    source = ChartDom()
    source.feed(report.read_text())
    fills = [chart["fills"] for chart in source.charts]
    assert [len(f) for f in fills] == [3, 1]         # arc087e's chart, then bipartitebattle's
    image = read_png(shot)
    areas = plot_areas(image)
    assert len(areas) == 2, areas
    for (top, bottom, left, right), colors in zip(areas, fills):
        assert right - left > 300 and bottom - top > 250
        area = image[top:bottom + 1, left:right + 1].astype(np.int16)
        painted = ~np.all(area == PLOT_BACKGROUND, axis=2)
        assert painted.mean() > 0.01                 # grid lines, points and fit lines
        for color in colors:                         # every solver's points and line
            close = np.all(np.abs(area - hex_rgb(color)) <= 6, axis=2)
            assert close.sum() >= 40, (color, int(close.sum()))
        for color in set(PALETTE) - set(colors):     # and nothing in the other colours
            assert np.all(np.abs(area - hex_rgb(color)) <= 6, axis=2).sum() == 0, color


def test_the_history_charts_are_painted(bench, tmp_path):
    bench.standard_cases()
    for night, factor in enumerate((1.0, 1.05, 1.2)):
        bench.standard_run(f"n{night}", night * 10, slow={"fast": factor},
                           command="pipeline nightly")
    report = write_report(bench.data, None, tmp_path / "report.html")
    shot = tmp_path / "history.png"
    run_chromium(tmp_path, "--window-size=1280,5000", f"--screenshot={shot}", report.as_uri())
    image = read_png(shot)
    [(top, bottom, left, right)] = plot_areas(image, tuple(hex_rgb(HISTORY_BACKGROUND)))
    area = image[top:bottom + 1, left:right + 1].astype(np.int16)
    for color in PALETTE[:3]:                        # brute, editorial and fast
        close = np.all(np.abs(area - hex_rgb(color)) <= 6, axis=2)
        assert close.sum() >= 40, (color, int(close.sum()))


OLE_BADGE = (0xFD, 0xE0, 0xF0)        # `.v-OLE` background in pipeline.report.html's CSS
LONG_NAMES = [f"solver-with-a-rather-long-name-{i}" for i in range(1, 8)]


@pytest.mark.parametrize("width", [1400, 900])
def test_the_verdict_matrix_last_column_is_visible(bench, tmp_path, width):
    """Seven solvers with long names: the last one's badge (its only verdict, OLE, which no
    other part of this report shows) is painted inside the page's content box."""
    ids = bench.add_cases("arc087e", [(n, "Alice") for n in (1, 2, 3, 4, 5)])
    bench.add_run("wide", "arc087e", [
        {"case_id": c, "solver": name, "verdict": "OLE" if name == LONG_NAMES[-1] else "AC",
         "answer": None if name == LONG_NAMES[-1] else "Alice",
         "wall_ms": None if name == LONG_NAMES[-1] else 1.0, "size": n}
        for c, n in zip(ids, (1, 2, 3, 4, 5)) for name in LONG_NAMES])
    report = write_report(bench.data, None, tmp_path / "report.html")
    text = report.read_text()
    matrix = text[text.index('<table class="verdict-matrix"'):]
    matrix = matrix[:matrix.index("</table>")]
    assert matrix.count("<th>solver-with") == 7 and matrix.rindex(LONG_NAMES[-1]) > matrix.rindex(
        LONG_NAMES[-2])
    shot = tmp_path / f"matrix-{width}.png"
    run_chromium(tmp_path, f"--window-size={width},1600", f"--screenshot={shot}",
                 report.as_uri())
    image = read_png(shot)
    assert image.shape[1] == width
    badge = np.all(np.abs(image.astype(np.int16) - np.array(OLE_BADGE)) <= 2, axis=2)
    ys, xs = np.nonzero(badge)
    assert badge.sum() >= 300, int(badge.sum())      # the whole badge, not a sliver
    content_right = (width + min(width - 48, 1180)) / 2 if width > 1228 else width - 24
    assert xs.max() < content_right, (int(xs.max()), content_right)
    assert xs.max() - xs.min() >= 30                  # as wide as a badge "OLE 5"
