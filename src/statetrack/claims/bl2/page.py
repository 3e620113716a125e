"""What bl2's page says in its prose: BL's modular-addition numbers it quotes, the rules its statements judge with,
and what our runs show beside them (the failing ids and the rules as text: ``display.statement_readings``).

- ``paper_values``, ``rule_texts``, ``ours_values``: bl2's quoted numbers, rules and run readings; ``values`` all of
  them with the tolerance, as the page glues them.

Its figures and explorers:

- ``model_modulus_heatmap``: models × moduli, our accuracy at length 500 as colour, ours and the
  paper's number (secondary source) as text in every cell; cells a preset did not run are grey.
- ``modulus_table``: ``model_modulus_heatmap`` of the verdict's rows over every model and modulus of BL's table.

Used in: notebooks/bl2_modular_addition.md, tests/test_page_bl2.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from statetrack.claims.bl2 import claim as bl2
from statetrack.verdicts.statements import Verdict
from statetrack.verdicts.statements import PAPER_TOLERANCE, Statement
from statetrack.display.plots import annotated_heatmap
from statetrack.verdicts.numbers import number
from statetrack.display.statement_readings import failing, rule_values

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


def model_modulus_heatmap(rows: list[dict[str, Any]], row_order: Sequence[str], names: dict[str, str],
                          moduli: Sequence[int], preset: str, title: str | None = None) -> Figure:
    """One cell per (model, m): colour = our best run; text = ours and the paper's number.

    Args:
        rows: ``Verdict.rows`` of bl2 (trained and "not run" rows; checks are skipped), each with
            ``model``, ``m``, and ``ours_best`` / ``paper_best`` where known.
        row_order: model keys top to bottom; names: key → row label.
        moduli: the columns, left to right.
        preset: named in the note under the grid.
    """
    cells = {(r["model"], r["m"]): r for r in rows if "m" in r}
    value = np.full((len(row_order), len(moduli)), np.nan)
    texts = []
    for i, name in enumerate(row_order):
        line = []
        for j, m in enumerate(moduli):
            r = cells.get((name, m), {})
            ran = r.get("part") == "trained"
            if ran:
                value[i, j] = r["ours_best"]
            line.append(f"{'ours ' + number(r.get('ours_best'), 2) if ran else 'not run'}\npaper {number(r.get('paper_best'), 2)}")
        texts.append(line)
    return annotated_heatmap(value, texts, [names[n] for n in row_order], [f"m = {m}" for m in moduli],
                             "ours: normalized accuracy at length 500",
                             f"each cell: ours (best over seeds, preset {preset}) and the paper's number (secondary "
                             "source, unverified); grey: not run", title=title, row_height=0.55)


def modulus_table(verdict: Any, preset: str) -> Figure:
    """bl2's table as its page shows it: ``model_modulus_heatmap`` of the verdict's rows over every model and every
    modulus of BL's table."""

    return model_modulus_heatmap(verdict.rows, bl2.MODELS, bl2.NAMES, list(bl2.PAPER_MODULI), preset,
                                 title=f"Z_m, test length 500, preset {preset}")
