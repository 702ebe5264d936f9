"""Loading the ONNX models, each checked against the sha256 in ``models/manifest.json``.

onnxruntime only; torch is never imported here. One intra-op thread by default: the companion runs
beside a video loop on a laptop, and the benchmark targets are per core.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["ModelError", "ModelHashError", "default_models_dir", "load_session", "read_manifest", "sha256_file"]


class ModelError(Exception):
    """A model file that is missing, unreadable or not listed in the manifest."""


class ModelHashError(ModelError):
    """A model file whose sha256 differs from the manifest's (corrupted or replaced)."""


def default_models_dir() -> Path:
    """``$COMPANION_MODELS``, else the ``models/`` folder next to the package (the repository's)."""
    env = os.environ.get("COMPANION_MODELS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "models", here.parent / "models"):
        if (candidate / "manifest.json").exists():
            return candidate
    return here.parent / "models"


def read_manifest(models_dir: Path) -> dict:
    path = models_dir / "manifest.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ModelError(f"no model manifest at {path}: run `make train` or restore models/") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelError(f"cannot read {path}: {exc}") from None


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file (what the manifest records)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_session(models_dir: Path, name: str, threads: int = 1):  # noqa: ANN201 - ort.InferenceSession
    """An onnxruntime session for ``models_dir/name`` after checking its hash against the manifest."""
    import onnxruntime as ort

    manifest = read_manifest(models_dir)
    entry = manifest.get("files", {}).get(name)
    if entry is None:
        raise ModelError(f"{name} is not listed in {models_dir / 'manifest.json'}")
    path = models_dir / name
    if not path.exists():
        raise ModelError(f"model file {path} is missing")
    digest = sha256_file(path)
    if digest != entry["sha256"]:
        raise ModelHashError(
            f"model file {path} is corrupted or was replaced (sha256 {digest[:12]}..., manifest says "
            f"{entry['sha256'][:12]}...): restore it with `git checkout -- {path}` or retrain with `make train`")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise ModelError(f"cannot load {path}: {str(exc).splitlines()[0]}") from None
