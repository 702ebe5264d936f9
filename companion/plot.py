"""A PNG chart of a simulation, drawn with OpenCV only: measured face-up distribution (bars) against
the exact P(N = n) = C(n-1, 3) / C(52, 4) (line with markers).

The logic (:func:`distribution_chart`: values, axis ranges, ticks, texts) is separate from the
drawing (:func:`draw_chart`), which only turns a :class:`Chart` into pixels.

>>> from companion.simulate import simulate
>>> img = draw_chart(distribution_chart(simulate(2_000, seed=1)))
>>> img.shape, img.dtype.name
((620, 1000, 3), 'uint8')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Chart", "distribution_chart", "draw_chart", "save_distribution_plot", "nice_ticks"]


# --------------------------------------------------------------------------------------------
# logic
# --------------------------------------------------------------------------------------------
@dataclass
class Chart:
    """Everything to draw, in data units."""

    title: str
    subtitle: str
    xs: list[int]
    bars: list[float]  # measured probability per x
    line: list[float]  # exact probability per x
    x_ticks: list[int]
    y_ticks: list[float]
    y_max: float
    x_label: str = "cards face up at the end (n)"
    y_label: str = "share of games"
    bar_label: str = "measured"
    line_label: str = "exact P(N=n) = C(n-1,3)/C(52,4)"
    notes: list[str] = field(default_factory=list)


def nice_ticks(top: float, count: int = 6) -> list[float]:
    """Round tick values 0, s, 2s, ... covering ``top`` with about ``count`` steps (s = 1, 2, 2.5, 5 x 10^k).

    >>> nice_ticks(0.1)
    [0.0, 0.02, 0.04, 0.06, 0.08, 0.1]
    >>> nice_ticks(0.0723)
    [0.0, 0.02, 0.04, 0.06, 0.08]
    """
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    k = math.floor(math.log10(raw))
    step = next(m * 10 ** k for m in (1, 2, 2.5, 5, 10) if m * 10 ** k >= raw * (1 - 1e-12))
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


def _pct(x: float, digits: int = 3) -> str:
    return f"{100 * x:.{digits}f}%"


def distribution_chart(result) -> Chart:
    """The chart of a :class:`companion.simulate.SimulationResult`."""
    from .simulate import exact_distribution

    exact = exact_distribution()
    xs = list(range(4, 53))
    games = max(1, result.games)
    bars = [result.distribution.get(n, 0) / games for n in xs]
    line = [exact[n] for n in xs]
    top = max(max(bars), max(line))
    y_ticks = nice_ticks(top * 1.04)
    lo, hi = result.ci95
    if result.variant == "standard":
        what = "standard game"
        line_label = "exact P(N=n) = C(n-1,3)/C(52,4)"
    else:
        what = f"Watch variant, policy {result.policy}" + (" = oracle" if result.policy == "best" else "")
        line_label = "exact P(N=n), standard game"
    seed = "" if result.seed is None else f", seed {result.seed}"
    seed = seed if len(seed) < 24 else ""
    title = f"Clock Patience: {result.games:,} random deals ({what}{seed})"
    subtitle = (f"win rate {_pct(result.win_rate)}  (95% CI {_pct(lo)} - {_pct(hi)})   "
                f"exact 1/13 = {_pct(1 / 13)}   mean face-up {result.mean_face_up:.2f}")
    notes = []
    if result.variant != "standard":
        notes.append(f"standard wins before the swap {_pct(result.standard_wins / games)}")
    return Chart(title=title, subtitle=subtitle, xs=xs, bars=bars, line=line,
                 x_ticks=list(range(4, 53, 4)), y_ticks=y_ticks, y_max=y_ticks[-1],
                 line_label=line_label, notes=notes)


# --------------------------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------------------------
_WHITE = (255, 255, 255)
_INK = (40, 40, 40)
_GREY = (120, 120, 120)
_GRID = (228, 228, 228)
_BAR = (196, 140, 62)  # BGR: a steel blue
_BAR_EDGE = (150, 100, 35)
_LINE = (40, 40, 200)  # BGR: a dark red
_FONT = 0  # cv2.FONT_HERSHEY_SIMPLEX


def _text(img, s: str, org: tuple[int, int], scale: float = 0.5, color=_INK, thick: int = 1,
          anchor: str = "left") -> None:
    import cv2

    (w, h), _ = cv2.getTextSize(s, _FONT, scale, thick)
    x, y = org
    if anchor == "center":
        x -= w // 2
    elif anchor == "right":
        x -= w
    cv2.putText(img, s, (int(x), int(y)), _FONT, scale, color, thick, cv2.LINE_AA)


def _y_label(img, s: str, centre: tuple[int, int], scale: float = 0.5) -> None:
    """Text rotated a quarter turn (reads bottom to top), centred on ``centre``."""
    import cv2

    (w, h), base = cv2.getTextSize(s, _FONT, scale, 1)
    tile = np.full((h + base + 4, w + 4, 3), 255, np.uint8)
    cv2.putText(tile, s, (2, h + 2), _FONT, scale, _INK, 1, cv2.LINE_AA)
    tile = cv2.rotate(tile, cv2.ROTATE_90_COUNTERCLOCKWISE)
    th, tw = tile.shape[:2]
    x0, y0 = centre[0] - tw // 2, centre[1] - th // 2
    region = img[y0:y0 + th, x0:x0 + tw]
    np.minimum(region, tile, out=region)


def _fmt_tick(v: float, step: float) -> str:
    digits = max(0, -math.floor(math.log10(100 * step) + 1e-9)) if step > 0 else 0
    return f"{100 * v:.{digits}f}%"


def draw_chart(chart: Chart, width: int = 1000, height: int = 620) -> np.ndarray:
    """Render ``chart`` to a BGR image."""
    import cv2

    img = np.full((height, width, 3), 255, np.uint8)
    left, right, top, bottom = 90, 30, 92, 70
    x0, x1, y0, y1 = left, width - right, top, height - bottom  # plot area (y0 top, y1 bottom)
    lo_x, hi_x = chart.xs[0] - 0.7, chart.xs[-1] + 0.7

    def px(x: float) -> int:
        return int(round(x0 + (x - lo_x) / (hi_x - lo_x) * (x1 - x0)))

    def py(y: float) -> int:
        return int(round(y1 - y / chart.y_max * (y1 - y0)))

    # titles
    _text(img, chart.title, (width // 2, 32), 0.68, _INK, 2, anchor="center")
    _text(img, chart.subtitle, (width // 2, 60), 0.5, _INK, 1, anchor="center")
    # grid and y ticks
    step = chart.y_ticks[1] - chart.y_ticks[0] if len(chart.y_ticks) > 1 else 1.0
    for v in chart.y_ticks:
        y = py(v)
        if v > 0:
            cv2.line(img, (x0, y), (x1, y), _GRID, 1, cv2.LINE_AA)
        cv2.line(img, (x0 - 5, y), (x0, y), _INK, 1, cv2.LINE_AA)
        _text(img, _fmt_tick(v, step), (x0 - 9, y + 5), 0.45, _INK, anchor="right")
    # bars
    half = max(1, int((px(1) - px(0)) * 0.38))
    for x, v in zip(chart.xs, chart.bars):
        if v <= 0:
            continue
        cx, top_y = px(x), py(v)
        cv2.rectangle(img, (cx - half, top_y), (cx + half, y1), _BAR, -1)
        cv2.rectangle(img, (cx - half, top_y), (cx + half, y1), _BAR_EDGE, 1)
    # exact line with markers
    pts = np.array([[px(x), py(v)] for x, v in zip(chart.xs, chart.line)], np.int32)
    cv2.polylines(img, [pts], False, _LINE, 2, cv2.LINE_AA)
    for p in pts:
        cv2.circle(img, (int(p[0]), int(p[1])), 3, _LINE, -1, cv2.LINE_AA)
    # axes, x ticks
    cv2.line(img, (x0, y1), (x1, y1), _INK, 1, cv2.LINE_AA)
    cv2.line(img, (x0, y0), (x0, y1), _INK, 1, cv2.LINE_AA)
    for x in chart.x_ticks:
        cx = px(x)
        cv2.line(img, (cx, y1), (cx, y1 + 5), _INK, 1, cv2.LINE_AA)
        _text(img, str(x), (cx, y1 + 22), 0.45, _INK, anchor="center")
    _text(img, chart.x_label, ((x0 + x1) // 2, height - 18), 0.52, _INK, anchor="center")
    _y_label(img, chart.y_label, (24, (y0 + y1) // 2), 0.52)
    # legend (top left: the distribution rises to the right)
    lx, ly = x0 + 18, y0 + 14
    rows = 2 + len(chart.notes)
    (tw, _), _ = cv2.getTextSize(chart.line_label, _FONT, 0.47, 1)
    box_w = 44 + max(tw, *(cv2.getTextSize(n, _FONT, 0.47, 1)[0][0] for n in chart.notes), 80) + 12
    cv2.rectangle(img, (lx - 10, ly - 10), (lx - 10 + box_w, ly + 24 * rows - 2), _WHITE, -1)
    cv2.rectangle(img, (lx - 10, ly - 10), (lx - 10 + box_w, ly + 24 * rows - 2), (200, 200, 200), 1)
    cv2.rectangle(img, (lx, ly), (lx + 26, ly + 12), _BAR, -1)
    cv2.rectangle(img, (lx, ly), (lx + 26, ly + 12), _BAR_EDGE, 1)
    _text(img, chart.bar_label, (lx + 36, ly + 11), 0.47)
    cv2.line(img, (lx, ly + 30), (lx + 26, ly + 30), _LINE, 2, cv2.LINE_AA)
    cv2.circle(img, (lx + 13, ly + 30), 3, _LINE, -1, cv2.LINE_AA)
    _text(img, chart.line_label, (lx + 36, ly + 35), 0.47)
    for i, note in enumerate(chart.notes):
        _text(img, note, (lx, ly + 59 + 24 * i), 0.47, _GREY)
    return img


def save_distribution_plot(result, path: str | Path, width: int = 1000, height: int = 620) -> Path:
    """Draw the chart of ``result`` and write it as a PNG; raises ``OSError`` if it cannot be written."""
    import cv2

    path = Path(path)
    img = draw_chart(distribution_chart(result), width, height)
    ok, buf = cv2.imencode(".png", img)
    if not ok:  # pragma: no cover - encoding a plain BGR image does not fail
        raise OSError("PNG encoding failed")
    path.write_bytes(buf.tobytes())
    return path
