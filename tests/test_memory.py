"""The peak-memory estimate against measured peaks, and the refusal of a run that cannot fit.

A family's peak is measured around one real training step (``training.fit``): the kernel's resident
high-water mark (``VmHWM``) is reset just before the step (``/proc/self/clear_refs``) and read after it.
So that freed memory leaves the process instead of waiting in the allocator's free lists (where a later
allocation would reuse it unseen), glibc is told to map large blocks one by one and to trim at once
while measuring. The size (batch 8, length 256, width 64, two layers) differs from the one the
coefficients were fitted at (batch 32).
"""

import contextlib
import ctypes
import os

import pytest
import torch

from statetrack.config import EvalConfig, RunConfig, TrainConfig
from statetrack.runs.memory import check_memory, estimate_bytes
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.training import fit

FAMILIES = ["mamba", "lstm", "transformer"]
CLEAR_REFS = "/proc/self/clear_refs"


def _cfg(model):
    return RunConfig(task=task_config("parity"), model=model_config(model, d_model=64, num_layers=2),
                     train=TrainConfig(num_steps=1, warmup_steps=0, batch_size=8, min_len=256, max_len=256),
                     eval=EvalConfig(min_len=256, max_len=256, num_seqs=8, batch_size=8))


def _status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))


@contextlib.contextmanager
def _glibc_returns_memory():
    libc = ctypes.CDLL("libc.so.6")
    m_trim, m_mmap = -1, -3  # mallopt's M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
    libc.mallopt(m_mmap, 1 << 20)
    libc.mallopt(m_trim, 0)
    try:
        yield libc
    finally:
        libc.mallopt(m_mmap, 128 << 10)  # glibc's defaults
        libc.mallopt(m_trim, 128 << 10)


def measured_peak(cfg):
    """Bytes by which one training step of ``cfg`` raises this process's resident memory at its peak."""
    task = make_task(cfg.task)
    model = make_model(cfg.model, task.vocab_size, task.num_classes)
    cpu = torch.device("cpu")
    fit(model, task, TrainConfig(num_steps=1, warmup_steps=0, batch_size=2, min_len=4, max_len=4), 0, cpu)  # set-up
    with _glibc_returns_memory() as libc:
        libc.malloc_trim(0)
        with open(CLEAR_REFS, "w") as f:
            f.write("5")  # VmHWM := VmRSS
        before = _status("VmRSS")
        fit(model, task, cfg.train, 0, cpu)
        return _status("VmHWM") - before


@pytest.mark.skipif(not (os.path.exists(CLEAR_REFS) and os.access(CLEAR_REFS, os.W_OK)),
                    reason="needs Linux's /proc/self/clear_refs to reset the resident high-water mark")
@pytest.mark.parametrize("model", FAMILIES)
def test_estimate_is_within_twice_the_measured_peak(model):
    cfg = _cfg(model)
    peak = measured_peak(cfg)
    est = estimate_bytes(cfg)
    assert peak > 8e6, peak  # well above the few pages a step needs besides its tensors
    assert peak / 2 <= est <= 2 * peak, (model, est, peak)


def test_estimate_grows_with_each_factor():
    base = estimate_bytes(_cfg("mamba"))
    for change in ({"train.batch_size": "16"}, {"train.max_len": "512"}, {"model.d_model": "128"},
                   {"model.num_layers": "4"}):
        assert estimate_bytes(_cfg("mamba").override(change)) > 1.5 * base, change


def test_a_run_that_cannot_fit_is_refused_by_name():
    cfg = _cfg("mamba").override({"train.max_len": "100000000"})
    with pytest.raises(ValueError) as e:
        check_memory(cfg, torch.device("cpu"))
    assert "train.max_len=100000000" in str(e.value) and "--ignore-memory" in str(e.value)
    assert check_memory(cfg, torch.device("cpu"), ignore=True) == estimate_bytes(cfg)
