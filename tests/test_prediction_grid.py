"""x1's predicted-against-observed grid: its predictions are the theorems' (a few cells by hand), its count-only
bounds are x1's statements', and a cell's agreement follows the prediction and the best seed's score."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from statetrack.claims.x1 import page as analysis
from statetrack.claims.x1 import claim as x1
from statetrack.claims.x1.page import prediction_cells, prediction_grid  # noqa: E402


@pytest.fixture(scope="module")
def board():
    """The board at quick with no records: every cell "not run", the theory's prediction in each."""
    return analysis.board(x1.CLAIM.verdict([], "quick", checks=[]), [])


def _observed(board, scores):
    """The board with the cells of ``scores`` run: (row, column) → the best seed's score."""
    b = board.copy()
    for (row, col), best in scores.items():
        at = (b["row"] == row) & (b["column"] == col)
        b.loc[at, "pass"], b.loc[at, "max"] = "–", best
    return b


@pytest.mark.parametrize("cell,predicted", [
    (("mamba_neg", "parity"), "can"),  # NE Thm 1: an eigenvalue −1 flips a sign per one
    (("mamba_pos", "parity"), "cannot"),  # NE Thm 1: eigenvalues in [0, 1]
    (("deltanet_neg", "Z3"), "cannot"),  # NE Thm 2: one reflection per token has a real spectrum
    (("deltanet_neg", "S5_swaps"), "can"),  # NE Thm 3: a swap is one reflection
    (("full", "fsm_perm"), "can"),  # BL Prop 1
    (("lstm", "S3"), "open"),  # neither paper's theorems speak of a non-linear recurrence
])
def test_predictions_by_hand(board, cell, predicted):
    cells = prediction_cells(board, x1.statements(), x1.SOLVED)
    assert cells[cell] == (predicted, "not run", None)


def test_count_only_cells_show_x1s_bound(board):
    cells = prediction_cells(board, x1.statements(), x1.SOLVED)
    bounded = [s for s in x1.statements() if s.kind == "theorem forbids"]
    assert bounded, "x1 bounds the commuting bilinear rows by their letter counts"
    for s in bounded:
        key = (s.where["model"], s.where["task"])
        assert key[0] in ("diagonal", "rotation")  # BL Prop 2: commuting transitions, no input term
        assert cells[key][0] == f"bound {s.rule.threshold:.2f}"


def test_agreement(board):
    bound = next(s for s in x1.statements() if s.kind == "theorem forbids")
    over = (bound.where["model"], bound.where["task"])
    scores = {("mamba_neg", "parity"): 1.0, ("full", "fsm_perm"): 0.3, ("mamba_pos", "parity"): 0.02,
              ("deltanet_pos", "parity"): 0.99, ("lstm", "S3"): 0.5, over: bound.rule.threshold + 0.01}
    cells = prediction_cells(_observed(board, scores), x1.statements(), x1.SOLVED)
    assert cells[("mamba_neg", "parity")][1:] == ("holds", 1.0)
    assert cells[("full", "fsm_perm")][1] == "fails"  # can, but no seed solved it
    assert cells[("mamba_pos", "parity")][1] == "holds"
    assert cells[("deltanet_pos", "parity")][1] == "fails"  # cannot, yet a seed solved it
    assert cells[("lstm", "S3")][1:] == ("no prediction", 0.5)
    assert cells[over][1] == "fails"  # above the count-only bound
    assert cells[("mamba_neg", "Z3")][1] == "not run"


def test_the_grid_draws(board):
    fig = prediction_grid(_observed(board, {("mamba_neg", "parity"): 1.0}), x1.statements(), x1.SOLVED, x1.ROWS,
                          x1.TASKS, x1.NAMES, x1.TASK_NAMES, "quick")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == len(x1.ROWS) * len(x1.TASKS)
    assert "can\nholds 1.00" in texts
    plt.close(fig)
