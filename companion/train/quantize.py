"""8-bit index readers for the run time: static quantization of the trained float readers (onnxruntime).

Integer convolutions read the index crops about 2.3 times faster on one laptop core, so the two
readers and the detector fit the 20 ms budget of a frame. Activation ranges are calibrated on crops
from the training decks only (the held-out decks and the real photos are never used), at the
99.99th percentile (plain min-max ranges, stretched by rare outliers, made more readings confidently
wrong on held-out tuning frames). Weights are per channel and use 7 of their 8 bits
(``reduce_range``): on x86 CPUs without VNNI (AVX2 only: many laptops, and this project's build
machines) onnxruntime multiplies unsigned 8-bit activations by signed 8-bit weights with an
instruction whose 16-bit sums saturate, and full-range weights then read held-out crops 5 points
worse than the float readers (the picked glyph agreed with the float reader's for 89% of crops);
with 7-bit weights the agreement is 98-99%, as fast, on any CPU.

The detector stays float: quantized, its slightly different corner positions gave more confidently
wrong readings on the held-out tuning frames (9 against 2 of 533 cards), for about 1.5 ms.

``python -m companion.train.quantize FLOAT_DIR OUT_DIR`` writes OUT_DIR with FLOAT_DIR's detector,
its readers quantized, and a manifest. ``make train`` does it for you.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

__all__ = ["reader_calibration", "quantize_model", "quantize_folder"]

#: Calibration crops: enough for stable activation ranges, a few seconds to make.
READER_CROPS = 2048
SEED = 4242
PERCENTILE = 99.99


def reader_calibration(decks: Sequence[str], n: int = READER_CROPS, seed: int = SEED) -> Iterator[dict]:
    """Batches of index crops from the training decks (positives and negatives, as in training)."""
    from ..synth.composer import drop_band_boxes, load_deck_art
    from .index_data import IndexSampler

    arts = [drop_band_boxes(load_deck_art(name)) for name in decks]
    crops, _g, _s, _geo = IndexSampler(arts, seed).batch(n)
    x = crops.astype(np.float32).transpose(0, 3, 1, 2) * (1.0 / 255.0)
    for i in range(0, n, 64):
        yield {"crops": x[i:i + 64]}


def quantize_model(src: Path, dst: Path, batches: Iterator[dict]) -> None:
    """Static QDQ quantization of ``src`` (unsigned 8-bit activations, signed per-channel weights
    reduced to 7 bits, percentile calibration on ``batches``) written to ``dst``."""
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(batches)

        def get_next(self) -> dict | None:
            return next(self.batches, None)

    feed = Feed()
    with tempfile.TemporaryDirectory(prefix="companion-quant-") as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre))
        dst.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(str(pre), str(dst), feed, quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, per_channel=True, reduce_range=True,
                        calibrate_method=CalibrationMethod.Percentile, extra_options={"CalibPercentile": PERCENTILE})


def quantize_folder(float_dir: Path, out_dir: Path, decks: Sequence[str], log=print) -> list[str]:  # noqa: ANN001
    """``out_dir``: the readers of ``float_dir`` quantized, its other models copied; returns the file
    names written."""
    from ..vision.models import read_manifest

    done = []
    for name in sorted(read_manifest(float_dir).get("files", {})):
        if name.startswith("index"):
            quantize_model(float_dir / name, out_dir / name, reader_calibration(decks))
            log(f"quantized {name}: {(float_dir / name).stat().st_size / 1e6:.2f} MB -> "
                f"{(out_dir / name).stat().st_size / 1e6:.2f} MB")
        elif (float_dir / name).resolve() != (out_dir / name).resolve():
            shutil.copy(float_dir / name, out_dir / name)
        done.append(name)
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion.train.quantize", description=__doc__.splitlines()[0])
    ap.add_argument("float_dir", type=Path, help="folder with the float models and their manifest")
    ap.add_argument("out_dir", type=Path, help="where the 8-bit models and their manifest go")
    args = ap.parse_args(argv)
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("error: quantizing needs the train extra: pip install -e '.[train]'", file=sys.stderr)
        return 2
    from ..vision.models import ModelError, read_manifest
    from .common import training_decks, write_manifest

    try:
        manifest = read_manifest(args.float_dir)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out_dir.mkdir(parents=True, exist_ok=True)
    files = quantize_folder(args.float_dir, args.out_dir, training_decks())
    extra = {k: v for k, v in manifest.items() if k != "files"}
    extra["quantized_from"] = str(args.float_dir)
    write_manifest(args.out_dir, files, extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
