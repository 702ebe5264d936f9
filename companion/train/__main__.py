"""``python -m companion.train``: the whole recipe behind ``make train``.

Builds its data from the deck artwork (training decks only; whole decks are held out), trains the
index reader and the corner detector, exports both to ONNX in ``models/`` and writes the manifest of
sha256 hashes the run time checks. Deterministic from ``--seed``. Needs the ``train`` extra
(``torch==2.13.0`` CPU, ``onnx``, ``onnxscript``, ``pillow``); never run at run time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion.train", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("models"), help="where the ONNX files and manifest go")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="a tiny run that checks the recipe end to end (minutes)")
    ap.add_argument("--only", choices=["index", "detector"], help="train one model, keep the other")
    ap.add_argument("--index-samples", type=int, default=320_000)
    ap.add_argument("--index-epochs", type=int, default=6)
    ap.add_argument("--detector-scenes", type=int, default=14_000)
    ap.add_argument("--detector-epochs", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--init", type=Path, metavar="DIR",
                    help="fine-tune: start each model from DIR/index.onnx, DIR/detector.onnx (read before any is written)")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch threads (default: all cores; 1 is much faster on a machine busy with other work)")
    args = ap.parse_args(argv)
    if args.threads:
        import os

        os.environ["COMPANION_TORCH_THREADS"] = str(args.threads)
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: training needs the train extra: pip install -e '.[train]' (torch==2.13.0 CPU)", file=sys.stderr)
        return 2

    from .common import HELD_OUT_DECKS, training_decks, write_manifest
    from .train_detector import train_detector
    from .train_index import train_index

    t0 = time.time()
    train = training_decks()
    from ..synth.decks import list_decks

    available = {d.name for d in list_decks() if d.available}
    held = [d for d in HELD_OUT_DECKS if d in available]
    if len(held) < 3:
        print(f"error: need at least three held-out decks, found {held}: install gnome-cards-data librsvg2-bin "
              "and the kde extra", file=sys.stderr)
        return 2
    if args.quick:
        args.index_samples, args.index_epochs, args.detector_scenes, args.detector_epochs = 8000, 1, 200, 1
    print(f"training decks ({len(train)}): {', '.join(train)}")
    print(f"held-out decks ({len(held)}): {', '.join(held)}")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    init_index = init_detector = None
    if args.init is not None:  # copied first: --init and --out may be the same folder
        import shutil
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix="companion-init-"))
        for f in ("index.onnx", "detector.onnx"):
            if not (args.init / f).exists():
                print(f"error: --init {args.init}: no {f}", file=sys.stderr)
                return 2
            shutil.copy(args.init / f, tmp / f)
        init_index, init_detector = tmp / "index.onnx", tmp / "detector.onnx"
    report_path = out / "training.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    report.update({"seed": args.seed, "training_decks": train, "held_out_decks": held})
    if args.only in (None, "index"):
        report["index"] = train_index(train, held, out, seed=args.seed, n_train=args.index_samples,
                                      epochs=args.index_epochs, workers=args.workers,
                                      init=init_index)
        print(f"index reader: held-out glyph accuracy {report['index']['glyph_acc']:.4f}, "
              f"suit {report['index']['suit_acc']:.4f} ({report['index']['seconds']:.0f} s)")
    if args.only in (None, "detector"):
        report["detector"] = train_detector(train, held, out, seed=args.seed, n_train=args.detector_scenes,
                                            epochs=args.detector_epochs, workers=args.workers,
                                            init=init_detector)
        print(f"corner detector: {report['detector']['seconds']:.0f} s")
    report["total_seconds"] = round(time.time() - t0, 1)
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    files = [f for f in ("detector.onnx", "index.onnx") if (out / f).exists()]
    write_manifest(out, files, {"trained_with_seed": args.seed, "held_out_decks": held})
    size = sum((out / f).stat().st_size for f in files)
    print(f"done in {report['total_seconds'] / 60:.1f} min; models {size / 1e6:.2f} MB in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
