"""Table surfaces: procedural wood, felt, cloth, plain, patterned (and GIMP's photo tiles when installed).

Every surface is a BGR uint8 texture in table millimetres at ``px_per_mm``, made from a seed with
numpy/cv2 only. ``gimp`` tiles are used when Debian's ``gimp-data`` is installed
(``/usr/share/gimp/2.0/patterns``); procedural surfaces never need it.

>>> import numpy as np
>>> t = make_surface(np.random.default_rng(1), 200, 100, px_per_mm=1.0, kind="wood")
>>> t.shape, t.dtype.name
((100, 200, 3), 'uint8')
>>> sorted(SURFACE_KINDS)
['cloth', 'felt', 'gimp', 'patterned', 'plain', 'wood']
"""

from __future__ import annotations

import math
import os
import struct
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

__all__ = ["SURFACE_KINDS", "make_surface", "gimp_patterns", "read_pat", "GIMP_PATTERN_DIR"]

GIMP_PATTERN_DIR = Path(os.environ.get("COMPANION_GIMP_PATTERNS", "/usr/share/gimp/2.0/patterns"))
SURFACE_KINDS = ("wood", "felt", "cloth", "plain", "patterned", "gimp")
_GIMP_GOOD = ("wood", "parque", "cork", "burlap", "leather", "marble", "slate", "paper", "granite",
              "pine", "walnut", "oak", "fabric", "cloth", "crinkle", "chipboard")


def read_pat(path: str | Path) -> np.ndarray:
    """Read a GIMP ``.pat`` pattern to BGR uint8 (big-endian header, then raw pixels)."""
    data = Path(path).read_bytes()
    header_size, version, w, h, bpp = struct.unpack(">5I", data[:20])
    if data[20:24] != b"GPAT":
        raise ValueError(f"{path}: not a GIMP pattern")
    px = np.frombuffer(data, np.uint8, count=w * h * bpp, offset=header_size).reshape(h, w, bpp)
    if bpp == 1:
        return cv2.cvtColor(px, cv2.COLOR_GRAY2BGR)
    if bpp == 2:
        return cv2.cvtColor(np.ascontiguousarray(px[..., 0]), cv2.COLOR_GRAY2BGR)
    if bpp == 3:
        return cv2.cvtColor(px, cv2.COLOR_RGB2BGR)
    return cv2.cvtColor(np.ascontiguousarray(px[..., :3]), cv2.COLOR_RGB2BGR)


@lru_cache(maxsize=1)
def gimp_patterns() -> tuple[Path, ...]:
    """The photographic GIMP tiles that look like a table top (empty if gimp-data is not installed)."""
    if not GIMP_PATTERN_DIR.is_dir():
        return ()
    out = []
    for p in sorted(GIMP_PATTERN_DIR.rglob("*.pat")):
        name = p.stem.lower()
        if name != "bark" and (p.parent.name.lower() in ("wood", "fabric", "paper") or any(k in name for k in _GIMP_GOOD)):
            out.append(p)
    return tuple(out)


def _fbm(rng: np.random.Generator, h: int, w: int, scales: tuple[float, ...], weights: tuple[float, ...]) -> np.ndarray:
    """Smooth fractal noise in 0..1-ish (sum of upsampled random grids)."""
    out = np.zeros((h, w), np.float32)
    for s, wt in zip(scales, weights):
        gh, gw = max(2, int(h / s) + 2), max(2, int(w / s) + 2)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        out += wt * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
    return out


def _hsv_color(h: float, s: float, v: float) -> np.ndarray:
    hsv = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _wood(rng: np.random.Generator, h: int, w: int, ppm: float) -> np.ndarray:
    ang = rng.uniform(0, math.pi)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    along = (xs * math.cos(ang) + ys * math.sin(ang)) / ppm
    across = (-xs * math.sin(ang) + ys * math.cos(ang)) / ppm
    # grain: anisotropic noise, fine across the board and long along it, plus a few wavy growth rings
    def aniso(across_mm: float, along_mm: float) -> np.ndarray:
        amin, amax = float(across.min()), float(across.max())
        lmin, lmax = float(along.min()), float(along.max())
        g = rng.standard_normal((int((amax - amin) / across_mm) + 4, int((lmax - lmin) / along_mm) + 4)).astype(np.float32)
        mx = ((along - lmin) / along_mm + 1).astype(np.float32)
        my = ((across - amin) / across_mm + 1).astype(np.float32)
        return cv2.remap(g, mx, my, cv2.INTER_CUBIC)

    streak = aniso(rng.uniform(0.5, 1.2), rng.uniform(30, 90))
    warp = aniso(30.0, 160.0)
    ring_mm = rng.uniform(4.0, 14.0)
    rings = np.sin((across + warp * rng.uniform(3.0, 8.0)) * 2 * math.pi / ring_mm)
    grain = 0.5 + 0.25 * np.tanh(streak * 0.8) + 0.25 * np.sign(rings) * np.abs(rings) ** 3
    fine = _fbm(rng, h, w, (max(1.0, 0.8 * ppm),), (1.0,))
    # planks
    plank_mm = rng.uniform(90, 220) if rng.random() < 0.6 else 1e9
    plank = np.floor(across / plank_mm)
    plank_shift = (np.sin(plank * 12.9898) * 43758.5453) % 1.0
    seam = (np.abs((across / plank_mm) % 1.0 - 0.0) < 0.8 / plank_mm).astype(np.float32)
    base = _hsv_color(rng.uniform(5, 22), rng.uniform(110, 210), rng.uniform(60, 190))
    dark = base * rng.uniform(0.45, 0.7)
    t = np.clip(0.6 * grain + 0.06 * fine + 0.25 * (plank_shift - 0.5) + 0.1, 0, 1)
    img = dark[None, None, :] * t[..., None] + base[None, None, :] * (1 - t[..., None])
    img *= (1 - 0.5 * seam)[..., None]
    lum = 1 + 0.08 * _fbm(rng, h, w, (150 * ppm,), (1.0,))
    return img * lum[..., None]


def _felt(rng: np.random.Generator, h: int, w: int, ppm: float) -> np.ndarray:
    hue = rng.choice([60, 55, 100, 110, 0, 170, 15, 120]) + rng.uniform(-6, 6)
    base = _hsv_color(hue, rng.uniform(90, 220), rng.uniform(50, 150))
    n = _fbm(rng, h, w, (max(1.0, 0.5 * ppm), 6 * ppm, 80 * ppm), (0.5, 0.25, 0.15))
    return base[None, None, :] * (1 + 0.12 * n[..., None])


def _cloth(rng: np.random.Generator, h: int, w: int, ppm: float) -> np.ndarray:
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pitch = rng.uniform(0.6, 1.6) * ppm
    weave = np.sin(xs * 2 * math.pi / pitch) * np.sin(ys * 2 * math.pi / pitch)
    base = _hsv_color(rng.uniform(0, 180), rng.uniform(20, 200), rng.uniform(40, 220))
    n = _fbm(rng, h, w, (2 * ppm, 40 * ppm), (0.4, 0.6))
    img = base[None, None, :] * (1 + 0.07 * weave[..., None] + 0.08 * n[..., None])
    # folds / creases
    for _ in range(int(rng.integers(0, 3))):
        a = rng.uniform(0, math.pi)
        d = (xs * math.cos(a) + ys * math.sin(a)) - rng.uniform(0, w + h)
        img *= (1 - 0.12 * np.exp(-(d / (rng.uniform(8, 30) * ppm)) ** 2))[..., None]
    return img


def _plain(rng: np.random.Generator, h: int, w: int, ppm: float) -> np.ndarray:
    choice = rng.random()
    if choice < 0.3:  # white/grey laminate
        base = _hsv_color(rng.uniform(0, 180), rng.uniform(0, 25), rng.uniform(170, 235))
    elif choice < 0.6:  # dark desk
        base = _hsv_color(rng.uniform(0, 180), rng.uniform(0, 60), rng.uniform(20, 70))
    else:
        base = _hsv_color(rng.uniform(0, 180), rng.uniform(30, 160), rng.uniform(60, 200))
    n = _fbm(rng, h, w, (max(1.0, 0.7 * ppm), 100 * ppm), (0.3, 0.7))
    return base[None, None, :] * (1 + 0.05 * n[..., None])


def _patterned(rng: np.random.Generator, h: int, w: int, ppm: float) -> np.ndarray:
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(-0.3, 0.3)
    u = (xs * math.cos(a) + ys * math.sin(a)) / ppm
    v = (-xs * math.sin(a) + ys * math.cos(a)) / ppm
    c1 = _hsv_color(rng.uniform(0, 180), rng.uniform(60, 220), rng.uniform(90, 220))
    c2 = _hsv_color(rng.uniform(0, 180), rng.uniform(0, 60), rng.uniform(190, 245))
    period = rng.uniform(12, 45)
    kind = rng.integers(0, 3)
    if kind == 0:  # gingham
        a1 = ((u / period) % 1 < 0.5).astype(np.float32)
        a2 = ((v / period) % 1 < 0.5).astype(np.float32)
        t = 0.5 * (a1 + a2)
    elif kind == 1:  # stripes
        t = ((u / period) % 1 < rng.uniform(0.2, 0.6)).astype(np.float32)
    else:  # dots
        t = ((((u / period) % 1 - 0.5) ** 2 + ((v / period) % 1 - 0.5) ** 2) < rng.uniform(0.02, 0.08)).astype(np.float32)
    t = cv2.GaussianBlur(t, (0, 0), max(0.5, 0.3 * ppm))
    img = c1[None, None, :] * t[..., None] + c2[None, None, :] * (1 - t[..., None])
    pitch = rng.uniform(0.7, 1.4) * ppm
    weave = np.sin(xs * 2 * math.pi / pitch) * np.sin(ys * 2 * math.pi / pitch)
    return img * (1 + 0.05 * weave[..., None] + 0.05 * _fbm(rng, h, w, (50 * ppm,), (1.0,))[..., None])


def _gimp(rng: np.random.Generator, h: int, w: int, ppm: float, pattern: Path | None = None) -> np.ndarray | None:
    pats = gimp_patterns()
    if not pats:
        return None
    tile = read_pat(pattern if pattern is not None else pats[int(rng.integers(0, len(pats)))]).astype(np.float32)
    # a tile pixel is about 0.3..1 mm of table
    mm_per_px = rng.uniform(0.3, 1.0)
    s = mm_per_px * ppm
    tile = cv2.resize(tile, (max(2, int(tile.shape[1] * s)), max(2, int(tile.shape[0] * s))), interpolation=cv2.INTER_LINEAR)
    reps = (h // tile.shape[0] + 2, w // tile.shape[1] + 2)
    big = np.tile(tile, (reps[0], reps[1], 1))
    oy, ox = int(rng.integers(0, tile.shape[0])), int(rng.integers(0, tile.shape[1]))
    img = big[oy:oy + h, ox:ox + w]
    tint = 1 + rng.normal(0, 0.08, 3).astype(np.float32)
    # hide tile seams a little with low-frequency light
    lum = 1 + 0.08 * _fbm(rng, h, w, (120 * ppm,), (1.0,))
    return img * tint[None, None, :] * lum[..., None]


_MAKERS = {"wood": _wood, "felt": _felt, "cloth": _cloth, "plain": _plain, "patterned": _patterned}


def make_surface(rng: np.random.Generator, width: int, height: int, px_per_mm: float = 1.0,
                 kind: str | None = None, pattern: Path | None = None) -> np.ndarray:
    """A table texture ``(height, width, 3)`` uint8 at ``px_per_mm``; ``kind`` None = chosen by ``rng``.

    ``kind="gimp"`` falls back to a procedural surface when gimp-data is not installed; ``pattern``
    (one of :func:`gimp_patterns`) picks its tile, else ``rng`` does.
    """
    if kind is None:
        kinds = ["wood", "wood", "felt", "cloth", "plain", "patterned"]
        if gimp_patterns():
            kinds += ["gimp", "gimp"]
        kind = kinds[int(rng.integers(0, len(kinds)))]
    if kind not in SURFACE_KINDS:
        raise ValueError(f"unknown surface {kind!r} (use {', '.join(SURFACE_KINDS)})")
    img = None
    if kind == "gimp":
        img = _gimp(rng, height, width, px_per_mm, pattern)
        if img is None:
            kind = "wood"
    if img is None:
        img = _MAKERS[kind](rng, height, width, px_per_mm)
    return np.clip(img, 0, 255).astype(np.uint8)
