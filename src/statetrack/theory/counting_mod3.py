"""NE Thm 2, 3, 6 on 1^k: real one- and two-layer orbits cannot count mod 3; a rotation or two reflections can.

ne2's exact part as ``Check`` rows at the
sizes the claim passes in, built from ``rotations`` (one real diagonal layer, the rotation by 2π/3, the hand-set
rotation model) and ``layered_counting`` (two layers, Thm 6's reflection counter); the chance ceiling its
impossibility statements read; the rounding cycles its page shows.

Used in: ne2 (and ne3's sign ceiling).
"""

from __future__ import annotations

from typing import Any

import torch

from statetrack.check import Check
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import layered_counting as lc
from statetrack.theory import rotations as rot
from statetrack.theory.frozen_diagonal import binomial_interval

MODULUS = 3
LOW = ((torch.float32, "fp32"), (torch.bfloat16, "bf16"))  # the dtypes the one- and two-layer checks store in


def one_layer_rows(draws: int, steps: int, hand_set: tuple[int, int]) -> list[Check]:
    """NE Thm 2 (one real diagonal layer: period 1 or 2 on 1^k) and Thm 3 (a rotation by 2π/3 counts mod 3).

    ``draws`` real diagonals, ``steps`` rotation steps, ``hand_set`` = (sequences, length) for the hand-set model."""
    (num_seqs, length), out = hand_set, []
    for dtype, name in LOW:
        res = rot.diagonal_periods(draws, dtype, seed=0)
        periods = res["period"]
        ok = bool((periods > 0).all()) and set(periods.tolist()) <= {1, 2}
        worst = max(rot.best_readout_accuracy(int(p), MODULUS) for p in periods.unique() if p > 0)
        out.append(Check(label=f"Thm 2, one layer (real diagonal), {name}: best readout acc on 1^k", value=worst,
                         rule="= 1/3 (period 1 or 2)", passed=ok,
                         detail=f"{draws} draws of (a, b, h0) in [-1,1]; periods "
                                f"{sorted(set(periods.tolist()))}, cycle reached by k = {int(res['entry'].max())}"))
    for dtype, name in LOW:
        states = rot.rotation_orbit(MODULUS, steps, dtype)  # (K+1, 2)
        wrong = int((rot.rotation_readout(states, MODULUS) != torch.arange(steps + 1) % MODULUS).sum())
        period = int(rot.eventual_period(states.unsqueeze(1))[1])
        out.append(Check(label=f"Thm 3, Z3 as a rotation by 2π/3, {name}: wrong counts", value=wrong,
                         rule=f"= 0 for k ≤ {steps:,}", passed=wrong == 0,
                         detail=f"the stored orbit is periodic with period {period}"))
    for m in (3, 5):
        task = make_task(task_config("modular_addition", modulus=m))
        model = rot.hand_set_rotation(make_model(model_config("bilinear", variant="rotation", d_model=2),
                                                 task.vocab_size, m), m)
        batch = task.sample(torch.Generator().manual_seed(m), num_seqs, length)
        with torch.no_grad():
            wrong = int((model(batch.inputs).argmax(-1) != batch.targets).sum())
        out.append(Check(
            label=f"Thm 3, hand-set rotation model on Z{m}: wrong answers", value=wrong, rule="= 0", passed=wrong == 0,
            detail=f"{num_seqs} random sequences of length {length}, every position, against the task's labels"))
    return out


def layered_rows(draws: int, steps: int, counter_steps: int) -> list[Check]:
    """NE Thm 2 with two layers: real two-step products cannot count mod 3; Thm 6's reflections can."""
    out = []
    for dtype, name in LOW:
        r = lc.real_two_layer_periods(draws, steps, dtype, seed=0, family="diagonal", m=MODULUS)
        # A draw still moving after `steps` ones is no evidence either way: left out and reported, as a diverged
        # run is for an impossibility. The two-layer case must occur: some settled draws alternate layer 2's input.
        ok = r.powers_of_two and r.exceptions == 0 and r.max_product_imag == 0 and r.alternating_inputs > 0
        out.append(Check(
            label=f"Thm 2, two layers (real diagonal layer 2 driven by layer 1), {name}: best readout acc on 1^k",
            value=r.best_acc, rule="= 1/3 in every draw (period divides 4)",
            passed=ok and r.best_acc == rot.best_readout_accuracy(4, MODULUS),
            detail=f"{r.draws_settled}/{draws} draws periodic within {steps:,} ones (the rest left out), periods "
                   f"{', '.join(f'{p}: {n}' for p, n in r.periods.items())} (period: draws), cycle reached by k = "
                   f"{r.max_entry:,}; {r.alternating_inputs} draws feed layer 2 an alternating input; every two-step "
                   f"product's largest |Im λ| = {r.max_product_imag:g}"))
    res = {dt: lc.reflection_counter(MODULUS, counter_steps, dt) for dt in (torch.float32, torch.float64)}
    acc = min(c.acc for c in res.values())
    real_steps = max(abs(complex(z).imag) for c in res.values() for z in c.step_eigenvalues)
    ev_err = max(c.eigenvalue_error for c in res.values())
    out.append(Check(
        label=f"Thm 6 on 1^k: two reflection layers count mod 3 (k ≤ {counter_steps:,}, fp32 and fp64)", value=acc,
        rule="= 1", passed=acc == 1.0 and real_steps == 0 and ev_err <= 1e-6,
        detail=f"each transition's eigenvalues are real (±1); the two-step product's are e^(∓2πi/3) to {ev_err:.1e}; largest "
               f"distance from the exact point: fp32 {res[torch.float32].max_error:.1e}, "
               f"fp64 {res[torch.float64].max_error:.1e}"))
    return out


def rounding_cycles(draws: int = 256, steps: int = 16_384) -> list[dict[str, Any]]:
    """Periods on 1^k of two-layer models with a Householder layer 2, and their rounding cycles that 3 divides.

    Shown on ne2's page, not judged: NE's argument is about the exact orbit; these are how its rounded copy can end."""
    rows = []
    for family in ("deltanet", "fixed_key"):
        for dtype, _ in LOW:
            r = lc.real_two_layer_periods(draws, steps, dtype, seed=0, family=family, m=MODULUS)
            rows.append({"layer 2": family, "dtype": r.dtype, "draws": draws, "settled": r.draws_settled,
                         "periods (period: draws)": ", ".join(f"{p}: {n}" for p, n in r.periods.items()),
                         "periods 3 divides": r.exceptions, "their size (ulps)": r.exception_ulps or None,
                         "best readout, other draws": r.best_acc_without_exceptions})
    return rows


def ceiling(num_seqs: int, m: int, level: float) -> float:
    """Top of Binomial(num_seqs, 1/m)'s central ``level`` interval over ``num_seqs``: the accuracy at one length of a
    model holding nothing of the sum mod ``m``, on ``num_seqs`` random sequences."""
    return binomial_interval(num_seqs, 1.0 / m, level)[1] / num_seqs
