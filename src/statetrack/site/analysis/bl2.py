"""What bl2's page says in its prose: BL's modular-addition numbers it quotes, the rules its statements judge with,
and what our runs show beside them; and two readings of a verdict the BL table pages share.

- ``failing``: the ids of a verdict's failing statements in one line ("none" when none fails).
- ``rule_values``: a statement's paper number and rule under the names a page's prose reads.
- ``paper_values``, ``rule_texts``, ``ours_values``: bl2's quoted numbers, rules and run readings; ``values`` all of
  them with the tolerance, as the page glues them.

Used in: notebooks/bl2_modular_addition.md, ``analysis.bl3``, ``analysis.bl6``, tests/test_page_bl2.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from statetrack.claims import Verdict, bl2
from statetrack.claims.statements import PAPER_TOLERANCE, Statement


def failing(verdict: Verdict) -> str:
    """The ids of the verdict's failing statements, comma-separated, in statement order; "none" when none fails."""
    return ", ".join(o.statement.id for o in verdict.statements if o.outcome == "fails") or "none"


def rule_values(statements: Iterable[Statement], names: dict[str, str]) -> dict[str, Any]:
    """``bl_<name>`` (the paper's number) and ``rule_<name>`` (the rule as text) of the statement each name maps to."""
    by_id = {s.id: s for s in statements}
    out: dict[str, Any] = {}
    for name, sid in names.items():
        out[f"bl_{name}"], out[f"rule_{name}"] = by_id[sid].paper, str(by_id[sid].rule)
    return out


def _joined_rules(by_id: dict[str, Statement], ids: Iterable[str]) -> str:
    """The distinct rules of the statements ``ids``, sorted, joined by "and"."""
    return " and ".join(sorted({str(by_id[i].rule) for i in ids}))


def _span(values: Iterable[float]) -> str:
    """Distinct numbers as "a" (all equal) or "low–high", to two decimals."""
    v = sorted(set(values))
    return f"{v[0]:.2f}" if len(v) == 1 else f"{v[0]:.2f}–{v[-1]:.2f}"


def paper_values() -> dict[str, Any]:
    """BL's numbers the claim box and the choices quote (``claims.bl2.paper_rows``, secondary source)."""
    paper = {k: row["paper_best"] for k, row in bl2.paper_rows().items()}
    baselines = bl2.ROWS["mamba"] + bl2.ROWS["transformer"]
    return {"paper_full_50": paper[("full", 50)], "paper_block2_50": paper[("block2", 50)],
            "paper_diagonal_2": paper[("diagonal", 2)], "paper_diagonal_3": paper[("diagonal", 3)],
            "paper_lstm_25": paper[("lstm", 25)],
            "paper_baseline_max": max(v for (k, _), v in paper.items() if k in baselines),
            "bl_block2_all": _span(v for (k, _), v in paper.items() if k == "block2"),
            "bl_baseline_m25": max(paper[(k, 25)] for k in baselines),
            "bl_rotation_m10": paper[("rotation", 10)], "bl_rotation_m25": paper[("rotation", 25)]}


def rule_texts() -> dict[str, Any]:
    """The numbers and rules of the statements judged at quick, as the page's choices name them."""
    statements = bl2.statements()
    by_id = {s.id: s for s in statements}
    return {**rule_values(statements, {"full_m25": "full-m25", "diagonal_m2": "diagonal-m2",
                                       "diagonal_m3": "diagonal-m3"}),
            "rule_lstm_m25": str(by_id["lstm-m25"].rule),
            "rule_block2": _joined_rules(by_id, ("block2-m3", "block2-m25")),
            "rule_baseline_m25": _joined_rules(by_id, ("mamba-m25", "transformer-m25"))}


def ours_values(verdict: Verdict, records: list[dict[str, Any]]) -> dict[str, Any]:
    """What the verdict's prose reads of our runs: the failing statements and the block-2 model's best
    in-distribution score (NaN when no block-2 run finished)."""
    block2 = [r["summary"]["id_normalized"] for r in records
              if bl2.cell_of(r)["model"] == "block2" and r["status"] == "ok"]
    return {"failing": failing(verdict), "ours_block2_id": max(block2, default=float("nan"))}


def values(verdict: Verdict, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Every value bl2's prose reads beside the verdict's own: BL's numbers, the rules, the tolerance, our runs."""
    return {**paper_values(), **rule_texts(), "tolerance": PAPER_TOLERANCE, **ours_values(verdict, records)}
