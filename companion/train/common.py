"""What every training step shares: the deck split, seeds, threads, ONNX export."""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path

import numpy as np

from ..vision.spec import HELD_OUT_DECKS  # whole decks never trained on (also the benchmark's)

__all__ = ["HELD_OUT_DECKS", "training_decks", "seed_everything", "export_onnx", "softmaxed", "write_manifest"]


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


def softmaxed(model, n_probs: int = 2):  # noqa: ANN001, ANN201
    """``model`` with softmax on its first ``n_probs`` outputs (class logits -> the probabilities the
    run time reads); any further output (a reader's geometry) passes through."""
    import torch

    class Softmaxed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, x):  # noqa: ANN001, ANN202
            outs = self.inner(x)
            return tuple(torch.softmax(o, 1) if k < n_probs else o for k, o in enumerate(outs))

    return Softmaxed().eval()


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


def init_from_onnx(model, onnx_path: Path, example) -> int:  # noqa: ANN001
    """Start ``model`` from the weights of an exported model (for fine-tuning); returns tensors loaded.

    The export folds each BatchNorm into the convolution before it, so every convolution is loaded
    in execution order with its folded weight and bias, and its BatchNorm is set to the identity
    plus that bias (mean 0, variance 1). Fine-tune with :func:`freeze_batchnorm` so the folded
    statistics stay as they are. Layers without a BatchNorm keep their names and load by name.
    """
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(str(onnx_path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs_onnx = [n for n in graph.node if n.op_type == "Conv"]
    order: list[nn.Conv2d] = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append(mod)) for m in model.modules()
             if isinstance(m, nn.Conv2d)]
    model.eval()
    with torch.no_grad():
        model(example)
    for h in hooks:
        h.remove()
    if len(order) != len(convs_onnx):
        raise ValueError(f"{onnx_path}: {len(convs_onnx)} convolutions, the model has {len(order)}")
    bn_after = {}
    mods = list(model.modules())
    for seq in mods:
        if isinstance(seq, nn.Sequential):
            kids = list(seq)
            for a, b in zip(kids, kids[1:]):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    bn_after[id(a)] = b
    loaded = 0
    with torch.no_grad():
        for conv, node in zip(order, convs_onnx):
            w = torch.from_numpy(inits[node.input[1]].copy())
            b = torch.from_numpy(inits[node.input[2]].copy()) if len(node.input) > 2 else None
            if w.shape != conv.weight.shape:
                raise ValueError(f"{onnx_path}: convolution {node.name} is {tuple(w.shape)}, "
                                 f"the model's {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bn = bn_after.get(id(conv))
            if bn is not None:
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0)
                bn.weight.fill_(math.sqrt(1.0 + bn.eps))
                bn.bias.copy_(b if b is not None else torch.zeros_like(bn.bias))
            elif b is not None:
                conv.bias.copy_(b)
            loaded += 1
        state = model.state_dict()
        for name, arr in inits.items():
            key = name[len("inner."):] if name.startswith("inner.") else name
            if key in state and tuple(state[key].shape) == arr.shape:
                state[key].copy_(torch.from_numpy(arr.copy()))
                loaded += 1
    return loaded


def freeze_batchnorm(model) -> None:  # noqa: ANN001
    """Keep every BatchNorm on its running statistics while the rest trains (after ``model.train()``)."""
    from torch import nn

    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
