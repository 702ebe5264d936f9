"""The printable mat: found back under perspective, the PDF's pages, the committed PDFs, `companion mat`."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.layout import LayoutError
from companion.vision.mat import (MAT, PAPERS, PT_PER_MM, find_markers, layout_from_markers, mat_image, mat_pdf,
                                  mat_to_image_matrix)

ROOT = Path(__file__).resolve().parents[2]
PPM = 1.4


@pytest.fixture(scope="module")
def mat() -> np.ndarray:
    return mat_image(PPM)


def _photo(mat: np.ndarray, dst: list[tuple[float, float]], size=(1280, 800), noise: int = 0) -> tuple[np.ndarray, np.ndarray]:
    n = mat.shape[0]
    Hw = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]), np.float32(dst))
    img = cv2.warpPerspective(mat, Hw, size, flags=cv2.INTER_AREA, borderValue=(35, 90, 40))
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    if noise:
        rng = np.random.default_rng(0)
        img = np.clip(img.astype(np.int16) + rng.integers(-noise, noise + 1, img.shape), 0, 255).astype(np.uint8)
    return img, Hw @ mat_to_image_matrix(PPM)


def _expected(H: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(MAT.piles_mm().reshape(-1, 1, 2), H).reshape(-1, 2)


@pytest.mark.parametrize("dst", [
    [(250, 80), (980, 120), (1150, 760), (60, 700)],  # tilted toward the far side
    [(900, 60), (1180, 640), (420, 780), (170, 200)],  # turned: pile 12 on the right
    [(340, 150), (940, 150), (1000, 700), (280, 700)],  # a gentle tilt
])
def test_mat_found_back_under_perspective(mat: np.ndarray, dst: list[tuple[float, float]]) -> None:
    img, H = _photo(mat, dst, noise=6)
    lay = layout_from_markers(img)
    assert len(find_markers(img)) == 4
    err = np.abs(lay.centres - _expected(H)).max()
    assert err < 2.0
    assert lay.method == "mat" and lay.image_size == (1280, 800)
    # the homography maps mat mm to the image
    assert np.abs(cv2.perspectiveTransform(MAT.piles_mm().reshape(-1, 1, 2), lay.homography).reshape(-1, 2)
                  - _expected(H)).max() < 2.0
    for p in range(1, 14):
        assert lay.locate(lay.centre(p)) == p
    # pile 12's side of the image
    v = lay.centres[11] - lay.centres[12]
    side = {"top": (0, -1), "right": (1, 0), "bottom": (0, 1), "left": (-1, 0)}[lay.twelve_at]
    assert np.dot(v / np.linalg.norm(v), side) > 0.7


def test_two_markers_are_enough_one_is_not(mat: np.ndarray) -> None:
    img, H = _photo(mat, [(250, 80), (980, 120), (1150, 760), (60, 700)])
    corners = find_markers(img)
    covered = img.copy()
    for mid in (1, 3):  # hands over two opposite markers
        c = corners[mid].astype(np.int32)
        cv2.fillConvexPoly(covered, cv2.convexHull(c), (90, 140, 200))
    lay = layout_from_markers(covered)
    assert np.abs(lay.centres - _expected(H)).max() < 3.0
    c = corners[0].astype(np.int32)
    cv2.fillConvexPoly(covered, cv2.convexHull(c), (90, 140, 200))
    with pytest.raises(LayoutError) as exc:
        layout_from_markers(covered)
    assert str(exc.value).startswith("found 1 of the 4 mat markers (saw 2), need 2:")


@pytest.mark.parametrize("paper,pages", [("a4", 6), ("letter", 6), ("a3", 4)])
def test_pdf_pages_at_true_size(paper: str, pages: int) -> None:
    pdf = mat_pdf(paper)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    w, h = PAPERS[paper]
    boxes = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert len(boxes) == pages == len(re.findall(rb"/Type /Page ", pdf))
    for bw, bh in boxes:
        assert float(bw) == pytest.approx(w * PT_PER_MM, abs=0.01)
        assert float(bh) == pytest.approx(h * PT_PER_MM, abs=0.01)
    # the cross-reference table points at every object
    xref = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
    assert pdf[xref:xref + 4] == b"xref"
    offsets = [int(o) for o in re.findall(rb"(\d{10}) 00000 n", pdf)]
    for i, off in enumerate(offsets, start=1):
        assert pdf[off:off + len(f"{i} 0 obj")] == f"{i} 0 obj".encode()
    assert len(pdf) < 30_000


def test_pdf_known_sizes() -> None:
    assert b"/MediaBox [0 0 595.28 841.89]" in mat_pdf("a4")
    assert b"/MediaBox [0 0 612.00 792.00]" in mat_pdf("letter")
    with pytest.raises(ValueError, match="unknown paper"):
        mat_pdf("b5")


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_committed_mat_pdfs_are_current(paper: str) -> None:
    path = ROOT / "calibration" / f"mat-{paper}.pdf"
    assert path.read_bytes() == mat_pdf(paper), f"regenerate with: companion mat --paper {paper} --out {path}"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    import companion.cli.calibrate_cmd  # noqa: F401 - registers calibrate and mat
    from companion.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_cli_mat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["mat", "--out", str(tmp_path / "m.pdf"), "--paper", "letter"], capsys)
    assert code == 0 and "6 letter pages" in out
    assert (tmp_path / "m.pdf").read_bytes() == mat_pdf("letter")
    code, out, _ = _run(["mat", "--out", str(tmp_path / "m.png"), "--dpi", "40"], capsys)
    assert code == 0
    png = cv2.imread(str(tmp_path / "m.png"))
    assert png.shape[0] == png.shape[1] == round(500 * 40 / 25.4)
    assert len(find_markers(png)) == 4
    for argv, msg in ((["mat", "--paper", "b5"], "--paper must be one of a4, letter, a3"),
                      (["mat", "--out", str(tmp_path / "m.svg")], "--out must end in .pdf or .png"),
                      (["mat", "--out", str(tmp_path / "no" / "m.pdf")], "does not exist")):
        code, _, err = _run(argv, capsys)
        assert code == 2 and msg in err and err.count("\n") == 1
