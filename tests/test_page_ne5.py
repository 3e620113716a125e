"""ne5's page readings (``claims.ne5.page``) and its length figure, against cycle counts done by hand, the Stirling
numbers of S5 and hand-made records."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from statetrack.claims.ne5 import page as s5
from statetrack.claims.ne5 import claim as ne5
from statetrack.claims.ne5.page import s5_lengths  # noqa: E402
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


def test_group_tracker_explorer_reads_the_running_permutation_composed_by_hand():
    """The tracker table on the page's swap word ((0 1), (1 2), (0 1), (3 4)) against the permutations composed by
    hand, each new element applied after the product so far; the readout block starts at (1..5)/√55 permuted; the
    example words start with the page's word and the 5-cycle five times; the one control is the word."""
    from statetrack.display.word_problem_figures import group_tracker_explorer, tracker_table, tracker_words

    task = make_task(task_config("word_problem", group="S5"))
    ids = [24, 6, 24, 1]
    swaps = [(1, 0, 2, 3, 4), (0, 2, 1, 3, 4), (1, 0, 2, 3, 4), (0, 1, 2, 4, 3)]
    assert [task.permutations[g] for g in ids] == swaps
    product, expected = (0, 1, 2, 3, 4), []
    for p in swaps:
        product = tuple(p[product[i]] for i in range(5))
        expected.append("".join(map(str, product)))
    assert expected == ["10234", "20134", "21034", "21043"]
    steps, states = tracker_table("S5", 1, [ids])
    assert list(steps["label"]) == expected and list(steps["tracker"]) == expected
    assert list(steps["token"]) == ["10234", "02134", "10234", "01243"]
    assert sorted(states[states["t"] == 1]["value"]) == [round(v / math.sqrt(55), 3) for v in (1, 2, 3, 4, 5)]
    words = tracker_words("S5")
    assert len(words) == 8 and words[0] == ids
    assert words[1] == [task.permutations.index((1, 2, 3, 4, 0))] * 5
    assert [c["name"] for c in group_tracker_explorer("S5").controls()] == ["word"]
