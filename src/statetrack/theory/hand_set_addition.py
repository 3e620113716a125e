"""BL's mod-addition table, exact: hand-set full, CP, block-2 and R2 models add mod m; a real diagonal at m = 2 only.

The exact part of claim bl2, built from ``block_size``, ``fsm_simulation`` and ``rotations``: full = one-hot cyclic
shifts, CP = a rotation as four rank-one terms, block b = 2 and R2 = the rotation by 2πv/m (the sign flip at m = 2),
each run in fp64 on the task's own sequences; at m ≥ 3 no diagonal construction exists (NE Thm 2's argument: real
eigenvalues carry only a sign around a cycle), so random diagonal models' prediction on 1^k must be eventually
1- or 2-periodic.

Used in: bl2 (claims/bl2.py, notebooks/bl2_modular_addition.md), tests/test_claims_bl2.py.
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import block_size as bs
from statetrack.theory.fsm_simulation import fsm_bilinear
from statetrack.theory.rotations import eventual_period, hand_set_rotation
from statetrack.theory.threads import single_thread


def exact_rows(num_seqs: int, length: int, moduli: tuple[int, ...]) -> list[dict[str, Any]]:
    """One row per (variant, m): a hand-set tracker's accuracy on the task's own sequences (fp64), or for the real
    diagonal at m ≥ 3 (no construction exists) whether random diagonal models' prediction on 1^k is 2-periodic."""
    rows = []
    with single_thread():
        for m in moduli:
            task = make_task(task_config("modular_addition", modulus=m))
            table = torch.tensor([[(q + v) % m for v in range(m)] for q in range(m)])  # (m, m) δ(q, v)
            rotation = hand_set_rotation(make_model(model_config("bilinear", variant="rotation", d_model=2),
                                                    task.vocab_size, m), m)
            built = {"full": fsm_bilinear(table), "cp": bs.cp_rotation_model(task),
                     "block2": bs.block_model(task, 2, 4) if m > 2 else bs.block_model(task, 2, 4, bs.sign_rep()),
                     "rotation": rotation}
            if m == 2:
                built["diagonal"] = bs.block_model(task, 1, 2)  # b = 1: the sign flip
            for name, model in built.items():
                t = bs.track(model, task, num_seqs, length, seed=m)
                rows.append({"model": name, "m": m, "what": "hand-set tracker", "value": t.acc,
                             "holds": t.all_correct, "detail": f"{t.num_seqs} sequences × {t.length} tokens, fp64"})
            if m > 2:
                periods = []
                for seed in range(5):
                    torch.manual_seed(seed)
                    model = make_model(model_config("bilinear", variant="diagonal", d_model=8), task.vocab_size, m)
                    pred = bs.constant_word_predictions(model, 1, 4 * length)  # (T,)
                    p = int(eventual_period(pred, tail=length)[1])
                    periods.append(p if p > 0 else None)
                rows.append({"model": "diagonal", "m": m, "what": "limit: prediction on 1^k eventually 2-periodic",
                             "value": float(max(p or 99 for p in periods)), "holds": all(p in (1, 2) for p in periods),
                             "detail": f"5 random diagonal models (H=8), k ≤ {4 * length}, fp64; periods {periods}"})
    return rows
