"""A pinhole webcam looking down at the table, with lens distortion and cheap photometrics.

World coordinates are table millimetres: ``X`` to the right, ``Y`` away from the player (the far
side of the table), ``Z`` up; the table is ``Z = 0``. The camera sits on the player's side and looks
down at ``target`` with a tilt of 0..35 degrees from straight down, plus a roll.

Rendering happens in an *undistorted canvas* (the ideal pinhole image with a margin of ``margin``
pixels on every side, so that barrel distortion has something to pull in); :meth:`Camera.remap_roi`
turns any part of it into the distorted output image with ``cv2.remap``. Ground-truth points are
projected with :meth:`Camera.project` (distortion included), so they match the pixels.

>>> import numpy as np
>>> cam = Camera.look_at(width=640, height=360, fov_deg=65, target=(0, 0), distance=800,
...                      tilt_deg=0, azimuth_deg=0, roll_deg=0, dist=(0, 0, 0, 0, 0))
>>> np.round(cam.project([[0, 0, 0]]), 1).tolist()
[[320.0, 180.0]]
>>> bool(cam.project([[100, 0, 0]])[0, 0] > 320), bool(cam.project([[0, 100, 0]])[0, 1] < 180)
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

__all__ = ["Camera", "Photometrics", "TILT_MAX_DEG"]

#: Largest tilt of the optical axis from straight down that the renderer accepts.
TILT_MAX_DEG = 35.0


def _normalize(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


@dataclass
class Camera:
    """Intrinsics ``K`` (output image), distortion ``dist`` (OpenCV k1,k2,p1,p2,k3), pose ``R, t``."""

    width: int
    height: int
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    tilt_deg: float = 0.0
    azimuth_deg: float = 0.0
    roll_deg: float = 0.0
    distance: float = 800.0
    target: tuple[float, float] = (0.0, 0.0)
    margin: int = 0
    _maps: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _fixed: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def look_at(cls, *, width: int, height: int, fov_deg: float, target: Sequence[float], distance: float,
                tilt_deg: float, azimuth_deg: float = 0.0, roll_deg: float = 0.0,
                dist: Sequence[float] = (0, 0, 0, 0, 0), principal_jitter: Sequence[float] = (0, 0)) -> "Camera":
        """A camera ``distance`` mm from ``target`` (on the table), tilted ``tilt_deg`` towards the player.

        ``fov_deg`` is the horizontal field of view; ``azimuth_deg`` turns the side the camera stands on
        (0 = the player's side, ``-Y``); ``roll_deg`` turns the image about the optical axis.
        """
        if not 0 <= tilt_deg <= TILT_MAX_DEG + 1e-9:
            raise ValueError(f"camera tilt must be 0..{TILT_MAX_DEG:g} degrees, got {tilt_deg:g}")
        f = (width / 2) / math.tan(math.radians(fov_deg) / 2)
        K = np.array([[f, 0, width / 2 + principal_jitter[0]], [0, f, height / 2 + principal_jitter[1]], [0, 0, 1]],
                     np.float64)
        az = math.radians(azimuth_deg)
        fwd_dir = np.array([-math.sin(az), math.cos(az), 0.0])  # on the table: "away from the camera"
        tau = math.radians(tilt_deg)
        T = np.array([target[0], target[1], 0.0])
        C = T + distance * (-math.sin(tau) * fwd_dir + math.cos(tau) * np.array([0, 0, 1.0]))
        z = _normalize(T - C)
        down_hint = -fwd_dir if tau < 1e-6 else -fwd_dir
        x = _normalize(np.cross(down_hint, z))
        y = np.cross(z, x)
        r = math.radians(roll_deg)
        xr = math.cos(r) * x + math.sin(r) * y
        yr = -math.sin(r) * x + math.cos(r) * y
        R = np.stack([xr, yr, z])
        t = -R @ C
        return cls(width, height, K, np.asarray(dist, np.float64).reshape(-1), R, t, float(tilt_deg),
                   float(azimuth_deg), float(roll_deg), float(distance), (float(target[0]), float(target[1])))

    # -- geometry ---------------------------------------------------------------------------
    @property
    def focal(self) -> float:
        return float(self.K[0, 0])

    @property
    def center(self) -> np.ndarray:
        """Camera centre in table mm."""
        return -self.R.T @ self.t

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts, np.float64) @ self.R.T + self.t

    def project(self, pts: Any) -> np.ndarray:
        """Table points (N,3) or (N,2) (Z = 0) to distorted image pixels (N,2)."""
        P = np.asarray(pts, np.float64).reshape(-1, np.asarray(pts).shape[-1])
        if P.shape[1] == 2:
            P = np.hstack([P, np.zeros((len(P), 1))])
        rvec, _ = cv2.Rodrigues(self.R)
        out, _ = cv2.projectPoints(P.reshape(-1, 1, 3), rvec, self.t.reshape(3, 1), self.K, self.dist)
        return out.reshape(-1, 2)

    def project_u(self, pts: Any) -> np.ndarray:
        """Table points to *undistorted canvas* pixels (margin included)."""
        P = np.asarray(pts, np.float64).reshape(-1, np.asarray(pts).shape[-1])
        if P.shape[1] == 2:
            P = np.hstack([P, np.zeros((len(P), 1))])
        c = self.to_camera(P)
        z = np.maximum(c[:, 2:3], 1e-6)
        uv = (c[:, :2] / z) * [self.K[0, 0], self.K[1, 1]] + [self.K[0, 2], self.K[1, 2]]
        return np.clip(uv + self.margin, -1e5, 1e5)

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 map from table (X, Y, 1) at height ``z`` to undistorted canvas pixels."""
        Ku = self.K.copy()
        Ku[0, 2] += self.margin
        Ku[1, 2] += self.margin
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        return Ku @ M

    def distort_u(self, uv: np.ndarray) -> np.ndarray:
        """Undistorted canvas pixels to distorted output pixels."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2) - self.margin
        xn = (uv - [self.K[0, 2], self.K[1, 2]]) / [self.K[0, 0], self.K[1, 1]]
        P = np.hstack([xn, np.ones((len(xn), 1))])
        out, _ = cv2.projectPoints(P.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K, self.dist)
        return out.reshape(-1, 2)

    def card_px(self, card_h_mm: float = 88.0) -> float:
        """Height in pixels of a card lying at the target, upright to the image."""
        a = self.project([[self.target[0], self.target[1] - card_h_mm / 2, 0],
                          [self.target[0], self.target[1] + card_h_mm / 2, 0]])
        return float(np.linalg.norm(a[0] - a[1]))

    # -- distortion maps ----------------------------------------------------------------------
    def set_margin(self, max_points: np.ndarray | None = None) -> None:
        """Choose the undistorted canvas margin so every output pixel has a source."""
        w, h = self.width, self.height
        border = np.concatenate([
            np.stack([np.linspace(0, w - 1, 64), np.zeros(64)], 1),
            np.stack([np.linspace(0, w - 1, 64), np.full(64, h - 1)], 1),
            np.stack([np.zeros(64), np.linspace(0, h - 1, 64)], 1),
            np.stack([np.full(64, w - 1), np.linspace(0, h - 1, 64)], 1)])
        und = cv2.undistortPoints(border.reshape(-1, 1, 2), self.K, self.dist, P=self.K).reshape(-1, 2)
        over = max(0.0, float(-und.min()), float((und[:, 0] - (w - 1)).max()), float((und[:, 1] - (h - 1)).max()))
        self.margin = int(math.ceil(min(over, 0.3 * max(w, h)))) + 4
        self._maps = None

    @property
    def canvas_size(self) -> tuple[int, int]:
        """(width, height) of the undistorted canvas."""
        return self.width + 2 * self.margin, self.height + 2 * self.margin

    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        """Float32 maps: for each output pixel, where to read in the undistorted canvas."""
        if self._maps is None:
            w, h = self.width, self.height
            if not np.any(self.dist):
                xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
                mx, my = xs + self.margin, ys + self.margin
            else:
                # the field is smooth: solve on a coarse grid, interpolate
                step = 8
                gw, gh = w // step + 2, h // step + 2
                ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32) * step
                pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
                und = cv2.undistortPoints(pts, self.K, self.dist, P=self.K,
                                          criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-3))
                und = und.reshape(gh, gw, 2).astype(np.float32) + self.margin
                big = cv2.resize(und, ((gw - 1) * step + 1, (gh - 1) * step + 1), interpolation=cv2.INTER_LINEAR)
                mx, my = big[:h, :w, 0].copy(), big[:h, :w, 1].copy()
            self._maps = (np.ascontiguousarray(mx), np.ascontiguousarray(my))
            m1, m2 = cv2.convertMaps(self._maps[0], self._maps[1], cv2.CV_16SC2)
            self._fixed = (m1, m2)
        return self._maps

    def remap_roi(self, canvas: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Distorted output pixels ``roi = (x0, y0, x1, y1)`` (whole image if None) from the canvas."""
        self.maps()
        m1, m2 = self._fixed
        if roi is None:
            roi = (0, 0, self.width, self.height)
        x0, y0, x1, y1 = roi
        return cv2.remap(canvas, m1[y0:y1, x0:x1], m2[y0:y1, x0:x1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)

    def output_roi(self, roi_u: tuple[int, int, int, int], pad: int = 4) -> tuple[int, int, int, int] | None:
        """The output-image box covering canvas box ``roi_u`` (None if it falls outside)."""
        x0, y0, x1, y1 = roi_u
        n = 9
        xs = np.linspace(x0, x1, n)
        ys = np.linspace(y0, y1, n)
        pts = np.concatenate([np.stack([xs, np.full(n, y0)], 1), np.stack([xs, np.full(n, y1)], 1),
                              np.stack([np.full(n, x0), ys], 1), np.stack([np.full(n, x1), ys], 1)])
        d = self.distort_u(pts)
        a = np.floor(d.min(0)).astype(int) - pad
        b = np.ceil(d.max(0)).astype(int) + pad
        a = np.maximum(a, 0)
        b = np.minimum(b, [self.width, self.height])
        if b[0] <= a[0] or b[1] <= a[1]:
            return None
        return int(a[0]), int(a[1]), int(b[0]), int(b[1])

    def to_json(self) -> dict[str, Any]:
        rvec, _ = cv2.Rodrigues(self.R)
        return {
            "width": self.width, "height": self.height,
            "K": np.round(self.K, 4).tolist(), "dist": np.round(self.dist, 6).tolist(),
            "rvec": np.round(rvec.ravel(), 6).tolist(), "tvec": np.round(self.t, 4).tolist(),
            "R": np.round(self.R, 6).tolist(),
            "tilt_deg": round(self.tilt_deg, 3), "azimuth_deg": round(self.azimuth_deg, 3),
            "roll_deg": round(self.roll_deg, 3), "distance_mm": round(self.distance, 2),
            "target_mm": [round(v, 2) for v in self.target],
            "fov_deg": round(math.degrees(2 * math.atan(self.width / 2 / self.K[0, 0])), 3),
            "card_px": round(self.card_px(), 2),
            "coordinates": "table mm: X right, Y away from the player, Z up; table plane Z=0",
        }


@dataclass
class Photometrics:
    """Per-scene light and sensor: exposure, white balance, lamp falloff, vignette, soft cast shadows,
    glare, blur, noise and JPEG quality. Gain maps and noise tiles are precomputed once."""

    exposure: float = 1.0
    wb: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    vignette: float = 0.3
    lamp: tuple[float, float, float, float] = (0.5, 0.3, 0.8, 0.4)  # centre x, y (0..1), radius, strength
    shadows: list[tuple[float, float, float, float, float]] = field(default_factory=list)  # x, y, rx, ry, depth
    glare: list[tuple[float, float, float, float]] = field(default_factory=list)  # x, y, radius, strength (0..1)
    blur_sigma: float = 0.7
    noise_sigma: float = 3.0
    jpeg_quality: int = 80
    light_dir: tuple[float, float] = (0.12, -0.18)  # shadow offset per mm of height (table X, Y)
    gamma: float = 1.0
    seed: int = 0
    _gain: np.ndarray | None = field(default=None, repr=False)
    _glare: np.ndarray | None = field(default=None, repr=False)
    _noise: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _lut: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def random(cls, rng: np.random.Generator, strength: float = 1.0) -> "Photometrics":
        warm = rng.uniform(-1, 1)
        wb = (1.0 - 0.12 * warm * strength + rng.normal(0, 0.03), 1.0 + rng.normal(0, 0.02),
              1.0 + 0.10 * warm * strength + rng.normal(0, 0.03))
        shadows = []
        for _ in range(int(rng.integers(0, 3))):
            shadows.append((float(rng.uniform(-0.1, 1.1)), float(rng.uniform(-0.1, 1.1)), float(rng.uniform(0.15, 0.5)),
                            float(rng.uniform(0.1, 0.4)), float(rng.uniform(0.1, 0.35) * strength)))
        glare = []
        for _ in range(int(rng.integers(0, 3))):
            glare.append((float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.04, 0.15)),
                          float(rng.uniform(0.15, 0.6) * strength)))
        return cls(
            exposure=float(np.clip(rng.normal(1.0, 0.15 * strength), 0.6, 1.35)),
            wb=tuple(float(v) for v in wb),  # type: ignore[arg-type]
            vignette=float(rng.uniform(0.1, 0.55) * strength),
            lamp=(float(rng.uniform(-0.2, 1.2)), float(rng.uniform(-0.3, 1.0)), float(rng.uniform(0.5, 1.3)),
                  float(rng.uniform(0.0, 0.5) * strength)),
            shadows=shadows, glare=glare,
            blur_sigma=float(rng.uniform(0.4, 1.1)),
            noise_sigma=float(rng.uniform(1.0, 5.0) * strength),
            jpeg_quality=int(rng.integers(55, 95)),
            light_dir=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.35, 0.05))),
            gamma=float(rng.uniform(0.9, 1.1)),
            seed=int(rng.integers(0, 2**31)),
        )

    def gain(self, width: int, height: int) -> np.ndarray:
        """(H, W, 3) float32 multiplier: exposure x white balance x lamp x vignette x soft shadows."""
        if self._gain is not None and self._gain.shape[:2] == (height, width):
            return self._gain
        sw, sh = max(8, width // 8), max(8, height // 8)
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        u, v = (xs + 0.5) / sw, (ys + 0.5) / sh
        a = width / height
        r2 = ((u - 0.5) * a) ** 2 + (v - 0.5) ** 2
        g = 1.0 - self.vignette * np.clip(r2 / (0.25 * (a * a + 1)), 0, 1) ** 1.2
        lx, ly, lr, ls = self.lamp
        d2 = ((u - lx) * a) ** 2 + (v - ly) ** 2
        g *= (1.0 - ls) + ls * np.exp(-d2 / (2 * lr * lr)) * 1.25
        for sx, sy, rx, ry, depth in self.shadows:
            e = ((u - sx) / rx) ** 2 + ((v - sy) / ry) ** 2
            g *= 1.0 - depth * np.exp(-e * 2.0)
        g = g * self.exposure
        g = cv2.resize(g, (width, height), interpolation=cv2.INTER_LINEAR)
        self._gain = np.ascontiguousarray(np.dstack([g * self.wb[0], g * self.wb[1], g * self.wb[2]]).astype(np.float32))
        return self._gain

    def glare_map(self, width: int, height: int) -> np.ndarray:
        """(H, W) float32 additive highlight (0..255 scale) for glossy card surfaces."""
        if self._glare is not None and self._glare.shape == (height, width):
            return self._glare
        sw, sh = max(8, width // 4), max(8, height // 4)
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        u, v = (xs + 0.5) / sw, (ys + 0.5) / sh
        a = width / height
        m = np.zeros((sh, sw), np.float32)
        for gx, gy, gr, gs in self.glare:
            d2 = ((u - gx) * a) ** 2 + (v - gy) ** 2
            m += gs * 255 * np.exp(-d2 / (2 * gr * gr)) ** 1.5
        self._glare = cv2.resize(m, (width, height), interpolation=cv2.INTER_LINEAR)
        return self._glare

    def apply(self, img: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Blur + gain on an output-image patch (``roi`` says where it lies in the full image)."""
        h, w = img.shape[:2]
        if roi is None:
            roi = (0, 0, w, h)
        x0, y0, x1, y1 = roi
        out = img
        if self.blur_sigma > 0.05:
            out = cv2.GaussianBlur(out, (0, 0), self.blur_sigma)
        full = self._gain
        assert full is not None, "call gain(width, height) first"
        g = full[y0:y1, x0:x1]
        if abs(self.gamma - 1.0) > 1e-3:
            if self._lut is None:
                self._lut = np.clip(255.0 * (np.arange(256) / 255.0) ** self.gamma + 0.5, 0, 255).astype(np.uint8)
            out = cv2.LUT(out, self._lut)
        return cv2.multiply(out, g, dtype=cv2.CV_8U)

    def noise_tiles(self, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
        """Positive and negative uint8 noise planes (a bit larger than the image, for random offsets)."""
        if self._noise is None:
            n = _unit_noise(height + 32, width + 32, self.seed % 4) * self.noise_sigma
            pos = np.clip(n, 0, 255).astype(np.uint8)
            neg = np.clip(-n, 0, 255).astype(np.uint8)
            self._noise = (pos, neg)
        return self._noise

    def add_noise(self, img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Add temporal sensor noise in place (saturating)."""
        if self.noise_sigma <= 0.05:
            return img
        h, w = img.shape[:2]
        pos, neg = self.noise_tiles(w, h)
        ox, oy = int(rng.integers(0, 32)), int(rng.integers(0, 32))
        cv2.add(img, pos[oy:oy + h, ox:ox + w], dst=img)
        ox, oy = int(rng.integers(0, 32)), int(rng.integers(0, 32))
        cv2.subtract(img, neg[oy:oy + h, ox:ox + w], dst=img)
        return img

    def jpeg(self, img: np.ndarray) -> np.ndarray:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(self.jpeg_quality)])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img

    def to_json(self) -> dict[str, Any]:
        return {
            "exposure": round(self.exposure, 4), "white_balance_bgr": [round(v, 4) for v in self.wb],
            "vignette": round(self.vignette, 4), "lamp": [round(v, 4) for v in self.lamp],
            "shadows": [[round(v, 4) for v in s] for s in self.shadows],
            "glare": [[round(v, 4) for v in s] for s in self.glare],
            "blur_sigma": round(self.blur_sigma, 4), "noise_sigma": round(self.noise_sigma, 4),
            "jpeg_quality": self.jpeg_quality, "light_dir": [round(v, 4) for v in self.light_dir],
            "gamma": round(self.gamma, 4),
        }


_NOISE_BANK: dict[tuple[int, int, int], np.ndarray] = {}


def _unit_noise(h: int, w: int, k: int) -> np.ndarray:
    """Unit-sigma sensor noise (chroma + luma, slightly correlated), cached per size."""
    key = (h, w, k)
    n = _NOISE_BANK.get(key)
    if n is None:
        rng = np.random.default_rng(1000 + k)
        n = rng.standard_normal((h, w, 3), dtype=np.float32) + 0.6 * rng.standard_normal((h, w, 1), dtype=np.float32)
        n = cv2.GaussianBlur(n, (0, 0), 0.6)
        n *= 1.0 / (float(n.std()) + 1e-6)
        if len(_NOISE_BANK) > 8:
            _NOISE_BANK.pop(next(iter(_NOISE_BANK)))
        _NOISE_BANK[key] = n
    return n
