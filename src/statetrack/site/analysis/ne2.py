"""What ne2's page (counting mod 3) computes beside its verdict: the stored orbits on the input 1^k, the rounding
cycles of two layers, the run table's scores and the numbers its prose reads.

- ``orbits``, ``orbit_summary``, ``orbit_values``: every real diagonal draw's and the rotation's eventual period on
  1^k, per dtype (``theory.rotations``), summarized per case, and what the prose reads of them.
- ``cycle_table``: ``theory.counting_mod3.rounding_cycles`` at a preset's sizes, one row per layer 2 and dtype.
- ``run_scores``: a run's columns of the run table.
- ``statement_values``: the numbers the statements' rules rest on (the impossibility bound, BL's table).

Used in: notebooks/ne2_counting_mod3_needs_complex_eigenvalues.md, tests/test_page_ne2.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import torch

from statetrack.claims import ne2
from statetrack.claims.statements import PAPER_TOLERANCE
from statetrack.theory import rotations as rot

DTYPES = ((torch.float32, "fp32"), (torch.bfloat16, "bf16"))  # the stored dtypes, with their names in a case


def orbits(draws: int, steps: int) -> pd.DataFrame:
    """One row per orbit on 1^k: ``draws`` real diagonals (``rotations.diagonal_periods``, seed 0: the exact checks'
    draws) and the rotation by 2π/3 over ``steps`` ones, per dtype of ``DTYPES``; columns case, period, entry (the
    step its cycle starts), a (NaN for the rotation) and, for the rotation, wrong counts (steps its readout
    misses k mod 3)."""
    rows = []
    for dtype, name in DTYPES:
        res = rot.diagonal_periods(draws, dtype, seed=0)
        rows += [{"case": f"real diagonal, {name}", "period": int(p), "entry": int(e), "a": float(a)}
                 for p, e, a in zip(res["period"], res["entry"], res["a"])]
        states = rot.rotation_orbit(ne2.MODULUS, steps, dtype)  # (K+1, 2)
        entry, period = rot.eventual_period(states.unsqueeze(1))  # (1,), (1,)
        wrong = int((rot.rotation_readout(states, ne2.MODULUS) != torch.arange(steps + 1) % ne2.MODULUS).sum())
        rows.append({"case": f"rotation by 2π/3, {name}", "period": int(period), "entry": int(entry),
                     "a": float("nan"), "wrong counts": wrong})
    return pd.DataFrame(rows)


def orbit_summary(periods: pd.DataFrame) -> pd.DataFrame:
    """``orbits`` per case: how many orbits, the periods seen, the latest cycle start and the best accuracy any
    readout of such a state reaches on k mod 3 (``rotations.best_readout_accuracy``, the best over its periods)."""
    def best(p):
        return max(rot.best_readout_accuracy(int(x), ne2.MODULUS) for x in set(p))

    return periods.groupby("case", sort=False).agg(**{
        "orbits": ("period", "size"), "periods seen": ("period", lambda p: sorted(set(p))),
        "cycle starts by k": ("entry", "max"), "best readout of k mod 3": ("period", best)})


def orbit_values(periods: pd.DataFrame, steps: int) -> dict[str, Any]:
    """What the prose reads of ``orbits``: the number of diagonal draws per dtype, the rotation's ``steps`` (as
    text), the share of diagonal orbits with period 2, the latest cycle start per dtype and how many diagonal
    orbits end in a period other than 1 or 2."""
    diag = periods[periods["case"].str.startswith("real")]
    fp32 = diag["case"].str.endswith("fp32")
    return {"num_draws": int(fp32.sum()), "rotation_steps": f"{steps:,}",
            "share_period2": float((diag["period"] == 2).mean()),
            "max_entry_fp32": int(diag.loc[fp32, "entry"].max()), "max_entry_bf16": int(diag.loc[~fp32, "entry"].max()),
            "other_periods": int((~diag["period"].isin([1, 2])).sum())}


def cycle_table(preset: str) -> pd.DataFrame:
    """``counting_mod3.rounding_cycles`` at ``preset``'s draws and steps (``claims.ne2.LAYERED_SIZES``), indexed by
    layer 2 and dtype."""
    from statetrack.theory import counting_mod3

    draws, steps = ne2.LAYERED_SIZES[preset][:2]
    return pd.DataFrame(counting_mod3.rounding_cycles(draws, steps)).set_index(["layer 2", "dtype"])


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A run's scores in the run table: normalized accuracy at the test lengths, accuracy at the longest (500) and
    normalized accuracy in distribution."""
    summary = r.get("summary", {})
    return {"test (normalized)": summary.get("ood_normalized"), "at 500 (accuracy)": summary.get("acc_at_max_len"),
            "in-dist (normalized)": summary.get("id_normalized")}


def statement_values() -> dict[str, Any]:
    """The numbers the statements' rules rest on: BL's best at m = 3 for the diagonal and the rotation, the
    impossibility bound (on the quick test set of ``bound_n`` sequences: ``bound_hits`` right), the paper preset's
    test-set size, the interval's level and tail, the tolerance and the solved level."""
    paper = ne2.paper_rows()
    bound = next(s.rule.threshold for s in ne2.statements() if s.id == "diagonal-cannot-count")
    bound_n = ne2.grid("quick")[0].eval.num_seqs
    return {"paper_diagonal": paper["diagonal"]["paper_best"], "paper_rotation": paper["rotation"]["paper_best"],
            "bound": bound, "bound_n": bound_n, "bound_hits": round(bound * bound_n),
            "paper_n": f'{ne2.grid("paper")[0].eval.num_seqs:,}', "level": ne2.LEVEL, "tail": (1 - ne2.LEVEL) / 2,
            "tolerance": PAPER_TOLERANCE, "solved": 1 - PAPER_TOLERANCE}


__all__ = ["cycle_table", "orbit_summary", "orbit_values", "orbits", "run_scores", "statement_values"]
