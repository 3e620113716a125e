"""The bl5 page's readings (``statetrack.claims.bl5.page``): BL's numbers read from the CSV by hand, the smallest exact
blocks from representation theory, outcome words and the sweep's points on a hand-made set of runs."""

from __future__ import annotations

import csv
from types import SimpleNamespace

from statetrack.claims.bl5 import page as page
from statetrack.runs.store import repo_root


def _csv_value(name: str, model: str, task: str, setting: str) -> float:
    with open(repo_root() / "data" / "paper" / f"{name}.csv") as f:
        hits = [float(r["value"]) for r in csv.DictReader(f)
                if r["model"] == model and r["task"] == task and r["setting"] == setting]
    assert len(hits) == 1
    return hits[0]


def test_paper_numbers_are_the_csv_rows_the_prose_quotes():
    numbers = page.paper_numbers()
    assert set(numbers) == {f"paper_{k}" for k in page.PAPER_CELLS}
    assert numbers["paper_z5_2"] == _csv_value("bl_modular_addition", "Block-diag b=2", "modular_addition", "m=5")
    assert numbers["paper_z5_1"] == _csv_value("bl_modular_addition", "Block-diag b=1 (real diagonal)",
                                               "modular_addition", "m=5")
    assert numbers["paper_a50_64"] == _csv_value("bl_summary", "Block-diag b=64", "modular_arithmetic", "m=50")
    assert numbers["paper_m50_1"] == _csv_value("bl_summary", "Block-diag b=1 (real diagonal)", "fsm", "m=50")


def test_exact_numbers_count_the_checks_and_give_the_representation_dimensions():
    checks = [SimpleNamespace(passed=True), SimpleNamespace(passed=False), SimpleNamespace(passed=True)]
    numbers = page.exact_numbers(checks)
    # Z5: a rotation of the plane (dimension 2); S5: its standard representation (dimension 5 - 1)
    assert numbers == {"exact_held": 2, "exact_total": 3, "b_star_z5": 2, "b_star_s5": 4}


def test_outcome_words_name_every_statement():
    verdict = SimpleNamespace(statements=[SimpleNamespace(statement=SimpleNamespace(id=i), outcome=o)
                                          for i, o in (("a", "holds"), ("b", "fails"), ("c", "not run"))])
    assert page.outcome_words(verdict) == {"outcome_a": "holds", "outcome_b": "does not hold",
                                           "outcome_c": "is not judged"}


def _run(modulus_or_fsm: str, b: int, H: int, value: float, status: str = "ok") -> dict:
    task = ({"name": "modular_addition", "modulus": 5} if modulus_or_fsm == "Z5"
            else {"name": "fsm", "num_states": 5})
    return {"config": {"task": task, "model": {"block_size": b, "d_model": H}}, "status": status,
            "summary": {"ood_normalized": value}}


def test_sweep_has_one_point_per_run_and_the_papers_numbers_at_the_panels_block_sizes():
    runs = [_run("Z5", 1, 6, 0.0), _run("Z5", 2, 6, 0.5), _run("Z5", 6, 6, 1.0, status="diverged")]
    data = page.sweep(runs)
    assert data["tasks"] == ["Z5"]  # the S5 machine did not run
    assert [(p["b"], p["full"]) for p in data["points"]] == [(1, False), (2, False), (6, True)]
    assert data["points"][1]["score"] == 0.5 and data["points"][2]["score"] != data["points"][2]["score"]  # NaN
    assert data["thresholds"] == {"Z5": 2}
    numbers = page.paper_numbers()
    # BL's Z5 numbers at b = 1, 2 and the full model, drawn at b = H = 6
    assert sorted((p["b"], p["value"]) for p in data["paper"]) == sorted(
        [(1, numbers["paper_z5_1"]), (2, numbers["paper_z5_2"]), (6, numbers["paper_z5_full"])])


def test_sweep_leaves_out_a_papers_block_wider_than_the_model():
    data = page.sweep([_run("Z5", 1, 1, 0.0)])
    assert sorted(p["b"] for p in data["paper"]) == [1, 1]  # b = 1 and the full model at b = H = 1; b = 2 left out


def test_block_tracker_explorer_walks_the_machine_as_a_hand_loop_and_needs_b_4():
    """On bl5's 5-state machine the true answers are the states a plain loop over its table visits from state 0,
    the model (b ≥ 4) agrees with them, and b < 4 has no tracker."""
    from statetrack.display.block_tracker import EXAMPLES, MACHINE, block_table, task_of

    table = task_of(MACHINE).table.tolist()
    states, answers, notes = block_table([MACHINE])
    for name in EXAMPLES:
        word = [int(x) for x in notes[notes["word"] == name]["note"].iloc[0].split(":")[0].split()[1:]]
        q, walked = 0, []
        for x in word:
            q = table[q][x]
            walked.append(q)
        rows = answers[answers["word"] == name]
        assert list(rows[rows["answer"] == "true answer"]["value"]) == walked
        assert list(rows[rows["answer"] == "model"]["value"]) == walked
    assert all(("no exact tracker" in n) == (b < 4) for b, n in zip(notes["b"], notes["note"]))
    assert set(states["coordinate"]) == {"h[0]", "h[1]", "h[2]", "h[3]"}
