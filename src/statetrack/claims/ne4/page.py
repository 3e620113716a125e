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

Its figures and explorers:

- ``table_heatmap``: the seven models × three tasks, ours (best and median over seeds) and the paper's
  numbers in every cell; cells a preset did not run are grey and say so.
- ``word_cycles``: the task's answers on a repeated word (period 2 for ``× 4``, period 5 for ``+ 1``)
  beside the word matrix's eigenvalues on the complex plane (``theory.modular_arithmetic``).
- ``expression_run``, ``expression_table``, ``expression_explorer``: pick an expression (``EXPRESSIONS``); the
  hand-built automaton's state beside the true value of every prefix (Vega-Lite, no kernel needed).
- ``expression_exercise``: type your own expression (ipywidgets; needs a kernel).
- ``tables_figure``: ``table_heatmap`` of ne4's verdict in the paper's row and column order.
- ``chomsky_lengths``: normalized accuracy by length as small multiples, a row of panels per task that ran and a
  panel per model family, the eigenvalue range in colour, a line per seed.

Used in: notebooks/ne4_chomsky_tasks.md, tests/test_page_ne4.py.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.claims.ne4 import claim as ne4
from statetrack.verdicts.claim import paper_numbers
from statetrack.verdicts.statements import PAPER_TOLERANCE, score
from statetrack.runs import store as results
from statetrack.display.grids import recipe_values
from statetrack.display.explorers import Explorer, exercise, select, step_grid
from statetrack.display.plots import PAGE_WIDTH, annotated_heatmap, style, records_frame
from statetrack.verdicts.numbers import number
from statetrack.tasks import make_task
from statetrack.tasks.modular import _running_values
from statetrack.theory import modular_arithmetic as ma

OWN_QUICK = ("slstm", "mlstm", "transformer")  # the quick parity rows ne4 trains itself (the others are ne1's)


SYMBOLS = "+−×()=·"  # the arithmetic tasks' tokens after the digits 0..m−1


MULT = "mod_arith_brackets_mult"  # Table 5's fourth column


def grid_values() -> dict[str, Any]:
    """``paper_runs`` = ``paper_rows`` × ``paper_columns`` × ``paper_lrs`` × ``paper_seeds`` of the paper grid,
    the ``tolerance``, and the weight decay and warm-up of ne4's own quick rows and of the paper grid
    (``display.grids.recipe_values``)."""
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
    frame = records_frame(records)
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
    """NE Tables 3 and 5's numbers outside the comparison (``claims.ne4.apart``: Beck et al.'s, the columns outside
    ``claims.ne4.TASKS``): one row per source, statistic and model, one column per task (a spread, where the paper
    gives one, after the value)."""
    rows = [{"source": row["source"], "statistic": METRIC_WORDS.get(row["metric"], row["metric"]),
             "model": f"{row['model']} {row['variant'] or ''}".strip(), "task": ne4.TASK_NAMES[row["task"]],
             "number": row["value"] if row.get("spread") is None else f"{row['value']} ± {row['spread']}"}
            for table in ("ne_table3", "ne_table5") for row in paper_numbers(table) if ne4.apart(row)]
    frame = pd.DataFrame(rows)
    return frame.pivot(index=["source", "statistic", "model"], columns="task", values="number").rename_axis(
        columns=None)


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


def table_heatmap(rows: list[dict[str, Any]], row_order: list[str], col_order: list[str],
                  col_names: dict[str, str], preset: str, title: str | None = None) -> Figure:
    """One cell per (model row, task): colour = our best run; text = ours (best, median) and the paper's.

    Args:
        rows: ``Verdict.rows`` of ne4 (trained and "not run" rows; checks are skipped); each has
            ``model``, ``eig_range``, ``task``, and ``ours_best`` / ``ours_median`` / ``paper_best`` /
            ``paper_median`` where known.
        row_order: row names "Model [range]" top to bottom; col_order: task ids left to right.
        col_names: task id → column heading.
        preset: named in the "not run" cells.
    """
    cells = {(f"{r['model']} {r['eig_range']}".strip(), r["task"]): r for r in rows if "task" in r}
    value = np.full((len(row_order), len(col_order)), np.nan)
    texts = []
    for i, name in enumerate(row_order):
        line = []
        for j, task in enumerate(col_order):
            r = cells.get((name, task), {})
            ran = r.get("part") == "trained"
            if ran:
                value[i, j] = r["ours_best"]
            paper = f"paper {number(r.get('paper_best'), 2)} / {number(r.get('paper_median'), 2)}"
            ours = f"ours {number(r.get('ours_best'), 2)} / {number(r.get('ours_median'), 2)}" if ran else f"not run at {preset}"
            line.append(f"{ours}\n{paper}")
        texts.append(line)
    return annotated_heatmap(value, texts, row_order, [col_names[c] for c in col_order],
                             "ours: best normalized test accuracy",
                             "each cell: ours best / median over seeds; paper best (Table 3) / median (Table 5)",
                             title=title)


def word_cycles(words: dict[str, dict[str, Any]], modulus: int, title: str | None = None) -> Figure:
    """Left: the task's answer after k repetitions of each word; right: each word matrix's eigenvalues.

    Args:
        words: ``claims.ne4.exact_part(...)["words"]``: name → answers (list), period, spectrum (complex tensor).
        modulus: m (the answers' range 0..m−1).
    """
    style()
    colors = dict(zip(words, sns.color_palette("colorblind", len(words))))
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 4.2), gridspec_kw={"width_ratios": [1.35, 1]})
    for n, (name, w) in enumerate(words.items()):
        k = range(len(w["answers"]))
        left.plot(k, [a + 0.08 * (n - 1) for a in w["answers"]], marker="o", ms=4, lw=1.4, color=colors[name],
                  label=f"'{name}' repeated: period {w['period']}")
    left.set_yticks(range(modulus))
    left.set_xlabel("k, repetitions of the word", fontsize=11)
    left.set_ylabel(f"answer (mod {modulus})", fontsize=11)
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, fontsize=9, frameon=False)
    t = np.linspace(0, 2 * math.pi, 200)
    right.plot(np.cos(t), np.sin(t), color="0.6", lw=0.8)
    right.plot([0, 1], [0, 0], color="0.2", lw=5, alpha=0.25, solid_capstyle="butt")
    right.text(0.5, -0.12, "[0, 1]", ha="center", va="top", fontsize=9, color="0.3")
    for n, (name, w) in enumerate(words.items()):
        ev = w["spectrum"]
        right.scatter(ev.real.numpy(), ev.imag.numpy(), s=70 - 18 * n, color=colors[name], alpha=0.8,
                      label=f"'{name}'", zorder=3 + n)
    right.set_aspect("equal")
    right.set_xlim(-1.35, 1.35)
    right.set_ylim(-1.35, 1.35)
    right.set_xlabel("Re λ", fontsize=11)
    right.set_ylabel("Im λ", fontsize=11)
    right.set_title("eigenvalues of the word's matrix", fontsize=11)
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    return fig


#: The expressions the expression explorer offers (mod 5), by hand: the paper's example (2 − 3 − 3 × 2 = 3), a sum,
#: a product of every unit, products and sums mixed both ways, a product that hits 0, a long chain of subtractions
#: and a malformed one (two operators in a row), which sends the automaton to its dead state.
EXPRESSIONS = ("2-3-3*2", "4+4+4+4", "1*2*3*4", "3-4*2+1", "3*4+2*2*2", "2*0*3+1", "4-1-1-1-1-1-1", "2+*3")


def expression_run(expression: str, modulus: int = 5) -> tuple[pd.DataFrame, bool]:
    """The hand-built bilinear model (``theory.modular_arithmetic``) read back token by token on an expression
    without brackets: per token its one-hot state, the automaton state it names (e.g. D(4,2) = total 4, current
    term 2), the value it implies (total + term) and the true value of the expression so far (the task's own
    label function); and whether the expression is well formed. Raises ValueError on text it cannot read."""
    mach = ma.machine(modulus)
    model = ma.arithmetic_bilinear(mach)
    ids = ma.parse(expression, modulus)
    if len(ids) > 61 or any(i >= modulus + 3 and i != modulus + 5 for i in ids):
        raise ValueError("type at most 30 digits joined by + - * (no brackets)")
    with torch.no_grad():
        h = model.states(torch.tensor([ids]))[0]  # (T, S)
    states = h.argmax(-1).tolist()
    digits = [i for i in ids if i < modulus]
    ops = [i - modulus for i in ids if modulus <= i < modulus + 3]
    ok = len(digits) == len(ops) + 1 and all((ids[2 * n] < modulus) for n in range(len(digits)))
    truth = _running_values(torch.tensor([digits]), torch.tensor([ops]), modulus)[0].tolist() if ok else []
    rows, n = [], 0
    for x, q in zip(ids, states):
        name = mach.names[q]
        implied = (sum(map(int, name[2:-1].split(",")[:2])) % modulus if name.startswith("D") else
                   int(mach.answer[q]) if name.startswith("A") else None)
        true = None
        if ok and x < modulus:
            true, n = truth[n], n + 1
        elif ok and x == modulus + 5:
            true = truth[-1]
        rows.append({"token": str(x) if x < modulus else SYMBOLS[x - modulus], "one-hot state": f"e_{q}",
                     "automaton state": name, "value it implies": implied, "true value so far": true})
    return pd.DataFrame(rows), ok


def expression_table(expressions=EXPRESSIONS, modulus: int = 5) -> pd.DataFrame:
    """What the expression explorer draws: ``expression_run`` of each expression as text, one row per
    (expression, step, quantity): columns expression, step, quantity, value ("–" where there is none)."""
    rows = []
    for text in expressions:
        run, _ = expression_run(text, modulus)
        rows += [{"expression": text, "step": step, "quantity": col,
                  "value": "–" if pd.isna(v) else str(int(v)) if isinstance(v, float) else str(v)}
                 for step, r in enumerate(run.to_dict("records"), 1) for col, v in r.items()]
    return pd.DataFrame(rows)


def expression_explorer(table: pd.DataFrame | None = None) -> Explorer:
    """Pick an expression without brackets (mod 5, ``EXPRESSIONS``); read the hand-built automaton's state after
    every token beside the true value of the expression so far (``expression_table``, computed when the page is
    built)."""
    table = expression_table() if table is None else table
    choices = list(dict.fromkeys(table["expression"]))
    pick = select("expression", choices, choices[0], label="expression (mod 5)")
    rows = ["token", "one-hot state", "automaton state", "value it implies", "true value so far"]
    return Explorer(step_grid(table, pick, "expression", rows, step_title="tokens read"), "expression explorer")


def expression_exercise(expression: str = "2-3-3*2", modulus: int = 5):
    """Type an expression without brackets; see the automaton's state beside the true value (``expression_run``).
    Needs a running kernel (``explorers.exercise``)."""
    from IPython.display import display

    text = widgets.Text(value=expression, description="expression",
                        placeholder=f"e.g. 2-3-3*2 (digits 0-{modulus - 1}, + - *)")

    def draw():
        try:
            run, ok = expression_run(text.value, modulus)
        except ValueError as e:
            print(e)
            return
        display(run)
        if not ok:
            print("not a well-formed expression: the automaton went to its dead state")

    return exercise([text], draw, "type your own expression")


def tables_figure(rows: list[dict[str, Any]], preset: str) -> Figure:
    """``table_heatmap`` of ne4's ``Verdict.rows``: the rows of ``claims.ne4.ROWS`` top to bottom, its ``TASKS`` left
    to right."""

    order = [f"{ne4.NAMES[m]} {e}".strip() for m, e in ne4.ROWS]
    return table_heatmap(rows, order, list(ne4.TASKS), ne4.TASK_NAMES, preset,
                         title=f"NE Tables 3 and 5 beside ours (preset {preset})")


#: The eigenvalue ranges ``chomsky_lengths`` tells apart by colour (seaborn's colour-blind palette), with their names
RANGE_LOOKS = {"[0,1]": (0, "eigenvalues in [0, 1]"), "[-1,1]": (1, "eigenvalues in [−1, 1]"),
               "": (7, "no eigenvalue range (Transformer, xLSTM)")}


def chomsky_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """Normalized accuracy by length on a log axis as small multiples: one row of panels per ``column`` (task),
    one panel per model family, the eigenvalue ranges in colour-blind-safe colours named by the legend
    (``RANGE_LOOKS``), one line per seed (``cell_frame`` rows); ``cfg`` (a run config of the grid) gives the
    trained and tested lengths (shaded, and between dashed lines)."""
    style()
    frame = frame.assign(family=frame["row"].str.replace(r"\s*\[.*\]$", "", regex=True),
                         range=frame["row"].str.extract(r"(\[.*\])$", expand=False).fillna(""))
    order = [ne4.NAMES[m] for m, _ in ne4.ROWS]
    families = sorted(set(frame["family"]), key=lambda f: order.index(f) if f in order else len(order))
    tasks = list(dict.fromkeys(frame["column"]))
    palette = sns.color_palette("colorblind", 10)
    fig, axes = plt.subplots(len(tasks), len(families), figsize=(PAGE_WIDTH, 0.6 + 2.1 * len(tasks)), sharex=True,
                             sharey=True, squeeze=False)
    train_max, test_range = cfg.train.max_len, (cfg.eval.min_len, cfg.eval.max_len)
    low, high = frame["length"].min() / 1.15, frame["length"].max() * 1.15
    handles = {}
    for i, task in enumerate(tasks):
        for j, fam in enumerate(families):
            ax = axes[i][j]
            sub = frame[(frame["column"] == task) & (frame["family"] == fam)]
            for (eig, _seed), run in sub.groupby(["range", "seed"], sort=True):
                index, name = RANGE_LOOKS.get(eig, (7, eig))
                run = run.sort_values("length")
                (line,) = ax.plot(run["length"], run["normalized"], color=palette[index], lw=1.4, alpha=0.85,
                                  marker="o" if eig == "[-1,1]" else "s" if eig == "[0,1]" else "^", ms=3.5,
                                  markevery=max(1, len(run) // 6))
                handles.setdefault(name, line)
            if sub.empty:
                ax.text(0.5, 0.5, "not run", transform=ax.transAxes, ha="center", va="center", fontsize=11,
                        color="0.45")
            ax.axvspan(low, train_max, color="0.85", alpha=0.5, lw=0)
            for x in test_range:
                ax.axvline(x, color="0.4", ls="--", lw=0.8)
            ax.set_xscale("log")
            ax.set_xlim(low, high)
            ax.set_ylim(-0.15, 1.1)
            ax.tick_params(labelsize=10)
            if i == 0:
                ax.set_title(fam, fontsize=12)
            if j == 0:
                ax.set_ylabel(textwrap.fill(task, 14) + ("" if len(tasks) > 1 else "\nnormalized acc."), fontsize=11)
            if i == len(tasks) - 1:
                ax.set_xlabel("length (log)", fontsize=11)
    names = [n for _, n in RANGE_LOOKS.values() if n in handles] + [n for n in handles
                                                                    if n not in [v[1] for v in RANGE_LOOKS.values()]]
    if len(tasks) > 1:
        fig.supylabel("normalized accuracy (0 = chance)", fontsize=11)
    fig.legend([handles[n] for n in names], names, loc="lower center", ncol=len(names), fontsize=10, frameon=False)
    fig.suptitle(f"Accuracy by length, preset {preset}: one line per seed, trained lengths shaded", fontsize=12)
    fig.tight_layout(rect=(0, 0.06 if len(tasks) > 1 else 0.1, 1, 1))
    return fig
