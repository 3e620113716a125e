"""One ``fit()`` for every model: seeding, precision policy, AdamW, warm-up + cosine, clipping, divergence.

The recipe is the NE paper's (NE App. E.1.1): AdamW, a linear warm-up followed by a cosine decay to a
minimum learning rate, fresh data at every step. Each step draws ``batch_size`` sequences with lengths
uniform in ``[train.min_len, train.max_len]`` from a generator seeded with the run's seed, so the data
stream is part of the run's identity.

Precision: parameters and recurrences are fp32 and TF32 is switched off for the duration of ``fit``
(TF32 rounds matmul inputs to a 10-bit mantissa, and a recurrence carries that error from step to
step).

Divergence: a non-finite loss or gradient norm stops training; the run is then reported as diverged
at that step and carries no accuracy.

Used in: every claim that trains a model.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from tqdm import tqdm

from statetrack.config import TrainConfig
from statetrack.tasks.base import Task


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """"auto" → CUDA when available, else CPU. Anything else must name a device torch knows."""
    if str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown device {device!r}; allowed: auto, cpu, cuda, cuda:N") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was asked for but CUDA is not available here; use auto or cpu")
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {device!r}; allowed: auto, cpu, cuda, cuda:N")
    return dev


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


@contextlib.contextmanager
def fp32_policy():
    """TF32 off for matmuls and cuDNN while the block runs; the previous settings come back after."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def lr_at(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up to ``lr`` over ``warmup_steps``, then cosine decay to ``lr·min_lr_ratio``."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    span = max(1, cfg.num_steps - cfg.warmup_steps)
    progress = min(1.0, (step - cfg.warmup_steps) / span)
    floor = cfg.lr * cfg.min_lr_ratio
    return floor + 0.5 * (cfg.lr - floor) * (1 + math.cos(math.pi * progress))


def param_groups(model: nn.Module, weight_decay: float) -> list[dict]:
    """Weight decay on matrices (embeddings, projections); none on biases, norms, A_log, D."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@dataclass
class FitResult:
    """What training produced: status, where it diverged, the loss curve and time spent."""

    status: str = "ok"  # "ok" or "diverged"
    diverged_step: int | None = None
    reason: str | None = None
    train_time_s: float = 0.0
    history: dict = field(default_factory=lambda: {"step": [], "loss": [], "lr": [], "evals": []})

    @property
    def final_loss(self) -> float | None:
        return self.history["loss"][-1] if self.history["loss"] else None


def fit(model: nn.Module, task: Task, cfg: TrainConfig, seed: int, device: torch.device,
        progress: bool = False, on_eval=None) -> FitResult:
    """Train ``model`` on fresh batches of ``task``; the model is modified in place.

    Args:
        model: maps token ids (B, T) to logits (B, T, K), already on ``device``.
        task: the data source; batches are generated on the CPU from ``seed``.
        cfg: the optimisation settings.
        seed: seeds the data stream (the caller seeds the initialisation before building the model).
        device: where the model lives.
        progress: show a tqdm bar on stderr.
        on_eval: optional ``f(step) -> dict`` called every ``cfg.eval_every`` steps; its result is
            appended to ``history["evals"]``.
    Returns:
        A ``FitResult``; ``status == "diverged"`` when a loss or gradient norm was not finite.
    """
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(param_groups(model, cfg.weight_decay), lr=cfg.lr, betas=(cfg.beta1, cfg.beta2))
    result = FitResult()
    model.train()
    start = time.perf_counter()
    bar = tqdm(range(cfg.num_steps), disable=not progress, leave=False, mininterval=1.0, desc="train")
    with fp32_policy():
        for step in bar:
            lr = lr_at(step, cfg)
            for group in opt.param_groups:
                group["lr"] = lr
            batch = task.sample_range(gen, cfg.batch_size, cfg.min_len, cfg.max_len).to(device)
            logits = model(batch.inputs)  # (B, T, K)
            loss = F.cross_entropy(logits[batch.mask], batch.targets[batch.mask])
            if not torch.isfinite(loss):
                return _diverged(result, step, f"loss is {loss.item()}", start)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip if cfg.grad_clip > 0 else float("inf"))
            if not torch.isfinite(norm):
                return _diverged(result, step, f"gradient norm is {norm.item()}", start)
            opt.step()
            if step % cfg.log_every == 0 or step == cfg.num_steps - 1:
                result.history["step"].append(step)
                result.history["loss"].append(loss.item())
                result.history["lr"].append(lr)
                bar.set_postfix(loss=f"{loss.item():.4f}", refresh=False)
            if on_eval is not None and cfg.eval_every and (step + 1) % cfg.eval_every == 0 and step + 1 < cfg.num_steps:
                t0 = time.perf_counter()
                result.history["evals"].append({"step": step + 1, **on_eval(step + 1)})
                start += time.perf_counter() - t0  # evaluation is not training time
    result.train_time_s = time.perf_counter() - start
    return result


def _diverged(result: FitResult, step: int, reason: str, start: float) -> FitResult:
    result.status, result.diverged_step, result.reason = "diverged", step, reason
    result.train_time_s = time.perf_counter() - start
    return result
