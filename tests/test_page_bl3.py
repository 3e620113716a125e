"""bl3's page readings (``statetrack.claims.bl3.page``) against a brute-force window ceiling, hand-built rows and BL's
numbers read straight from data/paper/; its figures (``machine_windows``, ``machine_scores``)."""

import csv
import itertools

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from helpers import fake_record  # noqa: E402

from statetrack.claims.bl3 import page as analysis
from statetrack.claims.bl3 import claim as bl3
from statetrack.claims.bl3.page import machine_scores, machine_windows  # noqa: E402
from statetrack.runs.provenance import repo_root  # noqa: E402
from statetrack.tasks import make_task, task_config  # noqa: E402


def _brute_ceiling(table: np.ndarray, w: int, length: int) -> float:
    """E_u[max_q P(q | u)] over every word u of w letters, the state before u that of length − w uniform letters
    from state 0: the Markov chain stepped by hand, every window walked."""
    m, k = table.shape
    prior = np.zeros(m)
    prior[0] = 1.0
    for _ in range(length - w):
        nxt = np.zeros(m)
        for q in range(m):
            for a in range(k):
                nxt[table[q, a]] += prior[q] / k
        prior = nxt
    total = 0.0
    for u in itertools.product(range(k), repeat=w):
        post = np.zeros(m)
        for q0 in range(m):
            q = q0
            for a in u:
                q = table[q, a]
            post[q] += prior[q0]
        total += post.max()
    return total / k ** w


def test_window_table_matches_a_brute_force_ceiling():
    states, windows = 3, (1, 2, 3)
    frame = analysis.window_table(states, windows=windows, num_words=4096)
    assert list(frame["machine"].unique()) == list(analysis.MACHINES)
    for name, perms in analysis.MACHINES.items():
        table = make_task(task_config("fsm", num_states=states, alphabet_size=bl3.ALPHABET,
                                      num_permutation_letters=perms, table_seed=0)).table.numpy()
        for w in windows:
            brute = (_brute_ceiling(table, w, bl3.SYNC_LENGTH) - 1 / states) / (1 - 1 / states)
            ours = frame[(frame["machine"] == name) & (frame["window"] == w)]["value"].item()
            assert ours == pytest.approx(brute, abs=0.05), (name, w)  # 4,096 sampled windows


def test_sync_values_read_the_largest_uniform_machine():
    rows = [{"states": 25, "sampling": "permutation", "window ceiling (normalized)": 0.0, "synchronising": 0.0},
            {"states": 25, "sampling": "uniform", "window ceiling (normalized)": 0.7, "synchronising": 0.4}]
    v = analysis.sync_values(rows, "quick")
    assert (v["states"], v["uniform_ceiling"], v["uniform_sync"]) == (25, 0.7, 0.4)


def test_values_quote_bl_and_its_rules():
    with open(repo_root() / "data" / "paper" / "bl_fsm.csv") as f:
        lstm_25 = next(float(r["value"]) for r in csv.DictReader(f) if r["model"] == "LSTM" and r["setting"] == "m=25")
    v = analysis.values(bl3.CLAIM.verdict([], "quick", checks=[]))
    assert v["bl_lstm_25"] == lstm_25 and v["rule_lstm_25"] == f"≤ {lstm_25 + 0.1:g}"  # BL fails: at most + 0.1
    assert v["failing"] == "none"  # nothing judged, nothing fails


def test_shared_runs_are_bl1s_runs_of_the_shared_cell_at_quick_only():
    assert analysis.shared_runs("smoke") == []
    assert all(bl3.cell_of(r) == analysis.SHARED for r in analysis.shared_runs("quick"))


def test_figures_draw_three_machines_and_one_panel_per_sampling(monkeypatch):
    monkeypatch.setattr(bl3, "STATES", {**bl3.STATES, "smoke": (3,)})
    fig = machine_windows("smoke")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == list(analysis.MACHINES)
    records = [fake_record(c, 0.5) for c in bl3.grid("quick")]
    fig = machine_scores(bl3.CLAIM.verdict(records, "quick", checks=[]), records, "quick")
    assert [ax.get_title() for ax in fig.axes] == ["uniform table", "all letters permutations"]
    assert sum(len(c.get_offsets()) for ax in fig.axes for c in ax.collections if len(c.get_offsets()) > 1) \
        == len(records)


def test_machine_table_follows_every_start_state_by_hand():
    """The explorer's step points against the set of states reached from every start state, stepped letter by letter
    on the same seeded word; its controls are the number of states and the word."""
    import torch

    frame = analysis.machine_table(states=(5,), seeds=(3,), length=30)
    word = torch.randint(0, bl3.ALPHABET, (1, 30), generator=torch.Generator().manual_seed(3))[0].tolist()
    for name, perms in analysis.MACHINES.items():
        table = make_task(task_config("fsm", num_states=5, alphabet_size=bl3.ALPHABET, num_permutation_letters=perms,
                                      table_seed=0)).table.numpy()
        reached, sizes = set(range(5)), []
        for a in word:
            reached = {int(table[q, a]) for q in reached}
            sizes.append(len(reached))
        steps = frame[frame["machine"] == name].sort_values("t")
        curve = [steps[steps["t"] <= t]["size"].iloc[-1] for t in range(1, 31)]  # the step line through the rows
        assert curve == sizes, name
        assert steps["t"].iloc[-1] == 30
    assert frame[frame["machine"] == "all 4 letters permutations"]["size"].eq(5).all()  # a bijection forgets nothing
    explorer = analysis.machine_explorer(frame, states=5)
    assert [c["name"] for c in explorer.controls()] == ["states", "seed"]


def test_the_machine_explorers_exercise_reads_when_each_machine_forgets_its_start():
    import pandas as pd

    from statetrack.claims.bl3 import page as bl3_page

    rows = [(25, 0, "uniform table", 1, 20), (25, 0, "uniform table", 12, 1), (25, 0, "uniform table", 60, 1),
            (25, 1, "uniform table", 1, 22), (25, 1, "uniform table", 30, 1), (25, 1, "uniform table", 60, 1),
            (25, 2, "uniform table", 1, 21), (25, 2, "uniform table", 60, 3),
            (25, 0, "all 4 letters permutations", 1, 25), (25, 0, "all 4 letters permutations", 60, 25),
            (5, 0, "uniform table", 1, 4)]
    table = pd.DataFrame(rows, columns=["states", "seed", "machine", "t", "size"])
    assert bl3_page.machine_values(table, 25) == {"words": 3, "uniform_synced": 2, "uniform_first": 12,
                                                  "uniform_last": 30, "uniform_left": 3, "perm_least": 25,
                                                  "explored_states": 25}
