"""ne4's page readings (``claims.ne4.page``) and figures, against brute force on the task samples, the paper's CSVs and
hand-made records."""

from __future__ import annotations

import csv
import math
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from statetrack.claims.ne4 import page as chomsky
from statetrack.claims.ne4 import claim as ne4
from statetrack.claims.ne4.page import chomsky_lengths, tables_figure  # noqa: E402
from statetrack.runs.store import paper_dir  # noqa: E402


def _paper(table: str) -> list[dict]:
    with open(paper_dir() / f"{table}.csv") as f:
        return list(csv.DictReader(f))


def test_grid_values_multiply_to_the_paper_runs():
    v = chomsky.grid_values()
    assert v["paper_rows"] * v["paper_columns"] * v["paper_lrs"] * v["paper_seeds"] == v["paper_runs"]
    own = [c for c in ne4.grid("quick") if c.model.name in chomsky.OWN_QUICK]
    assert own and v["quick_warmup"] == f"{own[0].train.warmup_steps / own[0].train.num_steps:.0%}"


def test_samples_answer_as_brute_force_does():
    table = chomsky.samples()
    assert list(table.index) == [ne4.TASK_NAMES[t] for t in ne4.TASKS]
    bits = [int(b) for b in table.loc["parity", "input"].split()]
    running = [sum(bits[:i + 1]) % 2 for i in range(len(bits))]
    assert [int(a) for a in table.loc["parity", "answers"].split()] == running
    for task in ne4.TASKS[1:]:
        tokens = table.loc[ne4.TASK_NAMES[task], "input"].split()
        assert tokens[-1] == "="
        expression = " ".join(tokens[:-1]).replace("×", "*").replace("−", "-")
        answers = table.loc[ne4.TASK_NAMES[task], "answers"].split()
        assert answers[:-1] == ["."] * (len(tokens) - 1)
        assert int(answers[-1]) == eval(expression) % ne4.MODULUS  # Python's precedence is the task's


def test_word_table_and_values():
    words = {"× 4": {"answers": [3, 2, 3], "period": 2, "spectrum": [complex(-1, 0), 1.0, 0.0]},
             "+ 1": {"answers": [1, 2], "period": 5, "spectrum": [complex(0.309, 0.951)]}}
    assert chomsky.word_values(words) == {"period_times4": 2, "period_plus1": 5}
    table = chomsky.word_table(words)
    assert table.loc["× 4", "eigenvalues of the word's matrix (non-zero, distinct)"] == "+1.00+0.00i, -1.00+0.00i"
    assert table.loc["× 4", "answers for k = 0, 1, 2, ..."] == "3 2 3"


def _record(cfg, claim="ne4", minutes=1.0):
    return {"key": f"k{id(cfg)}", "claim": claim, "status": "ok", "config": cfg.to_dict(), "stale": False,
            "provenance": {"wall_time_s": 60 * minutes}, "summary": {"chance": 0.5},
            "by_length": {"length": [8, 16, 24], "acc": [1.0, 0.75, 0.5]}}


def test_run_values_count_the_reused_runs_and_the_new_minutes():
    grid = ne4.grid("smoke")
    records = [_record(grid[0], minutes=1.5), _record(grid[1], claim="ne1"), _record(grid[2], minutes=0.5)]
    assert chomsky.run_values(records) == {"num_reused": 1, "new_minutes": pytest.approx(2.0)}


def test_cell_frame_names_each_runs_row_and_column():
    grid = [c for c in ne4.grid("smoke") if c.model.name == "deltanet"]
    frame = chomsky.cell_frame([_record(c) for c in grid])
    want = {(f"DeltaNet {c.model.eig_range}", ne4.TASK_NAMES[ne4.column_of(c.task.to_dict())]) for c in grid}
    assert set(zip(frame["row"], frame["column"])) == want
    assert len(frame) == 3 * len(grid)
    cell = chomsky.run_cell(_record(grid[0]))
    assert cell["model"] == f"DeltaNet {grid[0].model.eig_range}" and cell["task"] in ne4.TASKS


def test_paper_values_are_the_csvs_numbers():
    v = chomsky.paper_values()
    best = {(r["model"], r["variant"], r["task"]): float(r["value"]) for r in _paper("ne_table3")
            if r["metric"] == "scaled_acc_best_of_3"}
    median = {(r["model"], r["variant"], r["task"]): float(r["value"]) for r in _paper("ne_table5")}
    assert v["paper_deltanet_neg_mod_arith_no_brackets"] == best[("DeltaNet", "[-1,1]", "mod_arith_no_brackets")]
    assert v["paper_slstm_parity"] == best[("sLSTM", "", "parity")]
    assert v["paper_median_mamba_pos_mod_arith_brackets"] == median[("Mamba", "[0,1]", "mod_arith_brackets")]
    assert math.isnan(v["paper_slstm_mod_arith_brackets_mult"])  # Table 3 has no fourth column
    assert v["paper_median_slstm_mod_arith_brackets_mult"] == median[("sLSTM", "", chomsky.MULT)]


def test_pilot_values_take_the_best_recorded_seed_per_range():
    pilot = pd.DataFrame([{"model": "DeltaNet [0,1]", "seed": 100, "normalized test accuracy": 0.1},
                          {"model": "DeltaNet [0,1]", "seed": 101, "normalized test accuracy": None},
                          {"model": "DeltaNet [0,1]", "seed": 102, "normalized test accuracy": 0.05}]
                         ).set_index(["model", "seed"])
    v = chomsky.pilot_values(pilot)
    assert v["pilot_best_pos"] == 0.1 and math.isnan(v["pilot_best_neg"])
    medians = [float(r["value"]) for r in _paper("ne_table5") if r["task"] == chomsky.MULT]
    assert (v["paper_mult_low"], v["paper_mult_high"], v["paper_mult_count"]) == (min(medians), max(medians),
                                                                                   len(medians))
    assert v["paper_mult_above"] == sum(m > v["majority_mult"] for m in medians)


def test_tables_figure_writes_every_cell_and_says_which_did_not_run():
    rows = [{"model": "DeltaNet", "eig_range": "[-1,1]", "task": "parity", "part": "trained", "ours_best": 0.9,
             "ours_median": 0.8, "paper_best": 1.0, "paper_median": 0.999}]
    fig = tables_figure(rows, "smoke")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == len(ne4.ROWS) * len(ne4.TASKS)
    assert sum(t.startswith("ours 0.90 / 0.80") for t in texts) == 1
    assert sum(t.startswith("not run at smoke") for t in texts) == len(texts) - 1


def test_chomsky_lengths_draws_a_panel_per_task_and_family_one_line_per_seed():
    frame = pd.DataFrame([{"key": f"{r}{c}{s}", "row": r, "column": c, "seed": s, "length": n, "normalized": 0.5}
                          for r in ("sLSTM", "DeltaNet [-1,1]", "DeltaNet [0,1]")
                          for c in ("parity", "mod. arith. w/ brackets") for s in (0, 1) for n in (40, 128, 256)])
    cfg = SimpleNamespace(train=SimpleNamespace(max_len=40), eval=SimpleNamespace(min_len=40, max_len=256))
    fig = chomsky_lengths(frame, cfg, "quick")
    axes = [ax for ax in fig.axes if ax.get_xscale() == "log"]
    assert len(axes) == 4  # 2 tasks × 2 families
    assert [ax.get_title() for ax in axes[:2]] == ["sLSTM", "DeltaNet"]
    runs = [len([ln for ln in ax.get_lines() if len(ln.get_xdata()) == 3]) for ax in axes]
    assert runs == [2, 4, 2, 4]  # sLSTM: 2 seeds; DeltaNet: 2 ranges × 2 seeds
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [chomsky.RANGE_LOOKS[e][1] for e in ("[0,1]", "[-1,1]", "")]


def test_expression_explorer_reads_the_value_of_every_prefix():
    """The table's true values against a left-to-right evaluation by hand (× before + and −, mod 5); the
    controls name the expression."""
    table = chomsky.expression_table(["2-3-3*2", "3*4+2*2*2"])

    def by_hand(text):  # the value of every prefix ending in a digit, and the final one at "="
        out = []
        for n in range(1, len(text) + 1, 2):
            out.append(eval(text[:n]) % 5)
        return out + [out[-1]]

    for text in ("2-3-3*2", "3*4+2*2*2"):
        got = table[(table["expression"] == text) & (table["quantity"] == "true value so far")]
        values = [int(v) for v in got["value"] if v != "–"]
        assert values == by_hand(text)
        implied = table[(table["expression"] == text) & (table["quantity"] == "value it implies")]
        assert [v for v in implied["value"] if v != "–"] == [str(v) for v in by_hand(text)]
    assert by_hand("2-3-3*2")[-1] == 3  # the paper's example
    explorer = chomsky.expression_explorer()
    assert [c["name"] for c in explorer.controls()] == ["expression"]
    assert explorer.controls()[0]["bind"]["options"] == list(chomsky.EXPRESSIONS)


def test_the_numbers_outside_the_comparison_are_one_row_per_model_with_no_empty_column():
    """Beck et al.'s numbers in NE Table 3's parentheses: a model per row, a task per column, each number as the
    paper's CSV gives it; no column is empty (the paper gives no spread for them)."""
    from statetrack.verdicts.claim import paper_numbers

    frame = chomsky.paper_extras()
    assert not frame.isna().all().any()
    expected = {(r["model"], ne4.TASK_NAMES[r["task"]]): r["value"] for r in paper_numbers("ne_table3")
                if ne4.apart(r)}
    got = {(idx[-1], col): v for idx, row in frame.iterrows() for col, v in row.items() if v == v}
    assert got == expected and len(frame) == len({m for m, _ in expected})
