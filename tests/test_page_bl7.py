"""The bl7 page's readings (``statetrack.claims.bl7.page``) and its length figure (``lengths_with_ceiling``): commutators
against a product of matrices written out by hand, S3's table against the class equation, the ceiling at length 2
counted by hand, the verdict's cells on a hand-made verdict, the figure's panels from a tiny frame."""

from __future__ import annotations

import math
from types import SimpleNamespace

import matplotlib
import pandas as pd
import pytest
import torch

from statetrack.claims.bl7 import page as page
from statetrack.claims.bl7 import claim as bl7
from statetrack.claims.bl7.page import lengths_with_ceiling
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def s3():
    return make_task(bl7.task_of("S3"))


def test_commutators_match_the_products_written_out(s3):
    frame = page.commutators(s3, d_model=4)
    assert list(frame.index) == ["rotation", "diagonal", "full"]
    torch.manual_seed(0)
    model = make_model(model_config("bilinear", variant="full", d_model=4), s3.vocab_size, s3.num_classes)
    A = model.double().transition_matrices().detach()  # (V, H, H)
    pairs = [(a, b) for a in range(len(A)) for b in range(len(A)) if a != b]
    norms = [float(torch.linalg.norm(A[a] @ A[b] - A[b] @ A[a])) for a, b in pairs]
    assert frame.loc["full", "largest commutator"] == pytest.approx(max(norms), rel=1e-9)
    assert frame.loc["full", "smallest commutator (a ≠ b)"] == pytest.approx(min(norms), rel=1e-9)
    for shared in ("rotation", "diagonal"):  # one eigenbasis: the transitions commute, ab and ba reach one state
        assert frame.loc[shared, "largest commutator"] < 1e-12 and frame.loc[shared, "‖h(1 2) − h(2 1)‖"] < 1e-12


def test_s3_has_as_many_commuting_pairs_as_the_class_equation_says(s3):
    numbers = page.s3_numbers(s3)
    # commuting ordered pairs = |G| × (number of conjugacy classes) = 6 × 3; 36 − 18 do not commute
    assert numbers["noncommuting_pairs"] == 18
    assert numbers["product_12"] != numbers["product_21"]
    table = page.multiplication_table(s3)
    assert table.shape == (6, 6)
    assert sum(str(v).endswith(" *") for v in table.to_numpy().ravel()) == 18
    assert not any(str(v).endswith(" *") for v in table.iloc[0])  # element 0 is the identity: it commutes


def test_the_ceiling_at_length_two_counts_the_right_guesses(s3):
    c = page.ceiling(s3, "smoke")
    assert list(c["length"]) == list(range(1, bl7.CEILING_LEN["smoke"] + 1))
    # length 2: 6 words aa, 6 commuting unordered pairs (both orders right), 9 non-commuting (one of two right)
    assert c["value"].iloc[0] == pytest.approx(1.0) and c["value"].iloc[1] == pytest.approx((6 + 12 + 9) / 36)


def test_ceiling_numbers_read_the_frame():
    frame = pd.DataFrame({"length": [1, 2, 3], "value": [1.0, 0.75, 0.6]})
    numbers = page.ceiling_numbers(frame, 2, "quick")
    assert (numbers["ceiling_2"], numbers["ceiling_last"], numbers["ceiling_len"]) == (0.75, 0.6, 3)
    assert numbers["ceiling_first_test"] == 0.75 and numbers["first_test"] == 2
    assert math.isnan(page.ceiling_numbers(frame, 11, "quick")["ceiling_first_test"])


def _verdict():
    rows = [{"part": "trained", "model": "rotation", "task": "Z5", "label": "R2 on Z5", "ours_min": 0.5,
             "ours_max": 0.9, "ours_best": 0.9, "ours_median": 0.7, "seeds": 3, "diverged": 0, "paper_best": 1.0},
            {"part": "exact", "label": "a check"}]
    return SimpleNamespace(rows=rows)


def test_cell_extremes_name_every_cell_and_leave_nan_where_none_ran():
    numbers = page.cell_extremes(_verdict())
    assert len(numbers) == 2 * len(bl7.MODELS) * len(bl7.TASKS)
    assert numbers["ours_rotation_Z5_lowest"] == 0.5 and numbers["ours_rotation_Z5_highest"] == 0.9
    assert math.isnan(numbers["ours_diagonal_S3_highest"])
    assert page.full_s3_clause(_verdict()) == "the full model on S3 runs at the paper preset only"
    with_full = SimpleNamespace(rows=[{"part": "trained", "model": "full", "task": "S3", "ours_min": 0.12345}])
    assert page.full_s3_clause(with_full) == "the lowest full run on S3 scored 0.123"


def test_the_cell_table_has_one_row_per_trained_cell():
    table = page.cell_table(_verdict())
    assert list(table.columns) == list(page.CELL_COLUMNS.values())
    assert table.to_dict("records")[0]["ours lowest"] == 0.5 and len(table) == 1


def _record(task: str, seed: int) -> dict:
    cfg = next(c for c in bl7.grid("smoke") if bl7.cell_of({"config": c.to_dict()})["task"] == task)
    config = {**cfg.to_dict(), "seed": seed}
    return {"key": f"{task}-{seed}", "status": "ok", "config": config, "summary": {"chance": 0.2},
            "by_length": {"length": [2, 20], "acc": [1.0, 0.6]}}


def test_the_run_table_and_the_length_frame_name_task_and_model():
    records = [_record("Z5", 0), _record("S3", 1)]
    frame = page.length_frame(records)
    assert set(frame["task"]) == {"Z5", "S3"} and len(frame) == 4
    assert set(frame["model"]) <= set(bl7.NAMES.values())
    cell = page.run_cell(records[0])
    assert cell["task"] == "Z5" and cell["H"] == records[0]["config"]["model"]["d_model"]
    scores = page.run_scores({"summary": {"ood_normalized": 0.1, "acc_at_max_len": 0.2, "id_normalized": 0.3}})
    assert list(scores.values()) == [0.1, 0.2, 0.3]


def test_the_length_figure_draws_a_panel_per_task_and_the_ceiling_on_s3():
    frame = pd.DataFrame([{"task": t, "model": "R2 (1 block)", "family": "rotation", "eig_range": "", "seed": 0,
                           "length": n, "normalized": 0.5}
                          for t in ("Z5", "S3") for n in (2, 20)])
    ceiling = pd.DataFrame({"length": [1, 2], "value": [1.0, 0.75]})
    fig = lengths_with_ceiling(frame, ceiling, 10, (11, 500))
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["Z5", "S3"]
    bound = [line for line in axes[1].lines if line.get_label() == "count-only ceiling"]
    assert not any(line.get_label() == "count-only ceiling" for line in axes[0].lines) and len(bound) == 1
    # normalized against chance 1/6: (0.75 − 1/6)/(5/6) = 0.7; held at its last value to length 500
    assert list(bound[0].get_xdata()) == [1, 2, 500]
    assert list(bound[0].get_ydata()) == pytest.approx([1.0, 0.7, 0.7])


def test_word_explorer_reads_the_product_of_1_2_and_its_reverse_composed_by_hand():
    """"1 2" and "2 1": the true products are the permutations composed by hand (each element applied after the
    product so far), they differ, and the count-only guess is right with chance 1/2 at length 2, so it misses one
    of the two; the one control is the word."""
    from statetrack.claims.bl7.page import word_explorer, word_table
    from statetrack.tasks import make_task, task_config

    perms = make_task(task_config("word_problem", group="S3")).permutations
    steps, notes = word_table([[1, 2], [2, 1]])
    finals = {}
    for word in ("1 2", "2 1"):
        product = (0, 1, 2)
        for g in map(int, word.split()):
            product = tuple(perms[g][product[i]] for i in range(3))
        rows = steps[steps["word"] == word]
        assert rows["product"].iloc[-1] == "".join(map(str, product))
        assert rows["chance"].iloc[-1] == "0.500"
        finals[word] = rows
    assert finals["1 2"]["product"].iloc[-1] != finals["2 1"]["product"].iloc[-1]
    assert finals["1 2"]["guess"].iloc[-1] == finals["2 1"]["guess"].iloc[-1]
    assert all("different" in n for n in notes["note"])
    assert [c["name"] for c in word_explorer().controls()] == ["word"]
