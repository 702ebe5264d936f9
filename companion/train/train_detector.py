"""Train the corner detector (CornerNet) on composed scenes from the training decks."""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from ..progress import Progress
from .train_index import init_worker, worker_state
from ..vision.spec import DETECTOR_STRIDE

__all__ = ["make_scenes", "train_detector", "detector_loss"]

def _worker(args: tuple):  # noqa: ANN202
    """``n`` (image, targets) pairs from a composed-scene sampler, or with decks given, from games."""
    seed, n, w, h, *game_decks = args
    if game_decks:
        from .game_data import GameSceneSampler

        sampler = GameSceneSampler(game_decks[0], seed, out_w=w, out_h=h, frames_per_game=GAME_FRAMES_EACH)
    else:
        from .detector_data import SceneSampler

        arts, backgrounds = worker_state()
        sampler = SceneSampler(arts, seed, out_w=w, out_h=h, backgrounds=backgrounds)
    gw, gh = w // DETECTOR_STRIDE, h // DETECTOR_STRIDE
    imgs = np.empty((n, h, w, 3), np.uint8)
    heat = np.empty((n, 2, gh, gw), np.float16)
    weight = np.empty((n, 2, gh, gw), np.float16)
    reg = np.empty((n, 8, gh, gw), np.float16)
    mask = np.empty((n, 2, gh, gw), np.float16)
    for i in range(n):
        img, t = sampler.sample()
        imgs[i], heat[i], weight[i], reg[i] = img, t.heat, t.weight, t.reg
        mask[i, 0], mask[i, 1] = t.reg_mask, t.reg_mask_down
    return imgs, heat, weight, reg, mask


#: Windows cut from each rendered game (planning a game takes about 7 s here, a frame 0.12 s).
GAME_FRAMES_EACH = 25


def make_scenes(decks: Sequence[str], n: int, seed: int, w: int = 256, h: int = 192, workers: int = 2,
                chunk: int = 500, desc: str = "scenes", games: bool = False):  # noqa: ANN201
    """``n`` composed scenes (or, with ``games``, windows of rendered game frames) with targets."""
    chunk = min(chunk, 100) if games else chunk  # a game chunk takes minutes: finer progress
    extra = (list(decks),) if games else ()  # the worker samples games of these decks
    jobs = [(seed * 1000 + k, min(chunk, n - k * chunk), w, h, *extra) for k in range(math.ceil(n / chunk))]
    parts = []
    bar = Progress(n, desc)
    with mp.get_context("fork").Pool(workers, initializer=init_worker, initargs=(list(decks), seed + 3)) as pool:
        for part in pool.imap(_worker, jobs):
            parts.append(part)
            bar.update(len(part[0]))
    bar.close()
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(5))


def detector_loss(out, heat, weight, reg, mask):  # noqa: ANN001, ANN201
    """CenterNet focal loss on both heatmaps + L1 on the regressions where supervised."""
    import torch
    from torch.nn import functional as F

    logits = out[:, :2]
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 0.999).float()
    neg = 1 - pos
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * neg * weight
    n_pos = pos.sum().clamp(min=1.0)
    l_heat = (pos_loss.sum() + neg_loss.sum()) / n_pos
    r = out[:, 2:]
    m_up = mask[:, 0:1]
    m_down = mask[:, 1:2]
    l1 = F.smooth_l1_loss(r, reg, reduction="none", beta=0.1)
    w_ch = torch.tensor([1, 1, 1, 1, 1, 1, 1, 1], dtype=r.dtype, device=r.device).view(1, 8, 1, 1)
    l_up = (l1 * w_ch * m_up).sum() / m_up.sum().clamp(min=1.0)
    # face-down: offset, up and card height only
    l_down = (l1[:, :5] * m_down).sum() / m_down.sum().clamp(min=1.0)
    return l_heat + l_up + 0.5 * l_down, (float(l_heat.detach()), float(l_up.detach()), float(l_down.detach()))


def train_detector(train_decks: Sequence[str], val_decks: Sequence[str], out: Path, *, seed: int = 0,
                   n_train: int = 16_000, n_val: int = 600, epochs: int = 6, batch: int = 16, w: int = 256,
                   h: int = 192, workers: int = 2, init: Path | None = None, game_share: float = 0.0,
                   log=print) -> dict:  # noqa: ANN001
    """Make scenes, train, export ``out/detector.onnx``; ``init``: a ``detector.onnx`` to fine-tune;
    ``game_share``: the share of training scenes cut from rendered games of the training decks
    (:mod:`companion.train.game_data`) instead of composed."""
    if not 0.0 <= game_share <= 1.0:
        raise ValueError(f"game_share must be between 0 and 1, got {game_share}")
    t0 = time.time()
    log(f"detector: {len(train_decks)} training decks, held out: {', '.join(val_decks)}")
    n_game = int(round(n_train * game_share))
    tr = make_scenes(train_decks, n_train - n_game, seed, w, h, workers, desc="detector scenes (train)")
    if n_game:
        # games of the same training decks, from a seed apart from the composed scenes' stream
        gm = make_scenes(train_decks, n_game, seed + 104729, w, h, workers, desc="detector game frames (train)",
                         games=True)
        tr = tuple(np.concatenate([a, b]) for a, b in zip(tr, gm))
    va = make_scenes(val_decks, n_val, seed + 7919, w, h, workers, desc="detector scenes (held-out)")
    t_data = time.time() - t0

    import torch

    from .common import export_onnx, freeze_batchnorm, init_from_onnx, seed_everything
    from .nets import CornerNet

    seed_everything(seed)
    model = CornerNet()
    lr = 2e-3
    if init is not None:
        init_from_onnx(model, init, torch.zeros(1, 3, h, w))
        lr = 7e-4
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (n_train // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    rng = np.random.default_rng(seed)

    def tensors(data, idx):  # noqa: ANN001, ANN202
        imgs, heat, weight, reg, mask = (d[idx] for d in data)
        x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float().div_(255.0)
        return (x, torch.from_numpy(heat.astype(np.float32)), torch.from_numpy(weight.astype(np.float32)),
                torch.from_numpy(reg.astype(np.float32)), torch.from_numpy(mask.astype(np.float32)))

    bar = Progress(steps, "train detector")
    history = []
    for epoch in range(epochs):
        model.train()
        if init is not None:
            freeze_batchnorm(model)
        order = rng.permutation(n_train)
        parts = np.zeros(3)
        for k in range(n_train // batch):
            x, heat, weight, reg, mask = tensors(tr, order[k * batch:(k + 1) * batch])
            loss, comp = detector_loss(model(x), heat, weight, reg, mask)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            parts += comp
            bar.update(1)
        model.eval()
        with torch.no_grad():
            vparts = np.zeros(3)
            nb = 0
            for k in range(0, n_val, 32):
                x, heat, weight, reg, mask = tensors(va, np.arange(k, min(k + 32, n_val)))
                _, comp = detector_loss(model(x), heat, weight, reg, mask)
                vparts += comp
                nb += 1
        parts /= max(1, n_train // batch)
        vparts /= max(1, nb)
        history.append({"epoch": epoch + 1, "train": parts.round(4).tolist(), "held_out": vparts.round(4).tolist()})
        log(f"  epoch {epoch + 1}/{epochs}: train heat {parts[0]:.3f} reg {parts[1]:.3f} down {parts[2]:.3f} | "
            f"held-out heat {vparts[0]:.3f} reg {vparts[1]:.3f} down {vparts[2]:.3f}")
    bar.close()
    export_onnx(_Exported(model), torch.zeros(1, 3, 224, 384), out / "detector.onnx", "image", ["maps"],
                dynamic_batch=False, dynamic_hw=True)
    return {"epochs": epochs, "n_train": n_train, "game_share": game_share, "init": str(init) if init else None,
            "data_seconds": round(t_data, 1),
            "seconds": round(time.time() - t0, 1), "history": history}


def _Exported(model):  # noqa: N802, ANN001, ANN202
    """The detector with sigmoid applied to its two heatmaps, as the run time reads it."""
    import torch

    class Exported(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, x):  # noqa: ANN001, ANN202
            y = self.inner(x)
            return torch.cat([torch.sigmoid(y[:, :2]), y[:, 2:]], 1)

    return Exported().eval()
