"""Layout: automatic from face-down piles (incl. a tilted camera), JSON files, regions, re-registration, CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.detections import Detections
from companion.vision.geometry import card_quad
from companion.vision.layout import (TWELVE_SIDES, Layout, LayoutError, LayoutTracker, click_piles, display_available,
                                     layout_from_detections, layout_from_points)

SIZE = (1280, 720)


def make_dets(quads: list[np.ndarray], face_up: list[bool] | None = None) -> Detections:
    n = len(quads)
    return Detections(
        quads=np.asarray(quads, np.float32).reshape(n, 4, 2), index_boxes=np.zeros((n, 4), np.float32),
        rank=np.zeros(n, np.int8), suit=np.full(n, -1, np.int8), rank_confidence=np.zeros(n, np.float32),
        suit_confidence=np.zeros(n, np.float32),
        face_up=np.zeros(n, bool) if face_up is None else np.array(face_up, bool), angle=np.zeros(n, np.float32))


def tilt_homography(tilt_deg: float, turn_deg: float = 0.0, scale: float = 0.9, centre=(640, 380)) -> np.ndarray:
    """Table mm -> image px for a camera tilted ``tilt_deg`` about the image's x axis (a pinhole camera;
    the top of the image is the far side)."""
    t, r = -math.radians(tilt_deg), math.radians(turn_deg)
    R_turn = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    R_tilt = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    f, dist = 900.0, 1100.0
    R = R_tilt @ R_turn
    # plane z=0 point (x, y) -> camera: R @ (x, y, 0) + (0, 0, dist)
    M = np.column_stack([R[:, 0], R[:, 1], [0, 0, dist]])
    K = np.array([[f * scale, 0, centre[0]], [0, f * scale, centre[1]], [0, 0, 1]])
    return K @ M


def clock_table(twelve_dir_deg: float = 0.0, radius: float = 180.0, rng: np.random.Generator | None = None,
                piles: range | list[int] = range(1, 14)) -> dict[int, np.ndarray]:
    """Pile centres in table mm (x right, y down): pile 12 toward ``twelve_dir_deg`` clockwise from up."""
    out = {}
    for p in piles:
        if p == 13:
            out[p] = np.zeros(2)
            continue
        a = math.radians(twelve_dir_deg + 30 * p)
        out[p] = radius * np.array([math.sin(a), -math.cos(a)])
        if rng is not None:
            out[p] = out[p] + rng.normal(0, 6, 2)
    return out


def stacks_to_dets(table: dict[int, np.ndarray], H: np.ndarray, rng: np.random.Generator,
                   per_stack: int = 4) -> tuple[Detections, dict[int, np.ndarray]]:
    """Detections of the face-down stacks (each card of a stack detected, a little offset), and the
    true image centre of each pile."""
    quads, truth = [], {}
    for p, c in table.items():
        u = c / np.linalg.norm(c) if np.linalg.norm(c) > 1 else np.array([0.0, -1.0])
        for k in range(per_stack):
            q_mm = card_quad(tuple(c + rng.normal(0, 0.8, 2)), (u[0], u[1]), 88.0)
            quads.append(cv2.perspectiveTransform(q_mm.reshape(-1, 1, 2).astype(np.float64), H).reshape(4, 2))
        truth[p] = cv2.perspectiveTransform(c.reshape(1, 1, 2).astype(np.float64), H).reshape(2)
    order = rng.permutation(len(quads))
    return make_dets([quads[i] for i in order]), truth


# -- automatic layout ----------------------------------------------------------------------------------
@pytest.mark.parametrize("twelve_at,turn", [("top", 0.0), ("right", 90.0), ("bottom", 180.0), ("left", 270.0)])
def test_auto_layout_numbers_clockwise_from_each_side(twelve_at: str, turn: float) -> None:
    rng = np.random.default_rng(3)
    table = clock_table(turn + rng.normal(0, 5), rng=rng)
    dets, truth = stacks_to_dets(table, tilt_homography(10), rng)
    lay = layout_from_detections(dets, SIZE, twelve_at)
    for p in range(1, 14):
        assert np.linalg.norm(lay.centres[p - 1] - truth[p]) < 2.0, p
    assert lay.twelve_at == twelve_at and lay.method == "auto"
    v = lay.centres[11] - lay.centres[12]
    assert np.dot(v / np.linalg.norm(v), TWELVE_SIDES[twelve_at]) > 0.9
    # outward: away from the centre for the clock piles
    for p in range(1, 13):
        d = lay.centres[p - 1] - lay.centres[12]
        assert np.dot(lay.outward[p - 1], d / np.linalg.norm(d)) > 0.999
    assert 55 < lay.card_h < 120 and lay.card_w == pytest.approx(lay.card_h * 63 / 88, rel=0.15)


@pytest.mark.parametrize("roll, tilt", [(30.0, 10.0), (-32.0, 25.0), (60.0, 0.0)])
def test_auto_layout_numbering_survives_a_rolled_camera_when_cards_lie_upright(roll: float, tilt: float) -> None:
    """Cards laid upright all point to 12 o'clock: with the camera rolled 30-60 degrees the pile nearest
    the top of the image is 11 or 1, but the cards still say which one is 12."""
    rng = np.random.default_rng(int(abs(roll)))
    table = clock_table(roll, rng=rng)
    up = (math.sin(math.radians(roll)), -math.cos(math.radians(roll)))  # the clock's 12 direction on the table
    H = tilt_homography(tilt)
    quads, truth = [], {}
    for p, c in table.items():
        for _ in range(2):
            q = card_quad(tuple(c + rng.normal(0, 0.8, 2)), up, 88.0)
            quads.append(cv2.perspectiveTransform(q.reshape(-1, 1, 2).astype(np.float64), H).reshape(4, 2))
        truth[p] = cv2.perspectiveTransform(c.reshape(1, 1, 2).astype(np.float64), H).reshape(2)
    lay = layout_from_detections(make_dets(quads), SIZE, "top")
    for p in range(1, 14):
        assert np.linalg.norm(lay.centres[p - 1] - truth[p]) < 2.0, p
    # radially laid cards say nothing: then 12 is the pile nearest the top (here 11 or 1, as documented)
    dets, _ = stacks_to_dets(table, H, rng, per_stack=2)
    radial = layout_from_detections(dets, SIZE, "top")
    called_12 = min(range(1, 13), key=lambda p: float(np.linalg.norm(truth[p] - radial.centres[11])))
    nearest_top = max(range(1, 13), key=lambda p: float(np.dot((truth[p] - truth[13]) / np.linalg.norm(truth[p] - truth[13]),
                                                               TWELVE_SIDES["top"])))
    assert called_12 == nearest_top != 12


@pytest.mark.parametrize("tilt", [25.0, 35.0])
def test_auto_layout_with_a_tilted_camera_and_strays(tilt: float) -> None:
    rng = np.random.default_rng(int(tilt))
    H = tilt_homography(tilt, turn_deg=12.0)
    table = clock_table(0.0, rng=rng)
    dets, truth = stacks_to_dets(table, H, rng, per_stack=1)
    # a stray card far out on the table, and a face-up card (ignored)
    stray = cv2.perspectiveTransform(card_quad((420.0, 300.0), (0, -1), 88.0).reshape(-1, 1, 2).astype(np.float64), H)
    up = cv2.perspectiveTransform(card_quad((60.0, 60.0), (0, -1), 88.0).reshape(-1, 1, 2).astype(np.float64), H)
    dets = Detections.concat([dets, make_dets([stray.reshape(4, 2)]), make_dets([up.reshape(4, 2)], [True])])
    # the ellipse really is an ellipse
    ring = np.array([truth[p] for p in range(1, 13)])
    (_, _), (w, h), _ = cv2.fitEllipse(ring.astype(np.float32))
    assert min(w, h) / max(w, h) < math.cos(math.radians(tilt)) + 0.03
    lay = layout_from_detections(dets, SIZE, "top")
    err = max(np.linalg.norm(lay.centres[p - 1] - truth[p]) for p in range(1, 14))
    assert err < 2.0
    # far piles look smaller
    assert lay.pile_card_h[11] < lay.pile_card_h[5]


def test_found_11_piles_says_what_to_do() -> None:
    rng = np.random.default_rng(1)
    table = clock_table(rng=rng, piles=[1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13])
    dets, _ = stacks_to_dets(table, tilt_homography(0), rng)
    with pytest.raises(LayoutError) as exc:
        layout_from_detections(dets, SIZE)
    assert str(exc.value) == "found 11 piles, need 13: make sure every pile is in view and not covered"
    with pytest.raises(LayoutError, match="found no face-down piles"):
        layout_from_detections(Detections.empty(), SIZE)


def test_no_centre_pile_or_no_circle() -> None:
    rng = np.random.default_rng(2)
    table = clock_table(rng=rng)
    table[13] = np.array([700.0, 0.0])  # the 13th pile far away, not in the middle
    dets, _ = stacks_to_dets(table, tilt_homography(0, scale=0.5), rng)
    with pytest.raises(LayoutError, match="none in its middle"):
        layout_from_detections(dets, SIZE)
    # a grid of 13 piles is no clock
    grid = {i + 1: np.array([(i % 5) * 120.0 - 240, (i // 5) * 150.0 - 150]) for i in range(13)}
    dets, _ = stacks_to_dets(grid, tilt_homography(0, scale=0.5), rng)
    with pytest.raises(LayoutError, match="circle"):
        layout_from_detections(dets, SIZE)
    with pytest.raises(LayoutError, match="twelve_at"):
        layout_from_detections(dets, SIZE, "up")


def test_auto_layout_against_the_renderers_true_piles() -> None:
    """The simulator's initial layout: every face-down card of every stack as a detection."""
    scene_mod = pytest.importorskip("companion.synth.scene", reason="the simulator (companion.synth) is not importable")
    for seed, tilt in ((0, 0.0), (5, 35.0), (7, 20.0)):
        scene = scene_mod.Scene.random(seed, width=640, height=360, tilt=tilt)
        items = [it for it in scene.state_items(scene_mod.TableState.initial()) if it.role == "down"]
        quads = [scene.cam.project(it.corners[[1, 0, 3, 2]]) for it in items]
        lay = layout_from_detections(make_dets(quads), (640, 360), "top")
        for p in range(1, 14):
            true_c = np.mean([q.mean(axis=0) for q, it in zip(quads, items) if it.pile == p], axis=0)
            assert np.linalg.norm(lay.centres[p - 1] - true_c) < 1.5, (seed, p)
            assert lay.locate(true_c) == p


# -- points, regions, locate ------------------------------------------------------------------------------
def _round_layout() -> Layout:
    pts = [(640 + 200 * math.sin(h * math.pi / 6), 360 - 200 * math.cos(h * math.pi / 6)) for h in range(1, 13)]
    return layout_from_points(pts + [(640, 360)], SIZE)


def test_regions_cover_stack_and_fan_and_do_not_overlap_neighbours() -> None:
    lay = _round_layout()
    h = lay.card_h
    for p in range(1, 14):
        c, u = np.array(lay.centre(p)), np.array(lay.out(p))
        for t in (0.0, 0.4, 0.9, 1.3):  # the stack and the cards slid out beneath it
            assert lay.locate(c + u * t * h) == p, (p, t)
        assert lay.locate(c + u * 3.0 * h) != p
    for p in range(1, 13):
        q = p % 12 + 1
        area, _ = cv2.intersectConvexConvex(lay.pile_region(p), lay.pile_region(q))
        assert area < 1.0
    assert lay.locate((5, 5)) is None
    mask = lay.pile_mask(3)
    assert mask.shape == (720, 1280) and mask[int(lay.centre(3)[1]), int(lay.centre(3)[0])] == 255
    # the centre pile fans toward half past six
    assert lay.out(13)[1] > 0.9 and lay.out(13)[0] < 0


def test_points_error_and_describe() -> None:
    with pytest.raises(LayoutError, match="need 13 pile positions"):
        layout_from_points([(0, 0)] * 12, SIZE)
    lay = _round_layout()
    lines = lay.describe()
    assert len(lines) == 13 and lines[11].startswith("pile 12") and "(  640.0,   160.0)" in lines[11]
    img = lay.draw(np.zeros((720, 1280, 3), np.uint8))
    assert img.shape == (720, 1280, 3) and img.any()


def test_transformed_and_resized() -> None:
    lay = _round_layout()
    half = lay.resized((640, 360))
    assert half.centre(12) == pytest.approx((320, 80)) and half.card_h == pytest.approx(lay.card_h / 2)
    M = cv2.getRotationMatrix2D((640, 360), 90, 1.0)  # counter-clockwise on screen
    rot = lay.transformed(M)
    assert rot.centre(12) == pytest.approx((440, 360), abs=1e-6)
    assert rot.out(12) == pytest.approx((-1, 0), abs=1e-6)


# -- JSON files -----------------------------------------------------------------------------------------
def test_json_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    dets, _ = stacks_to_dets(clock_table(rng=rng), tilt_homography(20), rng)
    lay = layout_from_detections(dets, SIZE, "left")
    lay.homography = tilt_homography(20)
    path = tmp_path / "layout.json"
    lay.save(path)
    back = Layout.load(path)
    assert back.image_size == lay.image_size and back.twelve_at == "left" and back.method == "auto"
    assert np.allclose(back.centres, lay.centres, atol=0.01)
    assert np.allclose(back.outward, lay.outward, atol=1e-3)
    assert np.allclose(back.pile_card_h, lay.pile_card_h, atol=0.01)
    assert np.allclose(back.homography, lay.homography, rtol=1e-6)
    assert back.card_h == pytest.approx(lay.card_h, abs=0.01)
    assert json.loads(path.read_text())["format"] == "companion-layout/1"


def test_the_sample_layouts_load() -> None:
    root = Path(__file__).resolve().parents[2] / "calibration"
    samples = sorted(root.glob("*.json"))
    assert samples, "calibration/ should hold sample layout files"
    for path in samples:
        lay = Layout.load(path)
        assert lay.locate(lay.centre(7)) == 7


@pytest.mark.parametrize("text,message", [
    ("{not json", "is not valid JSON (line 1"),
    ("[]", "not a layout"),
    ('{"format": "something/2"}', "not a layout file (format is 'something/2'"),
    ('{"format": "companion-layout/1", "image_size": [640, 480], "card_h_px": 50, "piles": {}}', "piles 1, 2, 3"),
    ('{"format": "companion-layout/1", "image_size": [640], "card_h_px": 50, "piles": {}}', "image_size must be [x, y]"),
])
def test_bad_layout_file_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(LayoutError) as exc:
        Layout.load(path)
    assert message in str(exc.value) and "\n" not in str(exc.value)
    assert str(exc.value).startswith(f"layout file {path}")


def test_bad_pile_entry_and_missing_file(tmp_path: Path) -> None:
    data = _round_layout().to_json()
    data["piles"]["5"]["centre"] = [1, "x"]
    with pytest.raises(LayoutError, match="pile 5 centre must be a number"):
        Layout.from_json(data)
    with pytest.raises(LayoutError, match="no layout file .*companion calibrate"):
        Layout.load(tmp_path / "none.json")


# -- re-registration ---------------------------------------------------------------------------------------
def _table_picture(lay: Layout, seed: int = 0) -> np.ndarray:
    """A textured table with face-down cards on the piles."""
    rng = np.random.default_rng(seed)
    img = cv2.resize(rng.integers(0, 255, (90, 160), np.uint8), SIZE, interpolation=cv2.INTER_CUBIC)
    img = cv2.GaussianBlur(img, (0, 0), 2)
    for _ in range(60):
        x, y = rng.integers(0, SIZE[0]), rng.integers(0, SIZE[1])
        cv2.circle(img, (int(x), int(y)), int(rng.integers(4, 18)), int(rng.integers(0, 255)), -1)
    img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    for p in range(1, 14):
        q = card_quad(lay.centre(p), lay.out(p), lay.card_h)
        cv2.fillPoly(img, [np.round(q).astype(np.int32)], (150, 60, 20))
    return img


def test_tracker_finds_a_shift_and_rotation() -> None:
    lay = _round_layout()
    ref = _table_picture(lay)
    tracker = LayoutTracker(ref, lay)
    # same view, a little sensor noise: no move
    noisy = np.clip(ref.astype(np.int16) + np.random.default_rng(1).integers(-4, 5, ref.shape), 0, 255).astype(np.uint8)
    assert tracker.check(noisy) is None
    # the camera was nudged: 3 degrees and (25, -14) px
    M = cv2.getRotationMatrix2D((600, 380), 3.0, 1.0)
    M[:, 2] += (25, -14)
    moved = cv2.warpAffine(ref, M, SIZE, borderMode=cv2.BORDER_REFLECT)
    new = tracker.check(moved)
    assert new is not None
    expect = lay.transformed(M)
    assert np.abs(new.centres - expect.centres).max() < 1.5
    assert tracker.layout is new
    # and from the new reference, nothing moved
    assert tracker.check(moved) is None


def test_tracker_phase_correlation_fallback() -> None:
    """A view with too few features for ORB: a shift found by phase correlation."""
    lay = _round_layout()
    rng = np.random.default_rng(5)
    ref = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280), np.uint8), (0, 0), 9)
    ref = cv2.normalize(ref, None, 0, 255, cv2.NORM_MINMAX)
    tracker = LayoutTracker(ref, lay, min_inliers=10_000)  # force the fallback
    moved = np.roll(ref, (9, -12), axis=(0, 1))
    new = tracker.check(moved)
    assert new is not None
    assert new.centre(1) == pytest.approx((lay.centre(1)[0] - 12, lay.centre(1)[1] + 9), abs=0.5)


# -- manual route and the CLI -----------------------------------------------------------------------------
def test_no_display_means_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    assert display_available() is False
    with pytest.raises(LayoutError, match="no display.*--method auto or --method mat"):
        click_piles(np.zeros((10, 10, 3), np.uint8))
    monkeypatch.setenv("DISPLAY", ":97")  # no X server there
    assert display_available() is False


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    import companion.cli.calibrate_cmd  # noqa: F401 - registers calibrate and mat
    from companion.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_cli_calibrate_from_a_photo_of_the_mat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.vision.mat import mat_image

    img = mat_image(1.2)
    n = img.shape[0]
    Hw = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]),
                                     np.float32([[300, 60], [980, 90], [1100, 690], [180, 660]]))
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), cv2.warpPerspective(img, Hw, SIZE, borderValue=(30, 80, 30)))
    out = tmp_path / "layout.json"
    code, stdout, err = _run(["calibrate", str(photo), "--method", "mat", "--out", str(out)], capsys)
    assert code == 0, err
    assert "pile 12" in stdout and f"wrote {out} and {tmp_path / 'layout.png'}" in stdout
    lay = Layout.load(out)
    assert lay.method == "mat" and lay.homography is not None
    assert (tmp_path / "layout.png").exists()


def test_cli_calibrate_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    photo = tmp_path / "blank.png"
    cv2.imwrite(str(photo), np.full((120, 160, 3), 90, np.uint8))
    monkeypatch.setenv("COMPANION_MODELS", str(tmp_path / "no-models"))
    monkeypatch.delenv("DISPLAY", raising=False)
    cases = [
        (["calibrate", str(photo), "--out", str(tmp_path / "l.json")], "--method auto needs the recogniser's models"),
        (["calibrate", str(photo), "--method", "manual"], "no display to click the piles on"),
        (["calibrate", str(photo), "--method", "mat", "--out", str(tmp_path / "l.json")], "found 0 of the 4 mat markers"),
        (["calibrate", str(photo), "--method", "guess"], "--method must be one of auto, mat, manual"),
        (["calibrate", str(photo), "--twelve-at", "north"], "--twelve-at must be one of"),
        (["calibrate", str(tmp_path / "missing.mp4"), "--method", "mat", "--out", str(tmp_path / "l.json")],
         "no such file or folder"),
        (["calibrate", str(photo), "--out", str(tmp_path / "l.txt")], "--out must name a .json file"),
    ]
    for argv, message in cases:
        code, _, err = _run(argv, capsys)
        assert code == 2, argv
        assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


def test_cli_calibrate_auto_with_a_stub_recogniser(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """--method auto end to end on a video, the recogniser replaced by the true face-down quads."""
    import companion.cli.calibrate_cmd as cc
    from companion.vision.sources import VideoWriter

    rng = np.random.default_rng(8)
    H = tilt_homography(15, scale=0.8)
    dets, truth = stacks_to_dets(clock_table(90.0, rng=rng), H, rng)  # pile 12 on the right
    lay0 = layout_from_points([truth[p] for p in range(1, 14)], SIZE)
    video = tmp_path / "table.avi"
    with VideoWriter(video, fps=10) as w:
        for _ in range(4):
            w.write(_table_picture(lay0))
    calls: list[tuple[int, int]] = []

    def fake_recogniser(frame: np.ndarray) -> Detections:
        calls.append(frame.shape[:2])
        return dets

    monkeypatch.setattr(cc, "_load_recogniser", lambda models: fake_recogniser)
    out = tmp_path / "auto.json"
    code, stdout, err = _run(["calibrate", str(video), "--twelve-at", "right", "--frames", "3", "--out", str(out)], capsys)
    assert code == 0, err
    assert calls == [(720, 1280)]  # the last frame read worked
    lay = Layout.load(out)
    assert lay.method == "auto" and lay.twelve_at == "right"
    assert max(np.linalg.norm(lay.centres[p - 1] - truth[p]) for p in range(1, 14)) < 2.0
    assert "12 at the right" in stdout and (tmp_path / "auto.png").exists()


class FakeUI:
    """cv2's window functions, scripted: each waitKey delivers the next click or key."""

    def __init__(self, script: list) -> None:
        self.script = list(script)
        self.callback = None
        self.shown = 0
        self.destroyed = False

    def namedWindow(self, name: str, flags: int = 0) -> None:  # noqa: N802 - cv2's names
        pass

    def setMouseCallback(self, name: str, cb) -> None:  # noqa: N802, ANN001
        self.callback = cb

    def imshow(self, name: str, img: np.ndarray) -> None:
        self.shown += 1

    def waitKey(self, ms: int) -> int:  # noqa: N802
        step = self.script.pop(0) if self.script else 27
        if isinstance(step, tuple):
            self.callback(cv2.EVENT_LBUTTONDOWN, int(step[0]), int(step[1]), 0, None)
            return -1
        return step

    def destroyWindow(self, name: str) -> None:  # noqa: N802
        self.destroyed = True


def test_click_piles_in_order_with_undo() -> None:
    lay = _round_layout()
    order = [12] + list(range(1, 12)) + [13]
    clicks = [tuple(int(v) for v in lay.centre(p)) for p in order]
    script = clicks[:3] + [(5, 5), ord("u")] + clicks[3:] + [13]
    ui = FakeUI(script)
    pts = click_piles(np.zeros((720, 1280, 3), np.uint8), ui=ui)
    assert ui.destroyed and ui.shown == len(script)
    got = layout_from_points(pts, SIZE)
    assert np.abs(got.centres - lay.centres).max() <= 1.0
    assert got.twelve_at == "top" and got.locate(lay.centre(4)) == 4
    with pytest.raises(LayoutError, match="calibration cancelled"):
        click_piles(np.zeros((10, 10, 3), np.uint8), ui=FakeUI([(1, 1), 27]))
