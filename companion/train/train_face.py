"""Train the face reader (FaceNet) on whole-card crops of the training decks; validate on held-out decks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

import numpy as np

from ..progress import Progress
from ..vision.spec import FACE_CROP_H, FACE_CROP_W, FACE_RANKS, SUITS_OUT
from .face_data import NONE_RANK
from .train_index import _to_tensor

__all__ = ["make_faces", "train_face", "face_figures"]

#: Card heights (px) of the figures by size.
SIZE_BANDS = ((45, 60), (60, 90), (90, 120), (120, 161))


def _worker(args: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    seed, n = args
    from .face_data import FaceSampler
    from .train_index import worker_state

    arts, backgrounds = worker_state()
    return FaceSampler(arts, seed, backgrounds=backgrounds).batch(n)


def make_faces(decks: Sequence[str], n: int, seed: int, workers: int = 2, chunk: int = 4000,
               desc: str = "face crops") -> tuple[np.ndarray, ...]:
    """``n`` whole-card crops from ``decks`` (crops, rank ids, suit ids, card heights), made in parallel
    chunks; deterministic for a seed."""
    from .train_index import make_crops

    return make_crops(decks, n, seed, workers, chunk, desc, worker=_worker)


def predict(model, x: np.ndarray, batch: int = 1024) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    import torch

    model.eval()
    rp, sp = [], []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            a, b = model(_to_tensor(x[i:i + batch]))
            rp.append(torch.softmax(a, 1).numpy())
            sp.append(torch.softmax(b, 1).numpy())
    return np.concatenate(rp), np.concatenate(sp)


def face_figures(rank_p: np.ndarray, suit_p: np.ndarray, r: np.ndarray, s: np.ndarray, h: np.ndarray,
                 confidence: float = 0.9) -> dict:
    """Held-out figures: of the cards (not "none"), rank right, card right, read (rank and suit at
    ``confidence``) and confidently wrong; of the "none" crops, how many were read as a card; by size."""
    rk, su = rank_p.argmax(1), suit_p[:, :4].argmax(1)
    sure = (rank_p.max(1) >= confidence) & (rank_p.argmax(1) != NONE_RANK) & (suit_p[:, :4].max(1) >= confidence)
    card = r != NONE_RANK
    right = (rk == r) & (su == s)

    def block(m: np.ndarray) -> dict:
        n = int(m.sum())
        return {"n": n, "rank": round(float((rk == r)[m].mean()), 4) if n else None,
                "card": round(float(right[m].mean()), 4) if n else None,
                "read": round(float(sure[m].mean()), 4) if n else None,
                "confidently_wrong": round(float((sure & ~right)[m].mean()), 4) if n else None}

    out = {"all": block(card), "none_read_as_a_card": round(float(sure[~card].mean()), 4) if (~card).any() else None}
    for lo, hi in SIZE_BANDS:
        out[f"{lo}-{hi - 1}px"] = block(card & (h >= lo) & (h < hi))
    return out


def train_face(train_decks: Sequence[str], val_decks: Sequence[str], out: Path, *, seed: int = 0,
               n_train: int = 120_000, n_val: int = 8_000, epochs: int = 8, batch: int = 256, workers: int = 2,
               log=print) -> dict:  # noqa: ANN001
    """Make data, train, validate on held-out decks, export ``out/face.onnx``. Returns metrics."""
    t0 = time.time()
    log(f"face.onnx: {len(train_decks)} training decks, held out: {', '.join(val_decks)}")
    xt, rt, st, _ = make_faces(train_decks, n_train, seed, workers, desc="face crops (train)")
    xv, rv, sv, hv = make_faces(val_decks, n_val, seed + 7919, workers, desc="face crops (held-out)")
    t_data = time.time() - t0

    import torch  # after the worker processes: fork before torch starts its threads
    from torch import nn

    from .common import export_onnx, seed_everything, softmaxed
    from .nets import FaceNet

    seed_everything(seed)
    model = FaceNet()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * (len(xt) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    ce = nn.CrossEntropyLoss(label_smoothing=0.02)
    rng = np.random.default_rng(seed)
    bar = Progress(steps, "train face")
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(xt))
        total = 0.0
        for k in range(len(xt) // batch):
            idx = order[k * batch:(k + 1) * batch]
            lr_, ls = model(_to_tensor(xt[idx]))
            loss = ce(lr_, torch.from_numpy(rt[idx])) + ce(ls, torch.from_numpy(st[idx]))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            bar.update(1)
        f = face_figures(*predict(model, xv), rv, sv, hv)
        log(f"  epoch {epoch + 1}/{epochs}: loss {total / max(1, len(xt) // batch):.3f}  held-out card "
            f"{f['all']['card']:.4f} read {f['all']['read']:.4f} confidently wrong {f['all']['confidently_wrong']:.4f}")
    bar.close()
    model.eval()
    export_onnx(softmaxed(model), torch.zeros(1, 3, FACE_CROP_H, FACE_CROP_W), out / "face.onnx",
                "cards", ["rank_probs", "suit_probs"])
    final = face_figures(*predict(model, xv), rv, sv, hv)
    return {"held_out": final, "n_train": int(len(xt)), "epochs": epochs, "data_seconds": round(t_data, 1),
            "seconds": round(time.time() - t0, 1), "ranks": list(FACE_RANKS), "suits": list(SUITS_OUT)}
