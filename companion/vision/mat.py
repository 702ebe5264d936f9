"""The printable calibration mat: 13 pile outlines with hour labels and four ArUco markers.

The mat is a square of :attr:`MatSpec.size_mm` (500 mm: a clock of poker cards needs about that),
printed at true scale over several pages (:func:`mat_pdf`: A4 and letter take 6, A3 takes 4) that
are taped together along the dashed edges. Mat coordinates are millimetres from the mat's centre,
x to the right and y down as the labels read. The four markers (``DICT_4X4_50`` ids 0..3, at the
corners) give the table->image homography, and with it every pile: :func:`layout_from_markers`.

The same drawing (a list of primitives in mm) is rasterised for PNGs and tests
(:func:`mat_image`) and written as vector graphics in the PDF, so the PDF stays a few kilobytes.

>>> spec = MatSpec()
>>> [round(float(v)) for v in spec.pile_mm(3)], [round(float(v)) for v in spec.pile_mm(12)]
([176, 0], [0, -176])
>>> pdf = mat_pdf("a4")
>>> pdf[:5], pdf.count(b"/Type /Page ")
(b'%PDF-', 6)
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from .layout import Layout, LayoutError, _side_of, _unit

__all__ = ["MatSpec", "MAT", "PAPERS", "mat_primitives", "mat_image", "mat_pdf", "write_mat", "layout_from_markers",
           "find_markers"]

#: paper sizes in mm (portrait)
PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4), "a3": (297.0, 420.0)}
PAGE_MARGIN_MM = 10.0
PT_PER_MM = 72.0 / 25.4


@dataclass(frozen=True)
class MatSpec:
    """Geometry of the mat in millimetres (origin at the centre, x right, y down)."""

    size_mm: float = 500.0
    radius_mm: float = 176.0  # the clock's circle: two card heights
    card_w_mm: float = 63.0
    card_h_mm: float = 88.0
    marker_mm: float = 45.0
    marker_inset_mm: float = 10.0  # from the mat's edge to the marker's edge
    dictionary: int = cv2.aruco.DICT_4X4_50
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left

    def pile_mm(self, pile: int) -> np.ndarray:
        if pile == 13:
            return np.zeros(2)
        t = math.radians(30 * pile)
        return np.array([self.radius_mm * math.sin(t), -self.radius_mm * math.cos(t)])

    def out_mm(self, pile: int) -> np.ndarray:
        """Unit vector along which the pile's face-up cards fan (the centre: toward half past six)."""
        t = math.radians(195.0 if pile == 13 else 30 * pile)
        return np.array([math.sin(t), -math.cos(t)])

    def piles_mm(self) -> np.ndarray:
        return np.array([self.pile_mm(p) for p in range(1, 14)])

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        """Each marker's four corners (as ArUco reports them: the marker's TL, TR, BR, BL)."""
        h = self.size_mm / 2 - self.marker_inset_mm
        s = self.marker_mm
        tls = [(-h, -h), (h - s, -h), (h - s, h - s), (-h, h - s)]
        return {mid: np.array([(x, y), (x + s, y), (x + s, y + s), (x, y + s)], np.float64)
                for mid, (x, y) in zip(self.marker_ids, tls)}

    def card_outline_mm(self, pile: int) -> np.ndarray:
        """The outline where the pile's stack goes: a card lying along the outward direction."""
        c, u = self.pile_mm(pile), self.out_mm(pile)
        r = np.array([-u[1], u[0]])
        hw, hh = self.card_w_mm / 2, self.card_h_mm / 2
        return np.array([c + a * r + b * u for a, b in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))])


MAT = MatSpec()


# ---------------------------------------------------------------------------------------------------
# drawing primitives (mm)
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Prim:
    kind: str  # "fill" (polygon), "line" (polyline), "text"
    pts: np.ndarray  # (K, 2) mm; for text: the centre (1, 2)
    width: float = 0.5  # line width in mm; text height (cap height) in mm
    grey: float = 0.0  # 0 black .. 1 white
    closed: bool = False
    dash: float = 0.0  # dash length in mm (0: solid)
    text: str = ""


def _marker_cells(spec: MatSpec, mid: int) -> Iterator[np.ndarray]:
    """Black rectangles (runs of cells along rows) of marker ``mid``."""
    bits = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(spec.dictionary), mid, 6)
    tl = spec.marker_corners_mm()[mid][0]
    cell = spec.marker_mm / bits.shape[0]
    for r in range(bits.shape[0]):
        c = 0
        while c < bits.shape[1]:
            if bits[r, c] < 128:
                c0 = c
                while c < bits.shape[1] and bits[r, c] < 128:
                    c += 1
                x0, y0 = tl[0] + c0 * cell, tl[1] + r * cell
                x1, y1 = tl[0] + c * cell, y0 + cell
                yield np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
            else:
                c += 1


def _arrow(a: np.ndarray, b: np.ndarray, head: float) -> list[np.ndarray]:
    u = _unit(b - a)
    r = np.array([-u[1], u[0]])
    return [np.array([a, b]), np.array([b - head * u + head * 0.55 * r, b, b - head * u - head * 0.55 * r])]


def mat_primitives(spec: MatSpec = MAT) -> list[Prim]:
    """The whole mat as drawing primitives in mm."""
    half = spec.size_mm / 2
    prims: list[Prim] = []
    border = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
    prims.append(Prim("line", border, 0.4, 0.6, closed=True))
    for mid in spec.marker_ids:
        for cell in _marker_cells(spec, mid):
            prims.append(Prim("fill", cell))
    for p in range(1, 14):
        prims.append(Prim("line", spec.card_outline_mm(p), 0.8, 0.0, closed=True))
        c, u = spec.pile_mm(p), spec.out_mm(p)
        # fan-out arrow from the stack's outer edge
        a = c + u * (spec.card_h_mm / 2 + 4)
        for seg in _arrow(a, a + u * 20, 5):
            prims.append(Prim("line", seg, 0.6, 0.35))
        # the label, on the inner side (the fan covers the outer side)
        if p == 13:
            prims.append(Prim("text", (c - u * (spec.card_h_mm / 2 + 11))[None], 9.0, 0.0, text="K"))
        else:
            prims.append(Prim("text", (c - u * (spec.card_h_mm / 2 + 12))[None], 11.0, 0.0, text=str(p)))
    # title and a 50 mm scale bar between the top markers
    y = -half + spec.marker_inset_mm + 8
    x0 = -half + spec.marker_inset_mm + spec.marker_mm + 12
    prims.append(Prim("text", np.array([[x0 + 45, y]]), 5.0, 0.0, text="Clock Patience mat"))
    prims.append(Prim("text", np.array([[x0 + 45, y + 10]]), 3.2, 0.2, text="print at 100% (actual size)"))
    bx = half - spec.marker_inset_mm - spec.marker_mm - 12 - 50
    prims.append(Prim("fill", np.array([(bx, y - 2), (bx + 50, y - 2), (bx + 50, y), (bx, y)])))
    prims.append(Prim("text", np.array([[bx + 25, y + 7]]), 3.2, 0.2, text="this bar is 50 mm"))
    return prims


# ---------------------------------------------------------------------------------------------------
# raster
# ---------------------------------------------------------------------------------------------------
def mat_image(px_per_mm: float = 2.0, spec: MatSpec = MAT) -> np.ndarray:
    """The whole mat as a white BGR image; mat mm (x, y) lies at pixel ((x + size/2) * px_per_mm - 0.5, ...)."""
    n = int(round(spec.size_mm * px_per_mm))
    img = np.full((n, n), 255, np.uint8)
    half = spec.size_mm / 2
    shift = 4

    def px(pts: np.ndarray) -> np.ndarray:
        return np.round(((pts + half) * px_per_mm - 0.5) * (1 << shift)).astype(np.int32)

    for pr in mat_primitives(spec):
        g = int(round(pr.grey * 255))
        if pr.kind == "fill":
            if len(pr.pts) == 4 and pr.pts[0, 1] == pr.pts[1, 1]:  # an axis-aligned box: exact pixel edges
                (x0, y0), (x1, y1) = pr.pts.min(0), pr.pts.max(0)
                i0, i1 = (int(round((v + half) * px_per_mm)) for v in (x0, x1))
                j0, j1 = (int(round((v + half) * px_per_mm)) for v in (y0, y1))
                img[j0:j1, i0:i1] = g
            else:
                cv2.fillPoly(img, [px(pr.pts)], g, cv2.LINE_AA, shift=shift)
        elif pr.kind == "line":
            t = max(1, int(round(pr.width * px_per_mm)))
            cv2.polylines(img, [px(pr.pts)], pr.closed, g, t, cv2.LINE_AA, shift=shift)
        else:
            h_px = pr.width * px_per_mm
            t = max(1, int(round(h_px / 8)))
            (tw, th), _ = cv2.getTextSize(pr.text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, t)
            scale = h_px / max(th, 1)
            (tw, th), _ = cv2.getTextSize(pr.text, cv2.FONT_HERSHEY_SIMPLEX, scale, t)
            cx, cy = (pr.pts[0] + half) * px_per_mm - 0.5
            cv2.putText(img, pr.text, (int(round(cx - tw / 2)), int(round(cy + th / 2))), cv2.FONT_HERSHEY_SIMPLEX,
                        scale, g, t, cv2.LINE_AA)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)


def mat_to_image_matrix(px_per_mm: float, spec: MatSpec = MAT) -> np.ndarray:
    """3x3 matrix from mat mm to the pixel coordinates of :func:`mat_image`."""
    o = spec.size_mm / 2 * px_per_mm - 0.5
    return np.array([[px_per_mm, 0, o], [0, px_per_mm, o], [0, 0, 1]], np.float64)


# ---------------------------------------------------------------------------------------------------
# PDF (vector, one tile of the mat per page)
# ---------------------------------------------------------------------------------------------------
_HELV_W = {**{c: 0.556 for c in "0123456789"}, " ": 0.278, "(": 0.333, ")": 0.333, "%": 0.889, ":": 0.278,
           ".": 0.278, ",": 0.278, "-": 0.333, "/": 0.278, "m": 0.833, "w": 0.722, "M": 0.833, "W": 0.944,
           "i": 0.222, "l": 0.222, "j": 0.222, "t": 0.278, "f": 0.278, "r": 0.333, "I": 0.278, "J": 0.5}


def _text_width(text: str, size: float) -> float:
    return sum(_HELV_W.get(ch, 0.667 if ch.isupper() else 0.556) for ch in text) * size


def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _tiles(paper: str, spec: MatSpec) -> tuple[float, float, int, int, float, float]:
    pw, ph = PAPERS[paper]
    uw, uh = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM
    cols, rows = math.ceil(spec.size_mm / uw - 1e-9), math.ceil(spec.size_mm / uh - 1e-9)
    ox = -cols * uw / 2  # mat x of the tiles' left edge
    oy = -rows * uh / 2
    return uw, uh, cols, rows, ox, oy


def _page_ops(paper: str, spec: MatSpec, row: int, col: int) -> str:
    pw, ph = PAPERS[paper]
    uw, uh, cols, rows, ox, oy = _tiles(paper, spec)
    wx0, wy0 = ox + col * uw, oy + row * uh  # the window of the mat on this page (mat mm)
    k = PT_PER_MM

    def P(x: float, y: float) -> str:  # mat mm -> page points (PDF y up)
        return f"{(x - wx0 + PAGE_MARGIN_MM) * k:.2f} {(ph - (y - wy0 + PAGE_MARGIN_MM)) * k:.2f}"

    ops: list[str] = ["q"]
    # clip to this page's window
    ops.append(f"{PAGE_MARGIN_MM * k:.2f} {PAGE_MARGIN_MM * k:.2f} {uw * k:.2f} {uh * k:.2f} re W n")
    ops.append("1 J 1 j")
    for pr in mat_primitives(spec):
        if pr.kind == "fill":
            ops.append(f"{pr.grey:.3f} g")
            ops.append(" ".join([f"{P(*pr.pts[0])} m"] + [f"{P(*p)} l" for p in pr.pts[1:]]) + " h f")
        elif pr.kind == "line":
            ops.append(f"{pr.grey:.3f} G {pr.width * k:.2f} w " + (f"[{pr.dash * k:.1f}] 0 d" if pr.dash else "[] 0 d"))
            ops.append(" ".join([f"{P(*pr.pts[0])} m"] + [f"{P(*p)} l" for p in pr.pts[1:]]) + (" s" if pr.closed else " S"))
        else:
            size = pr.width / 0.718 * k  # Helvetica cap height is 0.718 em
            x, y = pr.pts[0]
            w_mm = _text_width(pr.text, size) / k
            ops.append(f"{pr.grey:.3f} g BT /F1 {size:.2f} Tf {P(x - w_mm / 2, y + pr.width / 2)} Td "
                       f"({_pdf_escape(pr.text)}) Tj ET")
    ops.append("Q")
    # joining edges (dashed) and the page's place in the grid, in the margin
    ops.append("0.5 G 0.5 w [4 3] 0 d")
    x0, y0, x1, y1 = PAGE_MARGIN_MM * k, PAGE_MARGIN_MM * k, (pw - PAGE_MARGIN_MM) * k, (ph - PAGE_MARGIN_MM) * k
    ops.append(f"{x0:.2f} {y0:.2f} m {x1:.2f} {y0:.2f} l {x1:.2f} {y1:.2f} l {x0:.2f} {y1:.2f} l h S")
    n = row * cols + col + 1
    sides = [s for s, ok in (("left", col > 0), ("right", col < cols - 1), ("top", row > 0), ("bottom", row < rows - 1)) if ok]
    note = (f"Clock Patience mat, page {n} of {rows * cols} (row {row + 1}, column {col + 1}): cut along the dashed "
            f"line on the {' and '.join(sides)} side(s) and tape to the neighbouring pages; print at 100%")
    size = 6.5
    if _text_width(note, size) > (pw - 2 * PAGE_MARGIN_MM) * k:
        size *= (pw - 2 * PAGE_MARGIN_MM) * k / _text_width(note, size)
    ops.append(f"0 g BT /F1 {size:.2f} Tf {x0:.2f} {(PAGE_MARGIN_MM * 0.4) * k:.2f} Td ({_pdf_escape(note)}) Tj ET")
    return "\n".join(ops)


def mat_pdf(paper: str = "a4", spec: MatSpec = MAT) -> bytes:
    """The mat as a PDF at true scale, tiled over pages of ``paper`` (a4, letter or a3, portrait)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r} (use {', '.join(PAPERS)})")
    pw, ph = PAPERS[paper]
    _, _, cols, rows, _, _ = _tiles(paper, spec)
    n_pages = cols * rows
    # objects: 1 catalog, 2 pages, 3 font, then (page, contents) per page
    objs: list[bytes] = []
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n_pages))
    objs.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    media = f"[0 0 {pw * PT_PER_MM:.2f} {ph * PT_PER_MM:.2f}]"
    for i in range(n_pages):
        r, c = divmod(i, cols)
        stream = zlib.compress(_page_ops(paper, spec, r, c).encode("latin-1"), 9)
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox {media} /Resources << /Font << /F1 3 0 R >> >> "
                    f"/Contents {5 + 2 * i} 0 R >>".encode())
        objs.append(f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_mat(path: Path | str, paper: str = "a4", *, dpi: float = 150.0, spec: MatSpec = MAT) -> str:
    """Write the mat: a PDF (tiled on ``paper``), or a PNG of the whole mat at ``dpi`` when the name
    ends in .png. Returns a one-line description."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".png":
        img = mat_image(dpi / 25.4, spec)
        if not cv2.imwrite(str(path), img):
            raise OSError(f"cannot write {path}")
        return f"{path}: the whole mat, {spec.size_mm:g} x {spec.size_mm:g} mm at {dpi:g} dpi ({img.shape[1]} px square)"
    if suffix != ".pdf":
        raise ValueError(f"cannot write {path.name}: the name must end in .pdf or .png")
    data = mat_pdf(paper, spec)
    path.write_bytes(data)
    _, _, cols, rows, _, _ = _tiles(paper, spec)
    return (f"{path}: {cols * rows} {paper} pages ({cols} across, {rows} down) making a {spec.size_mm:g} mm square mat; "
            f"print at 100% and tape the pages together")


# ---------------------------------------------------------------------------------------------------
# finding the mat in a camera image
# ---------------------------------------------------------------------------------------------------
def find_markers(image: np.ndarray, spec: MatSpec = MAT) -> dict[int, np.ndarray]:
    """The mat's markers found in ``image``: id -> (4, 2) corners in image pixels."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(spec.dictionary), params)
    corners, ids, _ = det.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, np.asarray(ids).ravel()):
        if int(i) in spec.marker_ids and int(i) not in found:
            found[int(i)] = np.asarray(c, np.float64).reshape(4, 2)
    return found


def layout_from_markers(image: np.ndarray, spec: MatSpec = MAT, *, min_markers: int = 2) -> Layout:
    """The layout from a photo of the mat: markers -> homography (mat mm -> image px) -> the 13 piles."""
    found = find_markers(image, spec)
    if len(found) < min_markers:
        seen = f" (saw {', '.join(str(i) for i in sorted(found))})" if found else ""
        raise LayoutError(f"found {len(found)} of the 4 mat markers{seen}, need {min_markers}: make sure the "
                          f"mat's corners are in view, flat, lit and not covered")
    known = spec.marker_corners_mm()
    src = np.concatenate([known[i] for i in sorted(found)])
    dst = np.concatenate([found[i] for i in sorted(found)])
    H, _ = cv2.findHomography(src, dst, cv2.RANSAC if len(found) >= 3 else 0, 3.0)
    if H is None or not np.isfinite(H).all():
        raise LayoutError("the mat's markers do not agree on where the mat is: flatten the mat and try again")
    h, w = image.shape[:2]

    def tf(pts: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)

    centres = tf(spec.piles_mm())
    outs = np.array([spec.out_mm(p) for p in range(1, 14)])
    half = spec.card_h_mm / 2
    ends = tf(np.concatenate([spec.piles_mm() + outs * half, spec.piles_mm() - outs * half]))
    heights = np.linalg.norm(ends[:13] - ends[13:], axis=1)
    outward = np.array([_unit(e - c) for e, c in zip(ends[:13], centres)])
    side = tf(np.concatenate([spec.piles_mm() + np.c_[-outs[:, 1], outs[:, 0]] * spec.card_w_mm / 2,
                              spec.piles_mm() - np.c_[-outs[:, 1], outs[:, 0]] * spec.card_w_mm / 2]))
    widths = np.linalg.norm(side[:13] - side[13:], axis=1)
    twelve = _side_of(_unit(centres[11] - centres[12]))
    return Layout((w, h), centres, outward, float(np.median(heights)), float(np.median(widths)), twelve_at=twelve,
                  method="mat", homography=H, pile_card_h=heights)
