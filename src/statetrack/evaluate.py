"""Accuracy by length, normalized accuracy, sequence accuracy, and aggregation over seeds.

Definitions (used on every page of the book):

- *accuracy at length L*: the fraction of test sequences whose answer after L input tokens is
  correct (the argmax of the K-way head at position L).
- *normalized accuracy*: (acc − chance) / (1 − chance), 0 at chance and 1 when perfect. NE calls it
  "scaled accuracy" (chance 1/2 for parity, 1/5 for mod-5 arithmetic); BL uses the same formula with
  chance 1/m.
- *sequence accuracy at length L*: the fraction of test sequences whose answers at every defined
  position up to L are all correct (NE Fig. 4, following Merrill et al.).
- Over seeds: the best (NE Table 3, BL) and the median ± median absolute deviation (NE Table 5).

For prefix-closed tasks one batch at the longest length gives every shorter length at once, because
the models are causal; for the others each length gets its own batch, seeded by the length, so a
length's test set does not depend on which other lengths are evaluated.

Used in: every claim.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import torch
from torch import nn

from statetrack.config import EvalConfig, TrainConfig
from statetrack.tasks.base import IGNORE, Task


def normalized(acc: float, chance: float) -> float:
    """(acc − chance) / (1 − chance): 0 at chance, 1 when every answer is right."""
    return (acc - chance) / (1.0 - chance)


def best_of(values: list[float]) -> float:
    return max(values)


def median_mad(values: list[float]) -> tuple[float, float]:
    """Median and median absolute deviation (unscaled), as in NE Table 5."""
    med = statistics.median(values)
    return med, statistics.median(abs(v - med) for v in values)


@torch.no_grad()
def predict(model: nn.Module, inputs: torch.Tensor, batch_size: int, device: torch.device | str) -> torch.Tensor:
    """Argmax class at every position: inputs (B, T) → predictions (B, T), on the CPU."""
    was_training = model.training
    model.eval()
    out = [model(chunk.to(device)).argmax(-1).cpu() for chunk in inputs.split(batch_size)]  # (b, T) each
    model.train(was_training)
    return torch.cat(out)  # (B, T)


@dataclass
class LengthCurve:
    """Accuracy (and sequence accuracy where defined) at each evaluated length."""

    length: list[int]
    acc: list[float]
    seq_acc: list[float] | None

    def mean_acc(self, lo: int, hi: int) -> float:
        """Mean accuracy over lengths in [lo, hi]: what a test set drawn uniformly in that range measures."""
        vals = [a for n, a in zip(self.length, self.acc) if lo <= n <= hi]
        if not vals:
            raise ValueError(f"no evaluated length lies in [{lo}, {hi}]; evaluated: {self.length[0]}..{self.length[-1]}")
        return sum(vals) / len(vals)

    def to_dict(self) -> dict:
        return {"length": self.length, "acc": self.acc, "seq_acc": self.seq_acc}


def accuracy_by_length(model: nn.Module, task: Task, lengths: list[int], num_seqs: int, seed: int,
                       batch_size: int, device: torch.device | str) -> LengthCurve:
    """Evaluate ``model`` on ``task`` at exactly the given lengths (see the module docstring)."""
    if task.prefix_closed:
        gen = torch.Generator().manual_seed(seed)
        batch = task.sample(gen, num_seqs, max(lengths))
        correct = predict(model, batch.inputs, batch_size, device) == batch.targets  # (B, T)
        defined = batch.targets != IGNORE  # (B, T)
        all_so_far = torch.cumprod((correct | ~defined).long(), dim=1).bool()  # (B, T)
        out = LengthCurve([], [], [])
        for n in lengths:
            col = defined[:, n - 1]  # (B,)
            if not col.any():  # no answer after n tokens (e.g. an operator position)
                continue
            out.length.append(n)
            out.acc.append(correct[col, n - 1].float().mean().item())
            out.seq_acc.append(all_so_far[col, n - 1].float().mean().item())
        return out
    out = LengthCurve([], [], None)
    for n in sorted({task.valid_length(n) for n in lengths if n >= task.min_length()}):
        batch = task.sample(torch.Generator().manual_seed(seed * 100_003 + n), num_seqs, n)
        correct = predict(model, batch.inputs, batch_size, device) == batch.targets  # (B, T)
        out.length.append(n)
        out.acc.append(correct[batch.mask].float().mean().item())
    return out


def in_distribution_range(task: Task, train: TrainConfig) -> tuple[int, int]:
    """The lengths training supervised: up to ``train.max_len``, from 1 when every position is labelled."""
    lo = task.min_length() if task.cfg.supervision == "every" else train.min_len
    return max(lo, task.min_length()), train.max_len


def evaluate_run(model: nn.Module, task: Task, train: TrainConfig, ev: EvalConfig,
                 device: torch.device | str) -> dict:
    """Accuracy by length over in-distribution and test lengths, and the summary numbers of a record."""
    id_lo, id_hi = in_distribution_range(task, train)
    lengths = sorted(set(range(id_lo, id_hi + 1, ev.stride)) | {id_hi} | set(ev.lengths))
    curve = accuracy_by_length(model, task, lengths, ev.num_seqs, ev.seed, ev.batch_size, device)
    ood = curve.mean_acc(ev.min_len, ev.max_len)
    idd = curve.mean_acc(id_lo, id_hi)
    summary = {
        "chance": task.chance,
        "ood_acc": ood,
        "ood_normalized": normalized(ood, task.chance),
        "id_acc": idd,
        "id_normalized": normalized(idd, task.chance),
        "acc_at_max_len": curve.acc[curve.length.index(max(n for n in curve.length if n <= ev.max_len))],
    }
    if curve.seq_acc is not None:
        summary["seq_acc_at_max_len"] = curve.seq_acc[-1]
    return {"summary": summary, "by_length": curve.to_dict()}
