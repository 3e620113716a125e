"""bl4's page readings (``statetrack.claims.bl4.page``) against a word evaluated by hand and BL's numbers read straight
from data/paper/; its figures (``arithmetic_states``, ``arithmetic_scores``) from tiny inputs."""

import csv

import matplotlib

matplotlib.use("Agg")

from helpers import fake_record  # noqa: E402

from statetrack.claims.bl4 import page as analysis
from statetrack.claims.bl4 import claim as bl4
from statetrack.verdicts.statements import PAPER_TOLERANCE  # noqa: E402
from statetrack.claims.bl4.page import arithmetic_scores, arithmetic_states  # noqa: E402
from statetrack.runs.provenance import repo_root  # noqa: E402


def test_tokens_of_maps_digits_and_operators_to_the_task_ids():
    assert analysis.tokens_of("2 − 3 × 4 + 1", 5).tolist() == [[2, 6, 3, 7, 4, 5, 1]]


def test_walk_answers_the_papers_example_as_worked_by_hand():
    # 2 − 3 − 3 × 2 mod 5, × first: 2; 2 − 3 = −1 ≡ 4; 4 − 3 = 1; 2 − 3 − 6 = −7 ≡ 3
    table = analysis.walk(5, "2 − 3 − 3 × 2")
    assert table.loc["token"].tolist() == ["2", "−", "3", "−", "3", "×", "2"]
    assert table.loc["answer a + c"].tolist() == [2, "", 4, "", 1, "", 3]
    assert table.loc["task's label"].tolist() == [2, "", 4, "", 1, "", 3]
    assert table.loc["(a, c)"].tolist()[-1] == (4, 4)  # a = 2 − 3 = −1 ≡ 4, c = −3 · 2 = −6 ≡ 4


def test_paper_values_are_the_csv_numbers_with_the_tolerance():
    with open(repo_root() / "data" / "paper" / "bl_summary.csv") as f:
        full = [float(r["value"]) for r in csv.DictReader(f)
                if r["task"] == "modular_arithmetic" and r["model"] == "Bilinear (full)" and r["setting"] == "m=50"]
    v = analysis.paper_values()
    assert v["paper_full_50"] == full[0]
    assert v["paper_full_50_minus"] == full[0] - PAPER_TOLERANCE and v["paper_full_50_plus"] == full[0] + 0.1
    assert {k for k in v if k.endswith("_50")} == {f"paper_{m}_50" for m in bl4.MODELS}


def test_state_counts_are_the_squares_of_the_moduli():
    assert analysis.state_counts("quick") == {"m_quick": 5, "states_quick": 25, "states_paper": 2500}


def test_figures_draw_the_widths_and_one_panel_per_modulus():
    fig = arithmetic_states("quick")
    assert len(fig.axes[0].lines) == 1 + 3  # m² and three widths
    records = [fake_record(c, 0.9) for c in bl4.grid("quick")]
    verdict = bl4.CLAIM.verdict(records, "quick", checks=[])
    fig = arithmetic_scores(verdict, records, "quick")
    assert [ax.get_title() for ax in fig.axes] == ["m = 5", "m = 50"]
    assert sum(len(c.get_offsets()) for c in fig.axes[0].collections) == len(records)  # one dot per run
    not_run = [t for t in fig.axes[1].texts if t.get_text().startswith("not run")]
    assert len(not_run) == len(bl4.MODELS)  # m = 50 runs at the paper preset only
