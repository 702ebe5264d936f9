"""Frame sources: folders, videos, image files, cameras (faked), disconnects, the demo, the writer."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.sources import (ArraySource, CaptureSource, DemoSource, Frame, ImageFilesSource, SourceDisconnected,
                                      SourceError, VideoWriter, list_cameras, open_source, parse_demo_spec)


def _img(i: int, w: int = 64, h: int = 48) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :, 1] = 20 * i % 256
    cv2.putText(img, str(i), (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return img


# -- folders and image files ---------------------------------------------------------------------
def test_folder_natural_order_times_and_skipped(tmp_path: Path) -> None:
    for i in (1, 2, 10, 3):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), _img(i))
    (tmp_path / "frame4.png").write_bytes(b"not a png at all")  # corrupt: skipped and counted
    (tmp_path / "notes.txt").write_text("ignored")
    with open_source(tmp_path, fps=10) as src:
        assert isinstance(src, ImageFilesSource) and len(src) == 5
        frames = list(src)
        assert src.skipped == 1
        assert src.state == "ended"
    names = [p.name for p in src.paths]
    assert names == ["frame1.png", "frame2.png", "frame3.png", "frame4.png", "frame10.png"]
    assert [f.index for f in frames] == [0, 1, 2, 4]
    assert [f.time_s for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.4])
    assert all(isinstance(f, Frame) and f.image.shape == (48, 64, 3) and f.image.dtype == np.uint8 for f in frames)
    assert int(frames[3].image[0, 0, 1]) == 200  # frame10: green = 20 * 10


def test_folder_without_images_and_missing_path(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="has no images"):
        open_source(tmp_path)
    with pytest.raises(SourceError, match="no such file or folder"):
        open_source(tmp_path / "missing.mp4")


def test_image_file_is_one_frame_and_grey_becomes_bgr(tmp_path: Path) -> None:
    path = tmp_path / "one.png"
    cv2.imwrite(str(path), np.full((10, 12), 77, np.uint8))
    frames = list(open_source(str(path)))
    assert len(frames) == 1 and frames[0].image.shape == (10, 12, 3) and frames[0].size == (12, 10)
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8 junk")
    with pytest.raises(SourceError, match="not an image"):
        open_source(bad)


def test_array_source_skips_none() -> None:
    src = ArraySource([_img(0), None, _img(2)], fps=4)
    assert [(f.index, f.time_s) for f in src] == [(0, 0.0), (2, 0.5)]
    assert src.skipped == 1


# -- video -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["clip.mp4", "clip.avi"])
def test_video_written_then_read(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with VideoWriter(path, fps=12.5) as w:
        for i in range(8):
            w.write(_img(i, 96, 64))
    assert w.frames == 8
    with open_source(path) as src:
        assert not src.live and src.fps == pytest.approx(12.5)
        frames = list(src)
        assert src.state == "ended" and src.skipped == 0
    assert src.state == "closed"
    assert [f.index for f in frames] == list(range(8))
    assert frames[4].time_s == pytest.approx(4 / 12.5)
    assert frames[0].image.shape == (64, 96, 3)
    # the content survives the codec
    assert abs(int(frames[5].image[:, :, 1].mean()) - 100) < 12


def test_video_writer_rejects_unknown_extension(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"\.mp4 or \.avi"):
        VideoWriter(tmp_path / "x.mkv")


class FakeCap:
    """A stand-in for cv2.VideoCapture: a script of reads (an image, or None for a failed read)."""

    def __init__(self, reads: list, opened: bool = True, fps: float = 25.0, count: int | None = None) -> None:
        self.reads = list(reads)
        self.opened = opened
        self.props = {cv2.CAP_PROP_FPS: fps, cv2.CAP_PROP_FRAME_COUNT: float(count if count is not None else len(reads))}
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def read(self):  # noqa: ANN201
        if not self.reads:
            return False, None
        r = self.reads.pop(0)
        return (r is not None), r

    def get(self, prop: int) -> float:
        return self.props.get(prop, 0.0)

    def set(self, prop: int, value: float) -> bool:
        return True

    def release(self) -> None:
        self.released = True


def test_video_frames_that_fail_to_decode_are_skipped_and_counted() -> None:
    reads = [_img(0), None, _img(2), None, None, _img(5)]
    cap = FakeCap(reads, count=6)
    src = CaptureSource("game.mp4", live=False, capture_factory=lambda t: cap)
    frames = list(src)
    assert [f.index for f in frames] == [0, 2, 5]
    assert frames[2].time_s == pytest.approx(5 / 25)
    assert src.skipped == 3 and src.state == "ended"
    src.close()
    assert cap.released and src.state == "closed"


# -- cameras ---------------------------------------------------------------------------------------
def test_missing_camera_names_the_cameras_found() -> None:
    def factory(i):  # noqa: ANN001, ANN202
        return FakeCap([_img(0)], opened=(i in (2, 5)))

    with pytest.raises(SourceError) as exc:
        CaptureSource(0, capture_factory=factory)
    assert str(exc.value).startswith("cannot open camera 0; cameras found: 2, 5")
    assert list_cameras(opener=factory) == [2, 5]
    with pytest.raises(SourceError, match=r"no cameras found \(checked 0..9\)"):
        CaptureSource(1, capture_factory=lambda i: FakeCap([], opened=False))


@pytest.mark.skipif(os.path.exists("/dev/video7"), reason="this machine has a camera 7")
def test_missing_real_camera_is_one_clear_error() -> None:
    with pytest.raises(SourceError, match="cannot open camera 7"):
        open_source("7")


class Clock:
    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.t += s


def test_camera_that_stops_is_reported_and_reconnected() -> None:
    caps = [FakeCap([_img(0), _img(1), None, None, None]),  # then stops
            FakeCap([], opened=False), FakeCap([], opened=False),  # unplugged
            FakeCap([_img(7), _img(8)] + [None] * 3)]  # back
    clock = Clock()
    events: list[tuple[str, str]] = []

    def factory(i):  # noqa: ANN001, ANN202
        return caps.pop(0) if caps else FakeCap([], opened=False)

    src = CaptureSource(0, capture_factory=factory, on_status=lambda s, m: events.append((s, m)),
                        reconnect_timeout=3.0, sleep=clock.sleep, clock=clock)
    frames = []
    with pytest.raises(SourceDisconnected, match="camera 0 stopped delivering frames and did not come back within 3 s"):
        for f in src:
            frames.append(f)
    assert [int(f.image[0, 0, 1]) for f in frames] == [0, 20, 140, 160]
    assert [f.index for f in frames] == [0, 1, 2, 3]
    states = [s for s, _ in events]
    assert states[:2] == ["disconnected", "open"] and states[-2:] == ["disconnected", "ended"]
    assert src.disconnects == 2
    # backoff: waits grow
    waits = [s for s in clock.sleeps if s > 0.05]
    assert waits[:2] == [0.25, 0.5]  # the first outage: 0.25 s, then 0.5 s, then it is back


# -- specs and the demo --------------------------------------------------------------------------------
def test_parse_demo_spec() -> None:
    assert parse_demo_spec("demo") == 1 and parse_demo_spec("DEMO:7") == 7 and parse_demo_spec("demos") is None


def test_bad_specs() -> None:
    with pytest.raises(SourceError, match="empty source"):
        open_source("  ")
    with pytest.raises(SourceError, match="not a source"):
        open_source(True)  # type: ignore[arg-type]


def test_demo_source_renders_frames() -> None:
    pytest.importorskip("companion.synth.record", reason="the simulator (companion.synth) is not importable")
    assert isinstance(open_source("demo:3"), DemoSource) and open_source("demo").seed == 1
    with DemoSource(3, resolution=(320, 180), max_moves=2) as src:
        it = iter(src)
        frames = [next(it) for _ in range(3)]
    assert frames[2].index == 2 and frames[2].time_s == pytest.approx(2 / 30)
    assert frames[0].image.shape == (180, 320, 3)
    assert len(src) > 30
    with pytest.raises(SourceError, match="cannot render demo game 3"):
        len(DemoSource(3, resolution=(100, 100)))


def test_stream_is_live_and_a_dead_url_is_one_clear_error() -> None:
    src = CaptureSource("rtsp://cam.local/live", capture_factory=lambda t: FakeCap([_img(1)]))
    assert src.live and src.name == "rtsp://cam.local/live"
    with pytest.raises(SourceError, match="cannot open stream rtsp://cam.local/live: check the URL"):
        CaptureSource("rtsp://cam.local/live", capture_factory=lambda t: FakeCap([], opened=False))


def test_a_camera_is_asked_for_1920x1080_in_mjpg_and_a_smaller_one_is_named() -> None:
    """A webcam's own default is often 640x480, where a clock layout's cards are too small to read; 1080p
    over USB 2 needs MJPG for the full frame rate."""
    from companion.vision.sources import CAMERA_SIZE

    class SizedCap(FakeCap):
        def __init__(self, largest):  # noqa: ANN001
            super().__init__([_img(0)])
            self.largest, self.asked = largest, {}

        def set(self, prop: int, value: float) -> bool:
            self.asked[prop] = value
            return True

        def get(self, prop: int) -> float:
            limit = {cv2.CAP_PROP_FRAME_WIDTH: self.largest[0], cv2.CAP_PROP_FRAME_HEIGHT: self.largest[1]}
            if prop in limit:
                return float(min(self.asked.get(prop, limit[prop]), limit[prop]))
            return super().get(prop)

    big = SizedCap((1920, 1080))
    src = CaptureSource(0, capture_factory=lambda t: big)
    assert CAMERA_SIZE == (1920, 1080)
    assert (big.asked[cv2.CAP_PROP_FRAME_WIDTH], big.asked[cv2.CAP_PROP_FRAME_HEIGHT]) == CAMERA_SIZE
    assert big.asked[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    assert src.size_warning is None
    small = SizedCap((640, 480))
    src = CaptureSource(0, capture_factory=lambda t: small)
    assert src.size_warning is not None and "640x480" in src.size_warning and "1920x1080" in src.size_warning
    asked = SizedCap((640, 480))
    src = CaptureSource(0, width=640, height=480, capture_factory=lambda t: asked)
    assert asked.asked[cv2.CAP_PROP_FRAME_WIDTH] == 640 and src.size_warning is None
    assert cv2.CAP_PROP_FOURCC not in asked.asked  # a small size asked for: the camera's own format
    video = SizedCap((320, 240))
    assert CaptureSource("game.mp4", live=False, capture_factory=lambda t: video).size_warning is None
    assert video.asked == {}
