"""The best constant predictor's record for a run config: the null model every trained statement is tested against.

p(y | x_{1..t}) = p̂(y) for every position and input: the majority class for a classification task (the constant
that maximises accuracy), the training split's byte frequencies for language modelling (the constant that minimises
cross-entropy: the unigram model). ``null_record(cfg)`` evaluates it with the task's own evaluation (the same
``evaluate_run`` or ``task.evaluate`` a trained run goes through, at the config's lengths and test seed), so its
summary and curve have every field a trained record has. A trained statement read on such records must not hold.

Used in: ``statetrack.verdicts.seed_statistics`` (the unigram loss a language model must beat to count as fitted),
tests/test_null_contract.py.
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch import nn

from statetrack.config import EvalConfig, RunConfig, TaskConfig, TrainConfig
from statetrack.evaluate import evaluate_run
from statetrack.tasks import make_task
from statetrack.tasks.base import IGNORE

#: Sequences drawn from the training distribution to find the majority class (a seed no evaluation uses).
CLASS_SAMPLE, CLASS_SEED = 2048, 7_777


class ConstantPredictor(nn.Module):
    """Logits ``log p̂`` at every position whatever the input: (B, T) ids → (B, T, C)."""

    def __init__(self, log_probs: torch.Tensor):
        super().__init__()
        self.register_buffer("log_probs", log_probs.float())  # (C,)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.log_probs.expand(*x.shape, -1)  # (B, T, C)


def class_frequencies(task_cfg: TaskConfig, train: TrainConfig) -> torch.Tensor:
    """p̂(y) over the labelled positions of training sequences (C,): for language modelling the training split's
    byte frequencies, else ``CLASS_SAMPLE`` sequences drawn as training draws them."""
    task = make_task(task_cfg)
    if hasattr(task, "stream"):
        targets = task.stream("train")  # (N,)
    else:
        batch = task.sample_range(torch.Generator().manual_seed(CLASS_SEED), CLASS_SAMPLE, train.min_len,
                                  train.max_len)
        targets = batch.targets[batch.mask]  # (n,) labelled positions
    targets = targets[targets != IGNORE]
    counts = torch.bincount(targets, minlength=task.num_classes).double()  # (C,)
    return counts / counts.sum()


def null_predictor(task_cfg: TaskConfig, train: TrainConfig) -> ConstantPredictor:
    """The best constant: one-hot on the majority class (classification), the unigram (language modelling)."""
    freq = class_frequencies(task_cfg, train)  # (C,)
    if task_cfg.name == "byte_lm":
        return ConstantPredictor(torch.log(freq.clamp_min(1e-12)))
    logits = torch.full_like(freq, -30.0)
    logits[int(freq.argmax())] = 0.0
    return ConstantPredictor(logits)


@functools.lru_cache(maxsize=256)
def _evaluated(task_cfg: TaskConfig, train: TrainConfig, ev: EvalConfig) -> dict[str, Any]:
    task = make_task(task_cfg)
    model = null_predictor(task_cfg, train)
    evaluate = getattr(task, "evaluate", None)
    if evaluate is not None:
        return evaluate(model, train=train, ev=ev, device="cpu")
    return evaluate_run(model, task, train, ev, "cpu")


def null_record(cfg: RunConfig) -> dict[str, Any]:
    """A record of ``cfg`` whose model is the best constant predictor: config, status "ok", summary, by_length."""
    out = _evaluated(cfg.task, cfg.train, cfg.eval)
    return {"config": cfg.to_dict(), "status": "ok", "summary": dict(out["summary"]),
            "by_length": out["by_length"]}


def unigram_val_loss(task_cfg: TaskConfig, train: TrainConfig, ev: EvalConfig) -> float:
    """A language model's floor for "fitted": the unigram model's validation loss (nats) on the windows a run of
    this config is validated on."""
    return float(_evaluated(task_cfg, train, ev)["summary"]["val_loss"])
