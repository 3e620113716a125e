"""BL Prop. 1 on per-step modular arithmetic: the m²-state automaton and its H = m² bilinear construction answer every step, and no machine with fewer than m² states does.

bl4's exact part on several moduli, run through ``theory.arithmetic_automaton`` (which says why each holds).

Used in: bl4 (claims/bl4.py, notebooks/bl4_modular_arithmetic.md).
"""

from __future__ import annotations

from typing import Any

from statetrack.check import Check
from statetrack.theory import arithmetic_automaton as aa
from statetrack.theory.threads import single_thread


def exact_part(moduli: tuple[int, ...], num_seqs: int, length: int, also: int) -> dict[str, Any]:
    """The automaton and its construction on ``moduli`` (seed m), and the m² bound's witnesses there and at ``also``.

    Returns:
        {"tracking": [aa.Tracking per modulus], "distinct": {m: number of distinct answer pairs to '×0', '+0'}}.
    """
    with single_thread():
        tracking = [aa.track(m, num_seqs, length, seed=m) for m in moduli]
    distinct = {m: len({tuple(r) for r in aa.distinguishing_answers(m).tolist()}) for m in (*moduli, also)}
    return {"tracking": tracking, "distinct": distinct}


def check_rows(part: dict[str, Any]) -> list[Check]:
    """A ``Check`` of every exact fact in ``exact_part``'s output (worst modulus each)."""
    tr, distinct = part["tracking"], part["distinct"]
    sizes = f"m in {[t.modulus for t in tr]}, {tr[0].num_seqs} sequences of {tr[0].length} tokens each"
    auto = min(t.automaton_acc for t in tr)
    rows = [Check(label="tracking: m²-state automaton vs task labels", value=auto, rule="= 1", passed=auto == 1.0,
                  detail=sizes)]
    for mode in ("every_step", "none"):
        acc = min(t.acc[mode] for t in tr)
        rows.append(Check(label=f"tracking: bilinear construction H = m² ({mode})", value=acc, rule="= 1",
                          passed=acc == 1.0, detail=sizes))
    one_hot = all(t.one_hot for t in tr)
    short = {m: d for m, d in distinct.items() if d != m * m}
    return rows + [Check(label="tracking: construction states exactly one-hot", value=float(one_hot), rule="= 1",
                         passed=one_hot, detail=sizes),
                   Check(label="lower bound: states needed = m² (distinct answers to '×0', '+0')",
                         value=float(not short), rule="= 1", passed=not short,
                         detail=", ".join(f"m={m}: {d}" for m, d in distinct.items()))]
