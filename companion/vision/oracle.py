"""An *oracle recogniser* for rendered games: each frame's true visible cards as :class:`Detections`.

It reads the simulator's own frame descriptions (:class:`companion.synth.scene.FrameSpec`), not the
pixels, so it checks the watcher's event logic independently of recognition accuracy (and stands in
for the ONNX models before they are trained). A face-up card is reported when one of its index
corners is at least ``read_visible`` uncovered and inside the image (the recording's own rule for
"readable"), with its rank and suit; when it is only partly visible (``seen_visible``) it is
reported with rank and suit unknown; a face-down card (a stack's top card, or a card held face
down) is reported when ``seen_visible`` of it shows. Optional ``misread`` and ``drop`` rates (with
a seed) make it imperfect in a controlled way, to test the watcher's hysteresis; ``size_noise`` scales
every quad by a random factor (the trained detector's quads vary about +-20% in size).
"""

from __future__ import annotations

import math
import random
from typing import Any, Sequence

import numpy as np

from ..cards import FULL_DECK, Card
from .detections import SUIT_CODES, Detections
from .geometry import up_to_angle

__all__ = ["OracleRecogniser", "truth_layout"]


class OracleRecogniser:
    """``OracleRecogniser(scene, frame_specs)(frame) -> Detections`` where ``frame.index`` picks the spec."""

    def __init__(self, scene: Any, specs: Sequence[Any], *, read_visible: float = 0.95, seen_visible: float = 0.5,
                 misread: float = 0.0, drop: float = 0.0, seed: int = 0, scale: float = 1.0,
                 size_noise: float = 0.0) -> None:
        self.scene = scene
        self.specs = specs
        self.read_visible = read_visible
        self.seen_visible = seen_visible
        self.misread = misread
        self.drop = drop
        self.seed = seed
        self.scale = scale  # image scale relative to the scene's camera (frames resized by the caller)
        self.size_noise = size_noise  # each quad scaled about its centre by a factor in 1 +- this (uniform)
        self.calls = 0

    # frames may come as Frame objects or plain indices
    def __call__(self, frame: Any) -> Detections:
        index = frame if isinstance(frame, (int, np.integer)) else frame.index
        self.calls += 1
        if not 0 <= index < len(self.specs):
            return Detections.empty()
        return self.detect(int(index))

    # -- geometry -------------------------------------------------------------------------------
    def _visible(self, quad: np.ndarray, occluders: list[np.ndarray], ss: int = 3) -> float:
        """Uncovered fraction of a projected quad; 0 unless it lies inside the image."""
        from ..synth.record import uncovered_in_frame

        return uncovered_in_frame(self.scene.cam, quad, occluders, ss)

    def detect(self, index: int) -> Detections:
        from ..synth.scene import face_visible, index_quads_mm

        sc = self.scene
        cam = sc.cam
        spec = self.specs[index]
        rng = random.Random(self.seed * 1_000_003 + index)
        layers = sc.frame_layers(spec)
        proj: list[np.ndarray] = []
        for kind, obj in layers:
            pts = obj.corners if kind == "card" else obj
            proj.append(cam.project(pts))
        rows = []
        for i, (kind, it) in enumerate(layers):
            if kind != "card":
                continue
            occ = proj[i + 1:]
            q = proj[i]
            is_face = it.card is not None and face_visible(it.corners, sc.cam_center)
            if is_face:
                boxes = sc.tex.boxes_frac(it.card)
                best, best_q, ends = 0.0, None, set()  # ends: top or bottom half, of the indices shown
                for iq, bf in zip(index_quads_mm(it.corners, boxes), boxes):
                    qq = cam.project(iq)
                    v = self._visible(qq, occ)
                    if v >= self.seen_visible:
                        ends.add(bf[1] + bf[3] < 1.0)
                    if v > best:
                        best, best_q = v, qq
                if best < self.seen_visible or best_q is None:
                    continue
                if self.drop and rng.random() < self.drop:
                    continue
                card: Card | None = it.card
                conf = 0.99
                if best < self.read_visible:
                    card, conf = None, 0.5
                elif self.misread and rng.random() < self.misread:
                    card = rng.choice([c for c in FULL_DECK if c != it.card])
                    conf = 0.95
                quad = q
                box = (best_q[:, 0].min(), best_q[:, 1].min(), best_q[:, 0].max(), best_q[:, 1].max())
                rank = int(card.rank.value) if card else 0
                suit = SUIT_CODES.index(card.suit.value) if card else -1
                rows.append((quad, box, rank, suit, conf, conf, True, len(ends) == 2))
            else:
                if it.role == "down" and it.slot != spec.state.down[it.pile] - 1:
                    continue  # only a stack's top card shows
                v = self._visible(q, occ, ss=1)
                if v < self.seen_visible:
                    continue
                quad = q[[1, 0, 3, 2]] if it.card is not None or it.role in ("down", "held") else q
                rows.append((quad, (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()), 0, -1, 0.0, 0.0, False,
                             False))
        out = []
        for quad, box, rank, suit, rc, sc, fu, both in rows:
            qd = np.asarray(quad, np.float32).reshape(4, 2) * self.scale
            if self.size_noise:
                c = qd.mean(axis=0)
                qd = c + (qd - c) * np.float32(1.0 + rng.uniform(-self.size_noise, self.size_noise))
            u = (qd[0] + qd[1]) / 2 - (qd[3] + qd[2]) / 2
            n = float(np.hypot(*u)) or 1.0
            out.append((qd, np.asarray(box, np.float32) * self.scale, rank, suit, rc, sc, fu,
                        up_to_angle(u[0] / n, u[1] / n), both))
        return Detections.from_rows(out)


def truth_layout(scene: Any) -> Any:
    """The vision :class:`~companion.vision.layout.Layout` of a rendered scene, from its true geometry."""
    from ..synth.scene import card_corners
    from .layout import layout_from_points

    cam = scene.cam
    L = scene.layout
    pts, hs = [], []
    for p in range(1, 14):
        x, y, a, z = L.stack_pose(p, 0)
        c = cam.project(card_corners(float(L.pos[p][0]), float(L.pos[p][1]), a))
        pts.append(c.mean(0))
        hs.append(float((np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2))
    lay = layout_from_points(pts, (cam.width, cam.height), card_h=hs)
    # outward directions as the scene fans them (the centre's is between two hours)
    out = []
    for p in range(1, 14):
        a = cam.project(np.array([[*L.pos[p], 0.0]]))[0]
        b = cam.project(np.array([[*(L.pos[p] + L.out[p] * 40.0), 0.0]]))[0]
        d = b - a
        out.append(d / (math.hypot(*d) or 1.0))
    lay.outward = np.array(out)
    lay._regions = {}
    return lay


class RenderedGame:
    """A game planned and rendered in memory (no files): ``frames()`` yields
    :class:`~companion.vision.sources.Frame`; ``truth`` is the recording's truth (as in ``truth.json``);
    ``oracle`` the oracle recogniser; ``layout`` the true pile layout. ``transform(index, image)``
    (optional) changes each rendered image (a lighting change, a camera that moves...)."""

    def __init__(self, seed: int, *, resolution: tuple[int, int] = (640, 360), fps: int = 30,
                 transform: Any = None, **build_kwargs: Any) -> None:
        from ..synth import record

        self.seed = seed
        self.fps = fps
        self.scene, self.director = record.build(seed, resolution=resolution, fps=fps, **build_kwargs)
        self.truth = record.truth_of(self.scene, self.director, fps=fps, deck=build_kwargs.get("deck", "builtin"))
        self.oracle = OracleRecogniser(self.scene, self.director.frames)
        self.layout = truth_layout(self.scene)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.director.frames)

    def frames(self, limit: int | None = None) -> Any:
        from ..synth import record
        from .sources import Frame

        specs = self.director.frames if limit is None else self.director.frames[:limit]
        for i, img in enumerate(record.render_frames(self.scene, specs, self.seed)):
            if self.transform is not None:
                img = self.transform(i, img)
            yield Frame(i, i / self.fps, img)

    def expected(self) -> list[tuple[list[Any], str]]:
        """The truth's (event, verdict) sequence."""
        return [(e["event"], e["verdict"]) for e in self.truth["events"]]
