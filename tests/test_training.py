"""fit(): the schedule, learning, divergence detection, determinism of a whole record."""

import math

import pytest
import torch
from torch import nn

from statetrack.config import RunConfig, TrainConfig
from statetrack.models import make_model, model_config
from statetrack.runs.execute import run
from statetrack.tasks import make_task, task_config
from statetrack.training import fit, lr_at, resolve_device


def test_schedule_matches_warmup_then_cosine():
    cfg = TrainConfig(num_steps=110, warmup_steps=10, lr=1.0, min_lr_ratio=0.1)
    assert lr_at(0, cfg) == pytest.approx(0.1)
    assert lr_at(9, cfg) == pytest.approx(1.0)
    assert lr_at(10, cfg) == pytest.approx(1.0)
    assert lr_at(60, cfg) == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    assert lr_at(110, cfg) == pytest.approx(0.1)


def tiny_cfg(**train) -> RunConfig:
    return RunConfig(
        task=task_config("parity"),
        model=model_config("mamba", d_model=16, d_state=4, expand=1, d_conv=0, eig_range="[-1,1]"),
        train=TrainConfig(**{"num_steps": 40, "batch_size": 16, "lr": 3e-3, "warmup_steps": 4, "min_len": 6,
                             "max_len": 6, "log_every": 1, **train}),
    ).override({"eval.min_len": "8", "eval.max_len": "12", "eval.num_seqs": "32"})


def test_loss_drops_on_parity():
    cfg = tiny_cfg(num_steps=60)
    task = make_task(cfg.task)
    torch.manual_seed(0)
    model = make_model(cfg.model, task.vocab_size, task.num_classes)
    res = fit(model, task, cfg.train, cfg.seed, torch.device("cpu"))
    first, last = sum(res.history["loss"][:5]) / 5, sum(res.history["loss"][-5:]) / 5
    assert res.status == "ok" and last < first - 0.05


class _NaNAfter(nn.Module):
    """Logits that turn NaN at a given call: stands in for a state that overflowed."""

    def __init__(self, k: int):
        super().__init__()
        self.w, self.k, self.calls = nn.Parameter(torch.zeros(2)), k, 0

    def forward(self, x):
        self.calls += 1
        out = self.w.expand(*x.shape, 2)  # (B, T, 2)
        return out * float("nan") if self.calls > self.k else out


def test_divergence_is_recorded_with_its_step():
    task = make_task(task_config("parity"))
    res = fit(_NaNAfter(5), task, TrainConfig(num_steps=20, warmup_steps=0), 0, torch.device("cpu"))
    assert res.status == "diverged" and res.diverged_step == 5 and "loss" in res.reason


def test_same_config_same_record():
    cfg = tiny_cfg()
    a, b = run(cfg, "test"), run(cfg, "test")
    for rec in (a, b):
        rec.pop("provenance")
    assert a == b


def test_different_seed_different_record():
    a, b = run(tiny_cfg(), "test"), run(tiny_cfg().override({"seed": 1}), "test")
    assert a["history"]["loss"] != b["history"]["loss"]


def test_bad_device_is_rejected():
    with pytest.raises(ValueError, match="'tpu'"):
        resolve_device("tpu")
