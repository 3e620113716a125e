"""What the bl8 page reads of its frozen-network sweep, its trained contrast and the proof's rate: the settings of
the exact part, the signs of one draw along a word, the sweep as one table and the numbers the captions name, the
binomial interval at H = 8 and the run table's scores (its paper-preset runs: ``analysis.paper_runs``).

Used in: notebooks/bl8_frozen_random_diagonal_parity.md, ``figures.frozen_diagonal.frozen_explorer``,
tests/test_page_bl8.py.
"""

from __future__ import annotations

import inspect
from typing import Any

import pandas as pd
import torch

from statetrack.claims import bl8
from statetrack.site.page import normalized_scores
from statetrack.theory import frozen_diagonal as fd

#: each setting of ``bl8.SETTINGS`` as the sweep table and its figure name it.
LABELS = {"main": "'00','01' -> even T", "odd test": "'0','1' -> odd T", "even test": "'0','1' -> even T (trap)",
          "normalized": "h/|h| features (trap)"}


def settings(preset: str) -> pd.DataFrame:
    """One row per setting of the exact part: its training words, test length, features, the H swept, draws per H
    and test words."""
    return pd.DataFrame([{"setting": name, "train words": " ".join(f"'{w}'" for w in words),
                          "test length": bl8.TEST_LEN[preset] + offset, "features": feature,
                          "H": ", ".join(map(str, bl8.HS[preset])), "draws per H": bl8.DRAWS[preset],
                          "test words": bl8.TEST_WORDS[preset]}
                         for name, (words, offset, feature) in bl8.SETTINGS.items()])


def unit_kinds(w: torch.Tensor) -> list[str]:
    """The type of every unit of one draw w (1, 2, H): "A" (w_0 > 0 > w_1, flips with every 1), "B"
    (w_0 < 0 < w_1, flips with every 0) or "-" (equal signs)."""
    return ["A" if a > 0 > b else "B" if a < 0 < b else "-" for a, b in zip(w[0, 0], w[0, 1])]


def sign_trace(w: torch.Tensor, word: torch.Tensor) -> pd.DataFrame:
    """sign(h_t) of every unit of one draw w (1, 2, H) along one word (1, T), under the word's bits (+1 for 0, −1
    for 1) and its running parity (+1 even, −1 odd): columns t, row (a label), value."""
    kinds, rows = unit_kinds(w), []
    for t in range(1, word.shape[1] + 1):
        sign, _ = fd.log_state(w, word[:, :t])  # (1, 1, H)
        rows += [{"t": t, "row": f"unit {i} ({k})", "value": float(sign[0, 0, i])} for i, k in enumerate(kinds)]
        rows += [{"t": t, "row": "bit (red = 1)", "value": 1.0 - 2.0 * float(word[0, t - 1])},
                 {"t": t, "row": "parity (red = odd)", "value": 1.0 - 2.0 * float(word[0, :t].sum() % 2)}]
    return pd.DataFrame(rows)


def sweep_frame(part: dict[str, list], preset: str) -> pd.DataFrame:
    """The sweep as one table: a row per setting (``LABELS``) and H with ``SweepRow.row``'s columns, and the
    99.9% interval as rates (lo, hi; None where the proof gives no rate)."""
    n = bl8.DRAWS[preset]
    return pd.DataFrame([{"setting": LABELS[name], **r.row(), "lo": r.interval[0] / n if r.interval else None,
                          "hi": r.interval[1] / n if r.interval else None}
                         for name, rows in part.items() for r in rows])


def sweep_numbers(sweep: pd.DataFrame, preset: str) -> dict[str, Any]:
    """What the captions read of the sweep: the draws in all, the smallest and largest H, the main setting's rate
    at both, the length trap's rate and prediction at the largest H, the best normalized-feature rate, and the
    lowest per-draw agreement with the proof."""
    hs = bl8.HS[preset]
    main = sweep[sweep.setting == LABELS["main"]].set_index("H")
    trap = sweep[sweep.setting == LABELS["even test"]].set_index("H")
    return {"n_draws_total": int(len(sweep) * bl8.DRAWS[preset]), "h_small": hs[0], "h_large": hs[-1],
            "main_small": float(main.loc[hs[0], "success"]), "main_large": float(main.loc[hs[-1], "success"]),
            "trap_large": float(trap.loc[hs[-1], "success"]), "trap_pred_large": float(trap.loc[hs[-1], "predicted"]),
            "norm_best": float(sweep[sweep.setting == LABELS["normalized"]]["success"].max()),
            "agreement": float(sweep["agreement"].dropna().min())}


def rate_numbers(H: int = 8, preset: str = "quick") -> dict[str, Any]:
    """The stated rate 1 − 2^−H at ``H`` (``stated_h8``), the sweep's interval level, and the central interval of
    success counts over the preset's draws at that rate (``h8_lo``, ``h8_hi``, ``quick_draws``)."""
    level = inspect.signature(fd.binomial_interval).parameters["level"].default  # the sweep's interval level
    draws, rate = bl8.DRAWS[preset], 1 - 2.0 ** -H
    lo, hi = fd.binomial_interval(draws, rate)
    return {"stated_h8": rate, "level": level, "quick_draws": draws, "h8_lo": lo, "h8_hi": hi}


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A trained run's normalized scores and how many words it saw in training (steps × batch)."""
    train = r["config"]["train"]
    return {**normalized_scores(r), "words seen": train["num_steps"] * train["batch_size"]}


__all__ = ["LABELS", "rate_numbers", "run_scores", "settings", "sign_trace", "sweep_frame", "sweep_numbers", "unit_kinds"]
