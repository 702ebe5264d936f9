"""What every training step shares: the deck split, seeds, threads, ONNX export."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np

from ..vision.spec import HELD_OUT_DECKS  # whole decks never trained on (also the benchmark's)

__all__ = ["HELD_OUT_DECKS", "training_decks", "seed_everything", "export_onnx", "write_manifest"]


def training_decks(exclude: tuple[str, ...] = HELD_OUT_DECKS) -> list[str]:
    """Every usable deck here that is not held out (builtin styles, GNOME, KDE when PySide6 is there)."""
    from ..synth.decks import list_decks
    from .index_data import usable_for_index

    return [d.name for d in list_decks() if usable_for_index(d) and d.name not in exclude]


def seed_everything(seed: int, threads: int | None = None) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    env = int(os.environ.get("COMPANION_TORCH_THREADS", "0") or 0)
    torch.set_num_threads(threads or env or max(1, os.cpu_count() or 1))


def export_onnx(model, example, path: Path, input_name: str, output_names: list[str],
                dynamic_batch: bool = True, dynamic_hw: bool = False) -> None:
    """Export a torch model to a single ONNX file (no external data)."""
    import torch

    model.eval()
    axes: dict[str, dict[int, str]] = {}
    if dynamic_batch:
        axes[input_name] = {0: "batch"}
        for name in output_names:
            axes[name] = {0: "batch"}
    if dynamic_hw:
        axes.setdefault(input_name, {}).update({2: "height", 3: "width"})
        for name in output_names:
            axes.setdefault(name, {}).update({2: "out_height", 3: "out_width"})
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, example, str(path), input_names=[input_name], output_names=output_names,
                      dynamic_axes=axes or None, opset_version=17, dynamo=False)


def write_manifest(models_dir: Path, files: list[str], extra: dict | None = None) -> Path:
    """``models/manifest.json``: the sha256 of every model file, checked at load."""
    from ..vision.models import sha256_file

    manifest = {"files": {name: {"sha256": sha256_file(models_dir / name), "bytes": (models_dir / name).stat().st_size}
                          for name in files}}
    if extra:
        manifest.update(extra)
    path = models_dir / "manifest.json"
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return path
