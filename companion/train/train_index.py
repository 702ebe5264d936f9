"""Train the index classifier (IndexNet) on crops from the training decks; validate on held-out decks."""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from ..progress import Progress
from .index_data import font_families
from ..vision.spec import GLYPHS, INDEX_CROP_H, INDEX_CROP_W, SUITS_OUT

__all__ = ["make_crops", "train_index"]


_ARTS: list = []
_BACKGROUNDS = None


#: The share of training table patches made pale (``Backgrounds.patch``).
PALE_SHARE = 0.2


def init_worker(names: list[str], seed: int) -> None:
    """Pool initializer shared by both trainers: load the decks and table textures once per process."""
    global _ARTS, _BACKGROUNDS
    from ..synth.composer import Backgrounds, drop_band_boxes, load_deck_art

    _ARTS = [drop_band_boxes(load_deck_art(name)) for name in names]
    _BACKGROUNDS = Backgrounds(np.random.default_rng(seed), every_pattern=True, pale_share=PALE_SHARE)


def worker_state() -> tuple[list, object]:
    """The decks and textures this worker process loaded."""
    return _ARTS, _BACKGROUNDS


def _worker(args: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    seed, n = args
    from .index_data import IndexSampler

    return IndexSampler(_ARTS, seed, backgrounds=_BACKGROUNDS).batch(n)


def make_crops(decks: Sequence[str], n: int, seed: int, workers: int = 2, chunk: int = 4000,
               desc: str = "crops", worker=_worker) -> tuple[np.ndarray, ...]:  # noqa: ANN001
    """``n`` training crops from ``decks`` (crops, glyph ids, suit ids, geometry corrections), made in
    parallel chunks; deterministic for a seed. ``worker`` makes one chunk from ``(seed, n)`` in a process
    that loaded the decks (another sampler's: the face reader's)."""
    jobs = [(seed * 1000 + k, min(chunk, n - k * chunk)) for k in range(math.ceil(n / chunk))]
    parts: list[tuple] = []
    bar = Progress(n, desc)
    ctx = mp.get_context("fork")
    with ctx.Pool(workers, initializer=init_worker, initargs=(list(decks), seed + 1)) as pool:
        for part in pool.imap(worker, jobs):
            parts.append(part)
            bar.update(len(part[0]))
    bar.close()
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(len(parts[0])))


def _to_tensor(x: np.ndarray):  # noqa: ANN202
    import torch

    return torch.from_numpy(x).permute(0, 3, 1, 2).float().div_(255.0)


def evaluate(model, x: np.ndarray, g: np.ndarray, s: np.ndarray, geo: np.ndarray | None = None,  # noqa: ANN001
             batch: int = 1024) -> dict:
    import torch

    model.eval()
    gp, sp, rp = [], [], []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            a, b, c = model(_to_tensor(x[i:i + batch]))
            gp.append(torch.softmax(a, 1).numpy())
            sp.append(torch.softmax(b, 1).numpy())
            rp.append(c.numpy())
    gp_all, sp_all, geo_pred = np.concatenate(gp), np.concatenate(sp), np.concatenate(rp)
    pos = g != 0
    extra = {}
    if geo is not None and pos.any():
        ok = pos & ~np.isnan(geo[:, :4]).any(1)
        err = np.abs(geo_pred[ok] - geo[ok, :4])
        base = np.abs(geo[ok, :4])
        extra = {"geometry_error": [round(float(v), 4) for v in err.mean(0)],
                 "geometry_uncorrected": [round(float(v), 4) for v in base.mean(0)]}
    return {
        **extra,
        "glyph_acc": float((gp_all.argmax(1) == g)[pos].mean()),
        "suit_acc": float((sp_all.argmax(1) == s)[pos].mean()),
        "bg_acc": float((gp_all.argmax(1) == 0)[~pos].mean()) if (~pos).any() else 1.0,
        "glyph_probs": gp_all,
        "suit_probs": sp_all,
    }


def train_index(train_decks: Sequence[str], val_decks: Sequence[str], out: Path, *, seed: int = 0,
                n_train: int = 240_000, n_val: int = 16_000, epochs: int = 8, batch: int = 256,
                workers: int = 2, init: Path | None = None, geo_weight: float = 2.0, name: str = "index.onnx",
                log=print) -> dict:  # noqa: ANN001
    """Make data, train, validate on held-out decks, export ``out/name``. Returns metrics.

    ``init``: an ``index.onnx`` to start from (fine-tuning: BatchNorm statistics kept, a third of the
    learning rate).
    """
    t0 = time.time()
    log(f"{name}: {len(train_decks)} training decks, held out: {', '.join(val_decks)}")
    xt, gt, st, rt = make_crops(train_decks, n_train, seed, workers, desc="index crops (train)")
    xv, gv, sv, rv = make_crops(val_decks, n_val, seed + 7919, workers, desc="index crops (held-out)")
    t_data = time.time() - t0

    import torch  # after the worker processes: fork before torch starts its threads
    from torch import nn
    from torch.nn import functional as F

    from .common import export_onnx, freeze_batchnorm, init_from_onnx, seed_everything, softmaxed
    from .nets import IndexNet
    seed_everything(seed)
    model = IndexNet()
    lr = 3e-3
    if init is not None:
        init_from_onnx(model, init, torch.zeros(1, 3, INDEX_CROP_H, INDEX_CROP_W))
        lr = 1e-3
        m0 = evaluate(model, xv, gv, sv, rv)
        log(f"  start ({init}): held-out glyph {m0['glyph_acc']:.4f} suit {m0['suit_acc']:.4f} "
            f"background {m0['bg_acc']:.4f}")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(xt) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    ce_each = nn.CrossEntropyLoss(label_smoothing=0.02, reduction="none")
    rng = np.random.default_rng(seed)
    bar = Progress(steps, "train index")
    for epoch in range(epochs):
        model.train()
        if init is not None:
            freeze_batchnorm(model)
        order = rng.permutation(len(xt))
        total = 0.0
        for k in range(len(xt) // batch):
            idx = order[k * batch:(k + 1) * batch]
            xb = _to_tensor(xt[idx])
            gb = torch.from_numpy(gt[idx])
            sb = torch.from_numpy(st[idx])
            rb = torch.from_numpy(rt[idx])
            lg, ls, lr = model(xb)
            # a crop cut from the wide misplacement teaches only where it should have been cut: the run
            # time cuts such a crop again before it counts, and reading glyphs cut in half would
            # teach the classifier to guess
            read = torch.from_numpy(~(rt[idx, 4] == 1.0))
            loss = (ce_each(lg, gb) * read).sum() / read.sum().clamp(min=1) + \
                (ce_each(ls, sb) * read).sum() / read.sum().clamp(min=1)
            has = ~torch.isnan(rb[:, :4]).any(1)
            if bool(has.any()):  # where the crop should have been cut (positives only)
                loss = loss + geo_weight * F.smooth_l1_loss(lr[has], rb[has, :4], beta=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            bar.update(1)
        m = evaluate(model, xv, gv, sv, rv)
        log(f"  epoch {epoch + 1}/{epochs}: loss {total / max(1, len(xt) // batch):.3f}  held-out glyph "
            f"{m['glyph_acc']:.4f} suit {m['suit_acc']:.4f} background {m['bg_acc']:.4f} geometry error "
            f"{m.get('geometry_error')} (uncorrected {m.get('geometry_uncorrected')})")
    bar.close()
    model.eval()
    export_onnx(softmaxed(model), torch.zeros(1, 3, INDEX_CROP_H, INDEX_CROP_W), out / name,
                "crops", ["glyph_probs", "suit_probs", "geometry"])
    final = evaluate(model, xv, gv, sv, rv)
    return {"glyph_acc": final["glyph_acc"], "suit_acc": final["suit_acc"], "bg_acc": final["bg_acc"],
            "geometry_error": final.get("geometry_error"), "geometry_uncorrected": final.get("geometry_uncorrected"),
            "n_train": int(len(xt)), "epochs": epochs, "init": str(init) if init else None, "data_seconds": round(t_data, 1),
            "seconds": round(time.time() - t0, 1), "glyphs": list(GLYPHS), "suits": list(SUITS_OUT),
            "font_families": [name for name, _ in font_families()]}
