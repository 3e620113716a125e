"""The bl8 page's readings (``statetrack.claims.bl8.page``): unit types and signs on a hand-set draw, the sweep's table
and numbers on hand-made rows, the binomial interval against a sum of binomial terms, and the paper-preset runs on
hand-made records."""

from __future__ import annotations

import math

import pytest
import torch

from statetrack.claims.bl8 import page as page
from statetrack.claims.bl8 import claim as bl8
from statetrack.theory.frozen_diagonal import SweepRow


def _draw() -> torch.Tensor:
    """One draw of H = 3 by hand: unit 0 type A (+, −), unit 1 type B (−, +), unit 2 equal signs (−, −)."""
    return torch.tensor([[[2.0, -0.5, -1.0], [-3.0, 0.25, -2.0]]], dtype=torch.float64)  # (1, 2, H)


def test_unit_kinds_read_the_two_signs_of_each_unit():
    assert page.unit_kinds(_draw()) == ["A", "B", "-"]


def test_the_sign_trace_flips_a_with_every_one_and_b_with_every_zero():
    word = torch.tensor([[1, 0, 0, 1]])  # (1, T)
    trace = page.sign_trace(_draw(), word)
    rows = trace.pivot(index="row", columns="t", values="value")
    assert list(rows.loc["unit 0 (A)"]) == [-1, -1, -1, 1]  # (−1)^(ones so far)
    assert list(rows.loc["unit 1 (B)"]) == [1, -1, 1, 1]  # (−1)^(zeros so far)
    assert list(rows.loc["unit 2 (-)"]) == [-1, 1, -1, 1]  # (−1)^t
    assert list(rows.loc["bit (red = 1)"]) == [-1, 1, 1, -1]
    assert list(rows.loc["parity (red = odd)"]) == [-1, -1, -1, 1]


def _row(H: int, rate: float, predicted: float | None, interval=None, agreement=None) -> SweepRow:
    return SweepRow(H, ("00", "01"), 500, "sign", bl8.DRAWS["quick"], rate, predicted, interval, agreement, rate)


def test_the_sweep_table_and_its_numbers_on_hand_made_rows():
    hs = bl8.HS["quick"]
    n = bl8.DRAWS["quick"]
    part = {"main": [_row(h, 1 - 2.0 ** -h, 1 - 2.0 ** -h, (40, 60), 1.0) for h in hs],
            "even test": [_row(h, 0.3, 0.35, None, 0.99) for h in hs],
            "normalized": [_row(h, 0.4 + 0.01 * i, None) for i, h in enumerate(hs)]}
    sweep = page.sweep_frame(part, "quick")
    assert len(sweep) == 3 * len(hs) and set(sweep.setting) == {page.LABELS[k] for k in part}
    main = sweep[sweep.setting == page.LABELS["main"]]
    assert list(main["lo"]) == [40 / n] * len(hs) and list(main["hi"]) == [60 / n] * len(hs)
    assert sweep[sweep.setting == page.LABELS["normalized"]]["lo"].isna().all()
    numbers = page.sweep_numbers(sweep, "quick")
    assert numbers["n_draws_total"] == 3 * len(hs) * n
    assert (numbers["h_small"], numbers["h_large"]) == (hs[0], hs[-1])
    assert numbers["main_small"] == 0.5 and numbers["main_large"] == 1 - 2.0 ** -hs[-1]
    assert (numbers["trap_large"], numbers["trap_pred_large"]) == (0.3, 0.35)
    assert numbers["norm_best"] == pytest.approx(0.4 + 0.01 * (len(hs) - 1)) and numbers["agreement"] == 0.99


def test_the_interval_at_h8_holds_the_central_mass_of_the_binomial():
    numbers = page.rate_numbers(8, "quick")
    n, p, lo, hi = numbers["quick_draws"], numbers["stated_h8"], numbers["h8_lo"], numbers["h8_hi"]
    assert p == 1 - 1 / 256 and n == bl8.DRAWS["quick"]

    def pmf(k):
        return math.comb(n, k) * p ** k * (1 - p) ** (n - k)

    tail = (1 - numbers["level"]) / 2
    assert sum(pmf(k) for k in range(lo)) <= tail and sum(pmf(k) for k in range(hi + 1, n + 1)) <= tail
    assert sum(pmf(k) for k in range(lo + 1)) > tail or lo == 0  # the interval is no wider than it must be


def test_the_settings_table_has_one_row_per_setting():
    table = page.settings("quick")
    assert list(table["setting"]) == list(bl8.SETTINGS)
    assert list(table["test length"]) == [bl8.TEST_LEN["quick"] + offset for _, offset, _ in bl8.SETTINGS.values()]


def test_run_scores_count_the_words_seen():
    r = {"config": {"train": {"num_steps": 300, "batch_size": 128}},
         "summary": {"ood_normalized": 1.0, "id_normalized": 1.0}}
    assert page.run_scores(r)["words seen"] == 38_400


def test_frozen_table_signs_are_products_of_weight_signs_and_even_words_are_read_right():
    """Each unit's sign(h_T) is the product of sign(w_bit) over the word's bits, by hand; on an even-length word a
    draw with an informative unit (A or B) reads the parity right (the proof's matched case); the controls are H,
    the draw and the word."""
    from statetrack.theory.frozen_diagonal import draw_weights

    words = page.example_words()
    assert words[0] == "0 1 1 0 1 1" and [len(w.split()) for w in words[1:]] == list(page.WORD_LENGTHS)
    assert all(set(w.split()) <= {"0", "1"} for w in words) and words == page.example_words()
    units, answers = page.frozen_table(hs=(3,), seeds=(0, 1), words=words[:4])
    for seed in (0, 1):
        w = draw_weights(1, 3, seed=seed)[0]  # (2, H)
        for word in words[:4]:
            bits = [int(b) for b in word.split()]
            rows = units[(units["seed"] == seed) & (units["word"] == word)].sort_values("unit")
            for i in range(3):
                sign = math.prod(1 if w[b, i] > 0 else -1 for b in bits)
                assert rows["sign"].iloc[i] == sign
                assert rows["w0"].iloc[i] == pytest.approx(float(w[0, i]), abs=1e-3)
            answer = answers[(answers["seed"] == seed) & (answers["word"] == word)].iloc[0]
            assert answer["parity"] == ("odd" if sum(bits) % 2 else "even")
            if len(bits) % 2 == 0 and set(rows["kind"]) & {"A", "B"}:
                assert answer["answer"] == answer["parity"]
    explorer = page.frozen_explorer((units, answers), H=3)
    assert [c["name"] for c in explorer.controls()] == ["H", "draw", "word"]


def test_the_explorers_exercise_counts_blind_draws_and_wrong_answers_by_length_parity():
    import pandas as pd

    from statetrack.claims.bl8 import page as frozen_page

    units = pd.DataFrame([{"H": 1, "seed": s, "unit": 0, "kind": k, "word": "0 1"} for s, k in enumerate("A-B-")])
    answers = pd.DataFrame([{"H": 8, "seed": 0, "word": w, "length": n, "answer": a, "parity": p}
                            for w, n, a, p in (("0 1 1", 3, "odd", "even"), ("1 1 1", 3, "odd", "odd"),
                                               ("0 1", 2, "odd", "odd"), ("1 1", 2, "even", "even"))])
    assert frozen_page.frozen_values((units, answers)) == {
        "blind_draws": 2, "draws": 4, "explored_H": 8, "odd_wrong": 1, "odd_pairs": 2, "even_wrong": 0, "even_pairs": 2}
