"""NE Thm 3 and Prop 1 on S5: one full matrix per token tracks every variant, an element with c cycles needs 5 − c reflections, a swap has λ = −1.

ne5's exact part, run through ``theory.word_problems`` (which says why each holds).

Used in: ne5 (claims/ne5.py, notebooks/ne5_s5_word_problems.md).
"""

from __future__ import annotations

from statetrack.check import Check
from statetrack.config import TaskConfig
from statetrack.tasks import make_task
from statetrack.theory import word_problems as wp


def check_rows(tasks: dict[str, TaskConfig], names: dict[str, str], num: int, length: int
               ) -> list[Check]:
    """``Check``s: a hand-set full tracker (H = 32) on each of ``tasks`` (variant → task,
    ``names`` its display name; ``num`` words of ``length``), the most reflections per element of swaps / + 3-cycles /
    all of S5, and the largest lowest eigenvalue over the swaps."""
    rows = []
    for v, cfg in tasks.items():
        res = wp.track(wp.full_matrix_tracker(cfg, d_model=32), cfg, num_seqs=num, length=length)
        rows.append(Check(label=f"hand-set full matrix (H=32) tracks {names[v]}: seq acc @{length}", value=res.seq_acc,
                          rule="= 1", passed=res.seq_acc == 1.0,
                          detail=f"{num} random words against the task's labels"))
    most = {v: int(wp.factors_needed(make_task(tasks[v])).max()) for v in ("swaps", "swaps_3cycles", "all")}
    rows.append(Check(label="fewest reflections per element: swaps / + 3-cycles / all of S5", value=most["all"],
                      rule="= 1 / 2 / 4", passed=(most["swaps"], most["swaps_3cycles"], most["all"]) == (1, 2, 4),
                      detail=f"measured {most['swaps']} / {most['swaps_3cycles']} / {most['all']}: one DeltaNet layer "
                             "applies 1 per token; 4 tokens per element leave room for 4"))
    low = float(wp.lowest_eigenvalue(make_task(tasks["swaps"]))[1:].max())  # [1:]: the swaps, not the identity
    rows.append(Check(label="every swap has the eigenvalue −1 (largest lowest eigenvalue over the 10 swaps)", value=low,
                      rule="= −1", passed=abs(low + 1) < 1e-12,
                      detail="a DeltaNet [0,1] transition has eigenvalues in [0, 1] only"))
    return rows
