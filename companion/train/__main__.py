"""``python -m companion.train``: the whole recipe behind ``make train``.

Builds its data from the deck artwork (training decks only; whole decks are held out), trains two
index readers (``index.onnx`` and ``index2.onnx``, from different seeds and data: the run time averages
them), the corner detector and the face reader (``face.onnx``: whole cards too small for their index),
exports them to ONNX in ``models/float/``, quantizes the readers to 8 bits into ``models/``
(:mod:`.quantize`) and writes the manifests of sha256 hashes the run time checks. Deterministic from
``--seed``. Needs the ``train`` extra (``torch==2.13.0`` CPU, ``onnx``, ``onnxscript``, ``pillow``);
never run at run time. ``make train`` then runs :mod:`.scatter`, which adds the detector's measured
scatter to the manifest (this step rewrites the manifest without it).
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
    ap.add_argument("--only", choices=["index", "index2", "detector", "face"], help="train one model, keep the others")
    ap.add_argument("--one-reader", action="store_true", help="train no second index reader (index2.onnx)")
    ap.add_argument("--index-samples", type=int, default=320_000)
    ap.add_argument("--index-epochs", type=int, default=6)
    ap.add_argument("--detector-scenes", type=int, default=14_000)
    ap.add_argument("--detector-epochs", type=int, default=4)
    ap.add_argument("--detector-game-share", type=float, default=0.3,
                    help="share of detector scenes cut from rendered games of the training decks (0..1; "
                         "the committed detector was fine-tuned with 0.3)")
    ap.add_argument("--face-samples", type=int, default=120_000)
    ap.add_argument("--face-epochs", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--init", type=Path, metavar="DIR",
                    help="fine-tune: start each model from the float models of DIR (DIR/float if there is one): "
                         "index.onnx, index2.onnx (else index.onnx), detector.onnx (read before any is written)")
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
        args.face_samples, args.face_epochs = 4000, 1
    print(f"training decks ({len(train)}): {', '.join(train)}")
    print(f"held-out decks ({len(held)}): {', '.join(held)}")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    init_index = init_index2 = init_detector = None
    if args.init is not None:  # copied first: --init and --out may be the same folder
        import shutil
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix="companion-init-"))
        src = args.init / "float" if (args.init / "float" / "index.onnx").exists() else args.init
        for f in ("index.onnx", "detector.onnx"):
            if not (src / f).exists():
                print(f"error: --init {args.init}: no {f}", file=sys.stderr)
                return 2
            shutil.copy(src / f, tmp / f)
        second = src / "index2.onnx"
        shutil.copy(second if second.exists() else src / "index.onnx", tmp / "index2.onnx")
        init_index, init_index2, init_detector = tmp / "index.onnx", tmp / "index2.onnx", tmp / "detector.onnx"
    floats = out / "float"  # what training writes; the run time reads the quantized copies in out
    floats.mkdir(exist_ok=True)
    report_path = out / "training.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    report.update({"seed": args.seed, "training_decks": train, "held_out_decks": held})
    if args.only in (None, "index"):
        report["index"] = train_index(train, held, floats, seed=args.seed, n_train=args.index_samples,
                                      epochs=args.index_epochs, workers=args.workers,
                                      init=init_index)
        print(f"index reader: held-out glyph accuracy {report['index']['glyph_acc']:.4f}, "
              f"suit {report['index']['suit_acc']:.4f} ({report['index']['seconds']:.0f} s)")
    if args.only == "index2" or (args.only is None and not args.one_reader):
        # the second reader: its own seed, so its own data, initial weights and order of batches
        report["index2"] = train_index(train, held, floats, seed=args.seed + 1, n_train=args.index_samples,
                                       epochs=args.index_epochs, workers=args.workers, init=init_index2,
                                       name="index2.onnx")
        print(f"second index reader: held-out glyph accuracy {report['index2']['glyph_acc']:.4f}, "
              f"suit {report['index2']['suit_acc']:.4f} ({report['index2']['seconds']:.0f} s)")
    if args.only in (None, "detector"):
        report["detector"] = train_detector(train, held, floats, seed=args.seed, n_train=args.detector_scenes,
                                            epochs=args.detector_epochs, workers=args.workers,
                                            init=init_detector, game_share=args.detector_game_share)
        print(f"corner detector: {report['detector']['seconds']:.0f} s")
    if args.only in (None, "face"):
        from .train_face import train_face

        report["face"] = train_face(train, held, floats, seed=args.seed, n_train=args.face_samples,
                                    epochs=args.face_epochs, workers=args.workers)
        f = report["face"]["held_out"]["all"]
        print(f"face reader: held-out card {f['card']:.4f}, read {f['read']:.4f}, confidently wrong "
              f"{f['confidently_wrong']:.4f} ({report['face']['seconds']:.0f} s)")
    report["total_seconds"] = round(time.time() - t0, 1)
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    if args.one_reader and args.only is None and (floats / "index2.onnx").exists():
        (floats / "index2.onnx").unlink()  # a stale second reader would be averaged with the new first
    (out / "index2.onnx").unlink(missing_ok=True)
    files = [f for f in ("detector.onnx", "index.onnx", "index2.onnx", "face.onnx") if (floats / f).exists()]
    write_manifest(floats, files, {"trained_with_seed": args.seed, "held_out_decks": held})
    from .quantize import quantize_folder

    files = quantize_folder(floats, out, train)
    write_manifest(out, files, {"trained_with_seed": args.seed, "held_out_decks": held,
                                "readers_quantized_from": "float/"})
    size = sum((out / f).stat().st_size for f in files)
    print(f"done in {report['total_seconds'] / 60:.1f} min; models {size / 1e6:.2f} MB in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
