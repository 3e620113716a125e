"""What ne4's page computes beside its verdict: a sample of each task, the repeated words of the arithmetic
automaton, the trained runs' table and frame, the paper's numbers its prose quotes and the fourth column's pilot.

- ``grid_values``: the paper grid's size (models × tasks × rates × seeds), the tolerance, both recipes.
- ``samples``: one input of each task with its answers, as tokens.
- ``word_table``, ``word_values``: the repeated words' answers, periods and spectra (``claims.ne4.exact_part``).
- ``run_cell``, ``run_values``: a run's cell in the run table; how many runs are ne1's, the new ones' minutes.
- ``cell_frame``: ``results.tidy`` rows with the row (model and range) and the column (task) each run fills.
- ``paper_values``: NE Table 3's best and Table 5's median of every cell, ``paper_<row>_<task>`` and
  ``paper_median_<row>_<task>``.
- ``paper_extras``: NE Tables 3 and 5's numbers outside the comparison (Beck et al.'s, other columns).
- ``pilot_table``, ``pilot_values``: the fourth column's recorded pilot, and the constant-answer score beside the
  paper's medians on that column.

Used in: notebooks/ne4_chomsky_tasks.md, tests/test_page_ne4.py.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import torch

from statetrack.runs import store as results
from statetrack.site.analysis.grids import recipe_values
from statetrack.claims import ne4
from statetrack.claims.statements import PAPER_TOLERANCE, score
from statetrack.tasks import make_task

OWN_QUICK = ("slstm", "mlstm", "transformer")  # the quick parity rows ne4 trains itself (the others are ne1's)
SYMBOLS = "+−×()=·"  # the arithmetic tasks' tokens after the digits 0..m−1
MULT = "mod_arith_brackets_mult"  # Table 5's fourth column


def grid_values() -> dict[str, Any]:
    """``paper_runs`` = ``paper_rows`` × ``paper_columns`` × ``paper_lrs`` × ``paper_seeds`` of the paper grid,
    the ``tolerance``, and the weight decay and warm-up of ne4's own quick rows and of the paper grid
    (``analysis.grids.recipe_values``)."""
    paper = ne4.grid("paper")
    own = [c for c in ne4.grid("quick") if c.model.name in OWN_QUICK]
    return {"paper_runs": len(paper), "paper_rows": len(ne4.ROWS), "paper_columns": len(ne4.TASKS),
            "paper_lrs": len({c.train.lr for c in paper}), "paper_seeds": len({c.seed for c in paper}),
            "tolerance": PAPER_TOLERANCE, **recipe_values(own, "quick"), **recipe_values(paper, "paper")}


def _token(task: str, i: int) -> str:
    """A token id as the task writes it: a bit, a digit mod ``ne4.MODULUS`` or a symbol."""
    return str(i) if task == "parity" or i < ne4.MODULUS else SYMBOLS[i - ne4.MODULUS]


def samples(seed: int = 1, length: int = 14) -> pd.DataFrame:
    """One input of each task (``length`` tokens, two fewer without brackets: an even length) and its answers,
    "." where there is none; indexed by the task's name."""
    rows = []
    for task in ne4.TASKS:
        n = length - 2 if task == "mod_arith_no_brackets" else length
        b = make_task(ne4.task_of(task, "quick")).sample(torch.Generator().manual_seed(seed), 1, n)
        rows.append({"task": ne4.TASK_NAMES[task], "input": " ".join(_token(task, int(i)) for i in b.inputs[0]),
                     "answers": " ".join("." if int(y) < 0 else str(int(y)) for y in b.targets[0])})
    return pd.DataFrame(rows).set_index("task")


def _spectrum_text(spectrum: Any) -> str:
    """The distinct non-zero eigenvalues as "+a+bi", two decimals, sorted as text."""
    return ", ".join(sorted({f"{complex(e).real:+.2f}{complex(e).imag:+.2f}i" for e in spectrum
                             if abs(complex(e)) > 1e-9}))


def word_table(words: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """The repeated words (``exact_part(...)["words"]``): answers for k = 0, 1, 2, ..., their period and the word
    matrix's distinct non-zero eigenvalues; indexed by the word."""
    return pd.DataFrame([{"word": name, "answers for k = 0, 1, 2, ...": " ".join(map(str, w["answers"])),
                          "period": w["period"],
                          "eigenvalues of the word's matrix (non-zero, distinct)": _spectrum_text(w["spectrum"])}
                         for name, w in words.items()]).set_index("word")


def word_values(words: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Each word's period under the name the prose reads ("× 4" → ``period_times4``, "+ 1" → ``period_plus1``)."""
    return {f"period_{name.replace(' ', '').replace('×', 'times').replace('+', 'plus')}": w["period"]
            for name, w in words.items()}


def run_cell(r: dict[str, Any]) -> dict[str, str]:
    """A run's cell in the run table: its column (task) and its model with the range."""
    return {"task": ne4.column_of(r["config"]["task"]), "model": ne4.label_of(ne4.cell_of(r)).split(" · ")[0]}


def run_values(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``num_reused``: the runs made for another claim (ne1's), and ``new_minutes``: the recorded minutes of
    ne4's own."""
    new = [r for r in records if r["claim"] == "ne4"]
    return {"num_reused": len(records) - len(new),
            "new_minutes": sum(r["provenance"].get("wall_time_s", 0) for r in new) / 60}


def cell_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """``results.tidy`` of the records with ``row`` ("Model [range]") and ``column`` (the task's name) per run."""
    frame = results.tidy(records)
    cells = {r["key"]: ne4.cell_of(r) for r in records}
    frame["row"] = frame["key"].map(lambda k: f"{cells[k]['model']} {cells[k]['eig_range']}".strip())
    frame["column"] = frame["key"].map(lambda k: ne4.TASK_NAMES[cells[k]["task"]])
    return frame


def paper_values() -> dict[str, float]:
    """``paper_<row>_<task>`` (Table 3's best of 3, NaN where Table 3 has none) and ``paper_median_<row>_<task>``
    (Table 5's median) of every cell; a row is the model, with ``_neg`` or ``_pos`` for its range."""
    out = {}
    for (m, eig, task), p in ne4.paper_rows().items():
        row = f"{m}{'_neg' if eig == '[-1,1]' else '_pos' if eig else ''}"
        out[f"paper_{row}_{task}"] = p.get("paper_best", float("nan"))
        out[f"paper_median_{row}_{task}"] = p["paper_median"]
    return out


#: The paper tables' metric names as a page writes them.
METRIC_WORDS = {"scaled_acc_best_of_3": "normalized accuracy, best of 3 seeds",
                "scaled_acc_median_mad_of_3": "normalized accuracy, median ± MAD of 3 seeds",
                "scaled_acc_reported_by_beck_2024": "normalized accuracy as Beck et al. (2024) report it"}


def paper_extras() -> pd.DataFrame:
    """NE Tables 3 and 5's numbers outside the comparison (``claims.ne4.apart``): Beck et al.'s and the columns
    outside ``claims.ne4.TASKS``, one row each."""
    return pd.DataFrame([{"model": f"{row['model']} {row['variant'] or ''}".strip(), "task": row["task"],
                          "metric": METRIC_WORDS.get(row["metric"], row["metric"]), "value": row["value"],
                          "± MAD": row.get("spread"), "source": row["source"]}
                         for table in ("ne_table3", "ne_table5") for row in results.paper_numbers(table)
                         if ne4.apart(row)])


def pilot_table() -> pd.DataFrame:
    """The fourth column's pilot (``claims.ne4.pilot_grid``), one row per run: steps, status and normalized test
    accuracy (None where not recorded or not finished); indexed by model and seed."""
    rows = []
    for c in ne4.pilot_grid():
        r = results.stored(c)
        rows.append({"model": f"DeltaNet {c.model.eig_range}", "seed": c.seed, "steps": c.train.num_steps,
                     "status": r["status"] if r else "not recorded in this store",
                     "normalized test accuracy": score(r) if r and r["status"] == "ok" else None})
    return pd.DataFrame(rows).set_index(["model", "seed"])


def pilot_values(pilot: pd.DataFrame) -> dict[str, Any]:
    """What the prose reads of the fourth column: the pilot's seeds and best score per range (``pilot_best_pos``,
    ``pilot_best_neg``), the constant-answer score and share at quick (``majority_mult``, ``majority_share``), and
    the paper's medians on the column beside it (low, high, count, how many exceed it, by at most how much)."""
    majority = ne4.majority_score(MULT, "quick")
    medians = [p["paper_median"] for (_, _, t), p in ne4.paper_rows().items() if t == MULT]
    out = {"pilot_seeds": "–".join(str(s) for s in ne4.PILOT_SEEDS), "majority_mult": majority["normalized"],
           "majority_share": majority["share"], "paper_mult_low": min(medians), "paper_mult_high": max(medians),
           "paper_mult_count": len(medians), "paper_mult_above": sum(v > majority["normalized"] for v in medians),
           "paper_mult_gap": max(v - majority["normalized"] for v in medians)}
    flat = pilot.reset_index()
    for eig, name in (("[0,1]", "pos"), ("[-1,1]", "neg")):
        got = flat.loc[flat["model"] == f"DeltaNet {eig}", "normalized test accuracy"].dropna()
        out[f"pilot_best_{name}"] = float(got.max()) if len(got) else float("nan")
    return out
