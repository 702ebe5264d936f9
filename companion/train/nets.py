"""The recogniser's two small networks (torch; imported only for training and export).

* :class:`CornerNet` finds cards in a downscaled frame: a heatmap of index-corner centres (face-up
  cards, one peak per printed corner index), a heatmap of face-down card centres, and at every
  output cell the sub-cell offset, the card's up direction (cos, sin) and log card height.
  A small U-Net at stride 4, sized for about 10 ms a 384x216 frame on one CPU core.
* :class:`IndexNet` reads one upright index-corner crop: glyph class (A..K, foreign court letters,
  or background), suit (C, D, H, S or none), and how the crop should have been cut (the detector's
  centre, direction and size are often a little off; a second crop cut that way reads better).
* :class:`FaceNet` reads a whole card warped upright (pips and court art): rank or "none", suit or
  "none". For cards whose index is too small to read.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ..vision.spec import (DETECTOR_OUTPUTS, FACE_CROP_H, FACE_CROP_W, FACE_RANKS, GLYPHS, INDEX_CROP_H, INDEX_CROP_W,
                           SUITS_OUT)

__all__ = ["CornerNet", "IndexNet", "FaceNet"]


def conv_bn(cin: int, cout: int, stride: int = 1, k: int = 3) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def dw_block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Depthwise-separable 3x3 then pointwise: most of the receptive field for little compute."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def reader_body() -> nn.Sequential:
    """The readers' features: three 3x3 stages each halving the crop, 128 channels at an eighth of it."""
    return nn.Sequential(
        conv_bn(3, 24),
        nn.MaxPool2d(2),
        conv_bn(24, 48),
        nn.MaxPool2d(2),
        conv_bn(48, 64),
        conv_bn(64, 64),
        nn.MaxPool2d(2),
        conv_bn(64, 128),
    )


class CornerNet(nn.Module):
    """Stride-4 dense predictor; input (N, 3, H, W) in [0, 1], H and W multiples of 32."""

    def __init__(self, width: int = 2) -> None:
        super().__init__()
        c1, c2, c3, c4, c5 = (16 * width, 24 * width, 40 * width, 64 * width, 96 * width)
        self.stem = conv_bn(3, c1, 2)  # /2
        self.s2 = nn.Sequential(conv_bn(c1, c2, 2), dw_block(c2, c2))  # /4
        self.s3 = nn.Sequential(dw_block(c2, c3, 2), dw_block(c3, c3))  # /8
        self.s4 = nn.Sequential(dw_block(c3, c4, 2), dw_block(c4, c4))  # /16
        self.s5 = nn.Sequential(dw_block(c4, c5, 2), dw_block(c5, c5), dw_block(c5, c5))  # /32
        self.l4 = nn.Conv2d(c5, c4, 1)
        self.l3 = nn.Conv2d(c4, c3, 1)
        self.l2 = nn.Conv2d(c3, c2, 1)
        self.m4 = dw_block(c4, c4)
        self.m3 = dw_block(c3, c3)
        self.m2 = dw_block(c2, c2)
        self.head = nn.Sequential(dw_block(c2, 32), nn.Conv2d(32, DETECTOR_OUTPUTS, 1))
        with torch.no_grad():  # heatmaps start near 0.01 (focal-loss prior)
            self.head[-1].bias[:2].fill_(-4.6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = self.s2(self.stem(x))
        x3 = self.s3(x2)
        x4 = self.s4(x3)
        x5 = self.s5(x4)
        y4 = self.m4(x4 + F.interpolate(self.l4(x5), size=x4.shape[-2:], mode="nearest"))
        y3 = self.m3(x3 + F.interpolate(self.l3(y4), size=x3.shape[-2:], mode="nearest"))
        y2 = self.m2(x2 + F.interpolate(self.l2(y3), size=x2.shape[-2:], mode="nearest"))
        out = self.head(y2)
        # heatmaps as logits (sigmoid applied in the loss / at inference), the rest raw
        return out


class IndexNet(nn.Module):
    """Reads an upright index crop (N, 3, INDEX_CROP_H, INDEX_CROP_W) in [0, 1]."""

    def __init__(self) -> None:
        super().__init__()
        self.features = reader_body()  # 36x24 -> 4x3
        feat = 128 * (INDEX_CROP_H // 8) * (INDEX_CROP_W // 8)
        self.fc = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(feat, 128), nn.ReLU(inplace=True))
        self.glyph = nn.Linear(128, len(GLYPHS))
        self.suit = nn.Linear(128, len(SUITS_OUT))
        # where the crop should have been cut: the index centre along the crop's right and down (index
        # heights), the turn to the glyphs' up (radians), log(true / cut size); see geometry.corrected_crop
        self.geometry = nn.Linear(128, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.fc(self.features(x))
        return self.glyph(h), self.suit(h), self.geometry(h)


class FaceNet(nn.Module):
    """Reads a whole card warped upright (N, 3, FACE_CROP_H, FACE_CROP_W) in [0, 1]: rank and suit."""

    def __init__(self) -> None:
        super().__init__()
        self.features = reader_body()  # 48x32 -> 6x4
        feat = 128 * (FACE_CROP_H // 8) * (FACE_CROP_W // 8)
        self.fc = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(feat, 128), nn.ReLU(inplace=True))
        self.rank = nn.Linear(128, len(FACE_RANKS))
        self.suit = nn.Linear(128, len(SUITS_OUT))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.fc(self.features(x))
        return self.rank(h), self.suit(h)
