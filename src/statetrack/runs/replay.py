"""A record was made by this code: loss_t of its first N logged steps, retrained from its config and seed.

``replay(rec, cfg, logged)`` rebuilds the run as every run is built (``runs.execute.build``: task, seeds, model,
the evaluation callback of ``training.fit``) and watches ``fit`` train: the task's batches and the model's
training-mode logits give the loss of each step, computed as ``fit`` computes it, and training stops right after
the last step asked for. Nothing of ``fit`` is changed or copied; the learning-rate schedule is the record's, so step t of the
replay is step t of the run.

The replayed losses are compared with the record's ``history.loss``:

- **exactly** (bit for bit), every logged step asked for, when the replay runs where the record was made: the
  same device type, for a CPU run the same CPU kind (``provenance.cpu_kind``) and thread count, and the same torch;
- else to ``TOLERANCE`` (relative), at the logged steps up to training step ``HORIZON``. Other rounding (another
  CPU kind, thread count or MKL code path) moved a loss by at most 1.1e-7 relative in the first 10 steps of one
  record of each family, but training amplifies it: 1 thread against 2 passes ``TOLERANCE`` at step 40 (mLSTM),
  50 (Gated DeltaNet) and 70 (PD-SSM), and reaches 3e-2 by step 90 (``benchmarks/replay_tolerance.py``; its
  measurements are in ``benchmarks/results/replay_tolerance.json``). Later logged steps are neither retrained nor
  compared there.

A replay costs the prefix, not the run: ``history.step[N-1] + 1`` training steps (see ``REPLAY_COST``).

Used in: ``statetrack.runs.intake`` (``statetrack verify --records DIR --replay N``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch.nn import functional as F

from statetrack.config import RunConfig
from statetrack.runs.execute import build
from statetrack.runs.provenance import cpu_kind
from statetrack.training import fit, resolve_device

#: Relative difference allowed between a replayed loss and the record's where the comparison is not exact: about 90
#: times the largest measured up to ``HORIZON`` (1.1e-7; benchmarks/replay_tolerance.py).
TOLERANCE = 1e-5
#: The last training step a comparison that is not exact reads (later steps drift apart under other rounding).
HORIZON = 10

#: What a replay of the first 2 logged steps (11 training steps at quick) costs on one thread, by family;
#: printed by ``statetrack verify --help`` (benchmarks/results/replay_tolerance.json).
REPLAY_COST = "about 0.05 s (bilinear) to 0.25 s (xLSTM) a record, 1 to 1.2 s for the byte models (Mamba, DeltaNet)"


class _Stop(Exception):
    """Raised from the task's sampler once the last step asked for has trained."""


@dataclass
class Replay:
    """What a replay found: the losses compared, how, and the first step that differs (None when all agree)."""

    steps: list[int]
    recorded: list[float]
    replayed: list[float]
    exact: bool  # bit for bit, else to TOLERANCE
    where: str  # why the comparison is exact or toleranced
    first_bad: int | None = None  # index into steps

    def line(self) -> str:
        how = "bit for bit" if self.exact else f"to {TOLERANCE:g} relative up to step {HORIZON}"
        if self.first_bad is None:
            return f"replayed {len(self.steps)} logged steps (to step {self.steps[-1]}), equal {how} ({self.where})"
        i = self.first_bad
        a, b = self.recorded[i], self.replayed[i]
        return (f"history.loss at step {self.steps[i]} holds {a!r}; replayed here: {b!r} (differs by "
                f"{abs(a - b) / max(abs(b), 1e-30):.2g} relative; compared {how}, {self.where})")


def exact_here(rec: dict[str, Any], device: torch.device) -> tuple[bool, str]:
    """Whether a replay on ``device`` should match ``rec`` bit for bit, and why (or why not)."""
    prov = rec["provenance"]
    made = torch.device(prov["device"]).type
    if made != device.type:
        return False, f"made on {made}, replayed on {device.type}"
    if prov.get("torch") != torch.__version__:
        return False, f"made with torch {prov.get('torch')}, replayed with {torch.__version__}"
    if made == "cpu":
        if prov.get("cpu_kind") != cpu_kind():
            return False, "made on another CPU kind" if prov.get("cpu_kind") else "the record names no CPU kind"
        if prov.get("threads") != torch.get_num_threads():
            return False, f"made with {prov.get('threads')} threads, replayed with {torch.get_num_threads()}"
        return True, "the same CPU kind, threads and torch"
    return True, f"the same device type ({made}) and torch"


def replay(rec: dict[str, Any], cfg: RunConfig, logged: int, device: str | torch.device = "cpu",
           threads: int | None = None) -> Replay:
    """Retrain the first ``logged`` logged steps of ``rec`` (config ``cfg``) on ``device`` and compare their losses
    (where the comparison is not exact, only those up to step ``HORIZON``).

    A CPU replay uses ``threads`` intra-op threads, by default the record's (its ``provenance.threads``), so that a
    record made here compares bit for bit; torch's setting is restored after.
    """
    dev = resolve_device(device)
    before = torch.get_num_threads()
    if dev.type == "cpu":
        torch.set_num_threads(threads or int(rec["provenance"].get("threads") or 1))
    try:
        exact, where = exact_here(rec, dev)
        steps = [t for t in rec["history"]["step"][:logged] if exact or t <= HORIZON]  # step 0 is always logged
        recorded = rec["history"]["loss"][:len(steps)]
        losses = training_losses(cfg, dev, last=steps[-1])
    finally:
        torch.set_num_threads(before)
    replayed = [losses[t] for t in steps]
    out = Replay(steps, recorded, replayed, exact, where)
    for i, (a, b) in enumerate(zip(recorded, replayed)):
        same = a == b if exact else math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
        if not same:
            out.first_bad = i
            break
    return out


def training_losses(cfg: RunConfig, dev: torch.device, last: int) -> dict[int, float]:
    """The loss of every training step up to ``last``, as ``fit`` computes it, from a run built as every run is
    (``execute.build``); training stops when ``fit`` asks for the batch of step ``last + 1``."""
    task, model, _, on_eval = build(cfg, dev)  # mid-training evaluations run as in the run; none is compared
    sample_range, batches, losses = task.sample_range, [], {}

    def sample(*args, **kwargs):  # the task's own sampler, counting the steps
        if len(batches) > last:
            raise _Stop
        batches.append(sample_range(*args, **kwargs))
        return batches[-1]

    def watch(module, inputs, logits):  # (B, T, K): fit's loss of this step, by fit's formula
        if module.training:
            batch = batches[-1].to(logits.device)
            with torch.no_grad():
                losses[len(batches) - 1] = F.cross_entropy(logits[batch.mask], batch.targets[batch.mask]).item()

    task.sample_range = sample
    hook = model.register_forward_hook(watch)
    try:
        fit(model, task, cfg.train, cfg.seed, dev, on_eval=on_eval)
    except _Stop:
        pass
    finally:
        hook.remove()
    return losses


__all__ = ["HORIZON", "REPLAY_COST", "TOLERANCE", "Replay", "exact_here", "replay", "training_losses"]
