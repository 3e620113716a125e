"""Peak memory of a run, estimated from its config before anything is built, and the check against the device.

A training step holds the weights, their gradients and AdamW's two moments (16 bytes per parameter)
plus the activations autograd keeps for the backward pass, which grow as batch × length × width ×
layers. Evaluation holds the weights, the test batch and one forward pass without a graph. The
estimate is the larger of the two::

    train = 16 P + B T (4 D (first + per_layer (L - 1)) + 16 K + 64)
    eval  = 4 P + B_e T_e 4 D first · eval_share + num_seqs T_e · 24

P parameters (counted on PyTorch's ``meta`` device, which allocates nothing), B and T the training
batch and longest length, B_e and T_e evaluation's, D ``d_model``, L ``num_layers``, K the task's
classes (logits and their gradient). ``first``, ``per_layer`` and ``eval_share`` are per model family
(floats per token and unit of width; a model config's ``activation_floats``, bilinear's width being its
state size H, one layer), measured on a CPU with the fast backends at the default
configs (peak resident memory of one training step at batch 32, length 256, width 64 and 128, one
and two layers); tests/test_memory.py holds the estimate to within 2× of the measured peak.

``check_memory(cfg, device)`` refuses a run whose estimate exceeds the memory the device has free
(CPU: ``MemAvailable`` of /proc/meminfo; CUDA: ``torch.cuda.mem_get_info``) with a ``ConfigError``
naming the config values that set it; ``--ignore-memory`` (CLI) or ``STATETRACK_IGNORE_MEMORY=1``
(notebooks, which inherit it from ``statetrack reproduce --ignore-memory``) skips the check.

Used in: ``statetrack train``, ``verdicts.registry.preflight`` (every notebook, ``reproduce``, ``sweep``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from statetrack.config import ConfigError, RunConfig
from statetrack.models import make_model
from statetrack.tasks import make_task

IGNORE_ENV = "STATETRACK_IGNORE_MEMORY"


@dataclass(frozen=True)
class Family:
    """Activation floats per token and unit of ``d_model``: the first layer (with embedding and head), each further
    layer, and the share of the first that one forward pass without a graph needs at once."""

    first: float
    per_layer: float
    eval_share: float = 0.5


GENERIC = Family(100.0, 90.0)  # a model not measured yet: as large as the largest measured


def activations(model) -> Family:
    """The activation floats a model config declares (``activation_floats``), else ``GENERIC``."""
    floats = getattr(model, "activation_floats", None)
    return Family(*floats) if floats is not None else GENERIC


@functools.lru_cache(maxsize=None)
def _task_shape(task) -> tuple[int, int]:

    t = make_task(task)
    return t.vocab_size, t.num_classes


@functools.lru_cache(maxsize=None)
def num_params(model, task) -> int:
    """Parameters of ``model`` for ``task``, counted on the meta device (nothing is allocated)."""
    import torch


    vocab, classes = _task_shape(task)
    with torch.device("meta"):
        return sum(p.numel() for p in make_model(model, vocab, classes).parameters())


def estimate_bytes(cfg: RunConfig) -> int:
    """Peak bytes a run of ``cfg`` needs beyond the process it runs in: the larger of training and evaluation."""
    fam = activations(cfg.model)
    _, classes = _task_shape(cfg.task)
    P = num_params(cfg.model, cfg.task)
    D, L = cfg.model.d_model, cfg.model.num_layers
    tr, ev = cfg.train, cfg.eval
    per_token = 4 * D * (fam.first + fam.per_layer * (L - 1)) + 16 * classes + 64
    train = 16 * P + tr.batch_size * tr.max_len * per_token
    evaluate = (4 * P + min(ev.batch_size, ev.num_seqs) * ev.max_len * 4 * D * fam.first * fam.eval_share
                + ev.num_seqs * ev.max_len * 24)
    return int(max(train, evaluate))


def available_bytes(device) -> int:
    """Memory free for a run on ``device`` (a ``torch.device``): MemAvailable on a CPU, free device memory on CUDA."""
    if device.type == "cuda":
        import torch

        return int(torch.cuda.mem_get_info(device)[0])
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import psutil

    return int(psutil.virtual_memory().available)


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def ignored() -> bool:
    return os.environ.get(IGNORE_ENV, "").strip().lower() in ("1", "true", "yes")


def check_memory(cfg: RunConfig, device, ignore: bool = False) -> int:
    """Refuse ``cfg`` with a ``ConfigError`` when its estimated peak exceeds ``device``'s free memory; returns the estimate.

    The message names the values that set the estimate (batch, lengths, width, layers, parameters) and how
    to go on anyway. ``ignore`` (or ``STATETRACK_IGNORE_MEMORY=1``) skips the refusal.
    """
    need = estimate_bytes(cfg)
    if ignore or ignored():
        return need
    have = available_bytes(device)
    if need > have:
        tr, ev = cfg.train, cfg.eval
        raise ConfigError(
            f"run {cfg.task.name}/{cfg.model.label} needs about {_gib(need)} but {device.type} has {_gib(have)} free "
            f"(train.batch_size={tr.batch_size}, train.max_len={tr.max_len}, eval.batch_size={ev.batch_size}, "
            f"eval.max_len={ev.max_len}, model.d_model={cfg.model.d_model}, model.num_layers={cfg.model.num_layers}, "
            f"{num_params(cfg.model, cfg.task):,} parameters); allowed: a config that fits, or --ignore-memory / "
            f"{IGNORE_ENV}=1 to run it anyway")
    return need
