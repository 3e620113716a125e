"""The bl1 page's readings (``statetrack.claims.bl1.page``): the hand-built state against a walk of the table written
out by hand, synchronisation counted by brute force, the worked affine example, BL's numbers read from the CSV,
and the totals and pilots on hand-made frames."""

from __future__ import annotations

import csv
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

from statetrack.claims.bl1 import page as page
from statetrack.claims.bl1 import claim as bl1
from statetrack.runs.store import repo_root
from statetrack.tasks import make_task, task_config


def test_the_hand_built_state_is_the_one_hot_code_of_the_walked_state():
    task = make_task(task_config("fsm", num_states=4, alphabet_size=3, num_permutation_letters=1, table_seed=2))
    trace = page.construction_trace(task, seed=1, length=12)
    word = task.sample(torch.Generator().manual_seed(1), 1, 12).inputs[0].tolist()
    q, walked = 0, []
    for x in word:  # start in state 0, one table lookup per letter
        q = int(task.table[q, x])
        walked.append(q)
    for t, q in enumerate(walked, 1):
        at = trace[trace.t == t]
        assert (at.truth == q).all()
        assert at.set_index("state")["h"].to_dict() == {s: float(s == q) for s in range(4)}


def test_a_permutation_machine_never_synchronises_and_a_uniform_one_as_brute_force_counts():
    cfg = SimpleNamespace(task=task_config("fsm", num_states=4, alphabet_size=2, num_permutation_letters=2,
                                           table_seed=0), eval=SimpleNamespace(max_len=12))
    sync = page.sync_frame(cfg, num_words=16)
    assert list(sync[~sync.uniform]["w"]) == [1, 2, 5, 10]  # the windows up to the test length
    assert (sync[~sync.uniform]["fraction"] == 0).all()
    uniform = make_task(task_config("fsm", num_states=4, alphabet_size=2, table_seed=0))
    words = uniform.sample(torch.Generator().manual_seed(5), 16, 12).inputs.tolist()

    def synchronised(word, w):
        ends = set()
        for q in range(4):
            for x in word[len(word) - w:]:
                q = int(uniform.table[q, x])
            ends.add(q)
        return len(ends) == 1

    for w, f in sync[sync.uniform][["w", "fraction"]].itertuples(index=False):
        assert f == pytest.approx(sum(synchronised(word, w) for word in words) / 16)
    numbers = page.sync_numbers(sync)
    assert numbers["sync_perm"] == 0 and numbers["sync_uniform_w"] == 10
    assert numbers["sync_uniform"] == pytest.approx(sync[sync.uniform]["fraction"].iloc[-1])


def test_the_worked_affine_example_answers_state_1_below_c_1_and_state_0_above():
    hand = page.hand_example((0.5, 2.0))
    assert list(hand["predicted state after one letter"]) == [1, 0]  # h_1 = (c, 1): argmax 1 for c < 1, 0 for c > 1


def test_scale_and_tracking_totals_on_hand_made_frames():
    part = {"pure_changes": [0.0] * len(bl1.SCALES), "additive_changes": [0.1, 0.3, 0.2, 0.0],
            "additive_norm_changes": 0.05}
    scale = page.scale_frame(part)
    assert len(scale) == 2 * len(bl1.SCALES) and list(scale[scale.model == "additive"]["c"]) == list(bl1.SCALES)
    numbers = page.scale_numbers(page.hand_example((0.5, 2.0)), scale, part)
    assert numbers == {"hand_small": 1, "hand_large": 0, "pure_max": 0.0, "additive_max": 0.3, "additive_norm": 0.05}
    tracking = pd.DataFrame({"sequences": [10, 2], "length": [100, 1000], "acc (every_step)": [1.0, 1.0],
                             "acc (none)": [1.0, 0.5], "identical predictions": [True, False]})
    assert page.tracking_numbers(tracking) == {"n_machines": 2, "n_words": 12, "longest": 1000, "n_steps": 3000,
                                               "min_acc": 0.5, "all_identical": "no"}


def test_paper_numbers_are_the_csv_rows_of_the_full_model():
    with open(repo_root() / "data" / "paper" / "bl_fsm.csv") as f:
        at_25 = [float(r["value"]) for r in csv.DictReader(f)
                 if r["model"] == "Bilinear (full)" and r["setting"] == "m=25"]
    numbers = page.paper_numbers(25)
    assert numbers["paper_fsm"] == numbers["paper_fsm25"] == at_25[0]
    # the paper preset's statement: BL's 50-state number less the project's tolerance, at least
    assert numbers["paper_fsm50_rule"] == f"≥ {round(numbers['paper_fsm50'] - 0.1, 6):g}"


def test_trained_numbers_read_the_trained_cell():
    verdict = SimpleNamespace(rows=[{"part": "exact"}, {"part": "trained", "ours_best": 0.9, "ours_median": 0.7,
                                                         "ours_min": 0.4}])
    assert page.trained_numbers(verdict) == {"ours_best": 0.9, "ours_median": 0.7, "ours_min": 0.4}


def test_with_no_pilot_recorded_every_pilot_is_still_to_train(tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path))
    pilots = page.pilot_table()
    assert pilots.empty and list(pilots.columns) == page.PILOT_COLUMNS[1:]
    numbers = page.pilot_numbers(pilots)
    assert numbers["pilots_recorded"] == 0 and numbers["pilots_total"] == len(bl1.PILOT_CHANGES)
    assert numbers["pilots_missing"] == ", ".join(bl1.PILOT_CHANGES)
    assert numbers["pilot_base_id"] == numbers["pilot_base_ood"] == "–"


def test_the_paper_cells_pilot_scores_are_shown_to_three_decimals(tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path))
    base = next(iter(bl1.PILOT_CHANGES))
    pilots = pd.DataFrame([["ok", 0.98765, 0.1234, 3.0]], columns=page.PILOT_COLUMNS[1:],
                          index=pd.Index([base], name=page.PILOT_COLUMNS[0]))
    numbers = page.pilot_numbers(pilots)
    assert (numbers["pilot_base_id"], numbers["pilot_base_ood"]) == ("0.988", "0.123")
    assert numbers["pilots_beating"] == "none" and numbers["pilot_perm_ood"] == "–"


def test_a_pilot_beats_the_earlier_cell_only_by_more_than_the_margin(tmp_path, monkeypatch):
    from statetrack.verdicts.pilots import MARGIN

    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(tmp_path))
    names = list(bl1.PILOT_CHANGES)[:4]
    ood = [0.40, 0.40 + MARGIN + 0.01, 0.40 + MARGIN / 2, 0.10]  # base; beats; within the margin; worse
    pilots = pd.DataFrame([["ok", 1.0, x, 1.0] for x in ood], columns=page.PILOT_COLUMNS[1:],
                          index=pd.Index(names, name=page.PILOT_COLUMNS[0]))
    assert page.pilot_numbers(pilots)["pilots_beating"] == names[1]
    assert page.PERMUTATION in bl1.PILOT_CHANGES and bl1.PILOT_CHANGES[page.PERMUTATION][0] == {
        "num_permutation_letters": bl1.grid("paper")[0].task.num_permutation_letters}  # the machine the preset took


def test_the_tracking_table_has_one_row_per_machine():
    part = bl1.exact_part("smoke")
    assert len(page.tracking(part)) == bl1.EXACT["smoke"][0][0]


def test_fsm_explorer_shows_the_one_hot_walked_state_and_the_additive_models_misses():
    """The pure model's state in the explorer's table is the one-hot code of the state a plain loop over the table
    visits from state 0, right at every step; the additive model's answers are its argmax against the same walk;
    the controls are the word and the model."""
    import torch

    from statetrack.claims.bl1.page import fsm_explorer, fsm_table
    from statetrack.tasks import make_task, task_config

    task = make_task(task_config("fsm", num_states=6, alphabet_size=3, num_permutation_letters=3, table_seed=2))
    states, answers = fsm_table(task, num_words=2, length=7)
    table = task.table.tolist()
    for word in dict.fromkeys(states["word"]):
        q, walked = 0, []
        for a in map(int, word.split()):
            q = table[q][a]
            walked.append(q)
        pure = states[(states["word"] == word) & (states["model"] == "pure")]
        grid = pure.pivot(index="t", columns="q", values="h").to_numpy()
        assert (grid == torch.eye(6)[walked].numpy()).all()
        rows = answers[answers["word"] == word]
        assert list(rows[rows["model"] == "pure"]["truth"]) == walked
        assert rows[rows["model"] == "pure"]["right"].all()
        add = rows[rows["model"] == "additive"]
        assert list(add["truth"]) == walked and list(add["right"]) == [a == w for a, w in zip(add["argmax"], walked)]
    assert [c["name"] for c in fsm_explorer((states, answers)).controls()] == ["word", "model"]
