"""NE Thm 3 (a rotation is two reflections) and Thm 2 (counting mod 60 needs non-real eigenvalues), on Z60.

ne6's exact part as ``Check`` rows, built
from ``word_problems``: the hand-set full-matrix tracker (2×2 rotations) at 1 and 2 tokens per element, one
reflection per token through the delta rule, and the eigenvalues of the generator ρ(1).

Used in: ne6.
"""

from __future__ import annotations

import math

import torch

from statetrack.check import Check
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp



def rows(num_seqs: int, length: int) -> list[Check]:
    """NE Thm 3 (rotation trackers, reflection pairs: seq acc 1 on ``num_seqs`` words of ``length``) and Thm 2."""
    out = []
    for k in (1, 2):
        cfg = task_config("word_problem", group="Z60", tokens_per_element=k)
        res = wp.track(wp.full_matrix_tracker(cfg, d_model=32), cfg, num_seqs=num_seqs, length=length)
        out.append(Check(label=f"hand-set full matrix (rotations, H=32), {k} token{'s' if k > 1 else ''} per element: "
                               f"seq acc @{length}", value=res.seq_acc, rule="= 1", passed=res.seq_acc == 1.0,
                         detail=f"{num_seqs} random words against the task's labels"))
    res = wp.track_reflection_pairs(num_seqs=num_seqs, length=length)
    out.append(Check(label=f"one reflection per token (delta rule, β = 2), 2 tokens per element: seq acc @{length}",
                     value=res.seq_acc, rule="= 1", passed=res.seq_acc == 1.0, detail=f"{num_seqs} random words, fp32"))
    rho, _ = wp.representation(make_task(task_config("word_problem", group="Z60", tokens_per_element=1)))
    imag = float(torch.linalg.eigvals(rho[1]).imag.abs().max())  # rho: (60, 2, 2)
    out.append(Check(
        label="generator of Z60: |Im λ| of ρ(1)", value=imag, rule="= sin(2π/60) > 0",
        passed=abs(imag - math.sin(2 * math.pi / 60)) < 1e-12,
        detail="a single GH factor is symmetric (real eigenvalues): one DeltaNet layer needs 2 tokens per element"))
    return out
