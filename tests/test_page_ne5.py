"""ne5's page readings (``pages.ne5``) and its length figure, against cycle counts done by hand, the Stirling
numbers of S5 and hand-made records."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from statetrack.site.pages import ne5 as s5  # noqa: E402
from statetrack.claims import ne5  # noqa: E402
from statetrack.site.pages.ne5 import s5_lengths  # noqa: E402
from statetrack.tasks import make_task, task_config  # noqa: E402


def _cycles(p: tuple[int, ...]) -> int:
    seen, count = set(), 0
    for start in range(len(p)):
        if start not in seen:
            count += 1
            i = start
            while i not in seen:
                seen.add(i)
                i = p[i]
    return count


def test_factor_counts_are_five_minus_the_cycles_of_each_drawn_element():
    counts = s5.factor_counts().set_index(["variant", "factors"])["elements"]
    for elements, name in s5.ELEMENTS.items():
        task = make_task(task_config("word_problem", group="S5", elements=elements))
        need = [5 - _cycles(task.permutations[int(g)]) for g in task.elements_drawn]
        assert [counts[(name, f)] for f in range(5)] == [need.count(f) for f in range(5)]
    # all of S5: the unsigned Stirling numbers of the first kind c(5, 5 − f)
    assert [counts[("all of S5", f)] for f in range(5)] == [1, 10, 35, 50, 24]


def test_factor_values_read_two_counts():
    counts = pd.DataFrame([{"variant": s5.ELEMENTS["swaps_3cycles"], "factors": 2, "elements": 7},
                           {"variant": s5.ELEMENTS["all"], "factors": 4, "elements": 9},
                           {"variant": s5.ELEMENTS["all"], "factors": 2, "elements": 3}])
    assert s5.factor_values(counts) == {"elements_two": 7, "elements_four": 9}


def test_grid_values_name_the_paper_recipe_and_the_solved_level():
    v = s5.grid_values()
    assert math.isclose(v["solved"] + v["tolerance"], 1)
    assert {c.train.weight_decay for c in ne5.grid("paper")} == {v["paper_weight_decay"]}


def test_run_scores_read_the_sequence_accuracy_at_each_length():
    r = {"status": "ok", "config": {"eval": {"max_len": 128}}, "summary": {"seq_acc_at_max_len": 0.25},
         "by_length": {"length": [32, 64, 100, 128], "seq_acc": [1.0, 0.75, 0.5, 0.25]}}
    assert s5.run_scores(r, "quick") == {"seq acc @32": 1.0, "@64": 0.75, f"@{ne5.L_GEN['quick']}": 0.5,
                                         "@longest": 0.25, "longest": 128}


def _record(cfg, seed_key: str) -> dict:
    return {"key": seed_key, "claim": "ne5", "status": "ok", "config": cfg.to_dict(), "stale": False,
            "summary": {"chance": 1 / 120}, "by_length": {"length": [9, 12, 16], "acc": [1.0, 1.0, 0.5],
                                                           "seq_acc": [1.0, 0.5, 0.25]}}


def test_s5_lengths_draws_the_variants_that_ran_with_a_line_per_run():
    grid = ne5.grid("smoke")
    swaps = [c for c in grid if ne5.cell_of({"config": c.to_dict()})["variant"] == "swaps"]
    fig = s5_lengths([_record(c, f"k{i}") for i, c in enumerate(swaps)], grid, "smoke")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == [ne5.VARIANT_NAMES["swaps"]]
    assert len(shown[0].get_lines()) == len(swaps)
    assert any("not run at this preset" in t.get_text() for t in fig.texts)
