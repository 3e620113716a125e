"""BL Prop 2 on the package's models: A_x = P D_x P⁻¹ with one P for every x makes A_a A_b = A_b A_a, and S3 asks for more than counts.

The exact part of bl7 as ``Check`` rows: the largest commutator and ‖h(ab) − h(ba)‖ of the shared-eigenbasis variants ("rotation", "diagonal")
and the smallest commutator of the full model, each over seeded random inits in fp64 (``theory.commuting``); the
ordered pairs of S3 that do not commute; and the count-only ceiling on S3 (``commuting.count_only_ceiling``),
which must stay below 1 from length 2 on and never rise.

Used in: bl7 (claims/bl7.py, notebooks/bl7_shared_eigenbasis_forces_commutativity.md).
"""

from __future__ import annotations

import functools

import torch

from statetrack.check import Check
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory.commuting import (commutator_norms, commuting_pairs, count_only_ceiling, swapped_word_gap,
                                        transitions_fp64)


@functools.lru_cache(maxsize=None)
def ceiling(max_len: int) -> tuple[float, ...]:
    """The count-only ceiling on S3 (all elements drawn uniformly) at lengths 1..max_len, as accuracies."""
    return tuple(count_only_ceiling(make_task(task_config("word_problem", group="S3")).mul_table, max_len))


def check_rows(draws: int, H: int, ceiling_len: int) -> list[Check]:
    """A_a A_b − A_b A_a = P (D_a D_b − D_b D_a) P⁻¹ = 0 for a shared P: commutators of the package's bilinear
    models at width ``H`` over ``draws`` random inits (fp64), S3's non-commuting pairs, and ``ceiling(ceiling_len)``."""
    s3 = make_task(task_config("word_problem", group="S3"))
    inits = f"{draws} random inits, H={H}, every pair of the 7 tokens of S3"
    out = []
    for variant in ("rotation", "diagonal", "full"):
        worst, gap, smallest = 0.0, 0.0, float("inf")
        for seed in range(draws):  # random inits: the structure, not the values, makes them commute
            torch.manual_seed(seed)
            model = make_model(model_config("bilinear", variant=variant, d_model=H), s3.vocab_size, s3.num_classes)
            norms = commutator_norms(transitions_fp64(model))  # (V, V)
            off = norms[~torch.eye(len(norms), dtype=torch.bool)]  # (V·(V−1),)
            worst, smallest = max(worst, float(off.max())), min(smallest, float(off.min()))
            gap = max(gap, max(swapped_word_gap(model, a, b) for a in range(6) for b in range(a + 1, 6)))
        if variant == "full":
            out.append(Check(label="full model: smallest commutator", value=smallest, rule="> 0.01 (never commute)",
                             passed=smallest > 0.01, detail=inits))
        else:
            out += [Check(label=f"shared eigenbasis, {variant}: largest commutator", value=worst, rule="≤ 1e-12 (fp64)",
                          passed=worst <= 1e-12, detail=inits),
                    Check(label=f"shared eigenbasis, {variant}: ‖h(ab) − h(ba)‖", value=gap, rule="≤ 1e-12 (fp64)",
                          passed=gap <= 1e-12, detail=f"every pair of the 6 elements of S3, {draws} random inits")]
    pairs = commuting_pairs(s3.mul_table)
    noncommuting = int((~pairs).sum())
    out.append(Check(label="S3: ordered pairs with ab ≠ ba", value=noncommuting, rule="> 0 (S3 is not abelian)",
                     passed=noncommuting > 0,
                     detail=f"of {pairs.numel()}; the commuting ones: 6 × 3 conjugacy classes"))
    c = ceiling(ceiling_len)
    falling = all(x >= y - 1e-12 for x, y in zip(c, c[1:])) and all(x < 1 for x in c[1:])
    out.append(Check(label=f"S3: count-only ceiling at length {len(c)}", value=c[-1],
                     rule="< 1 from L = 2 on, never rising", passed=falling,
                     detail=f"c(2) = {c[1]:.4f}, c(11) = {c[10] if len(c) > 10 else float('nan'):.4f}; "
                            "chance 1/6, the sign alone gives 1/3"))
    return out


__all__ = ["ceiling", "check_rows"]
