"""ne3's page readings (``claims.ne3.page``) and figures, against hand-made frames, closed forms and brute force."""

from __future__ import annotations

import math
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from statetrack.claims.ne3 import page as gh
from statetrack.claims.ne3 import claim as ne3
from statetrack.claims.ne3.page import construction_drift, swap_lengths  # noqa: E402
from statetrack.theory import gh_checks  # noqa: E402


def test_one_gh_factor_has_eigenvalues_one_one_and_one_minus_beta():
    eig = gh.eigenvalues(20)
    assert len(eig) == len(gh.BETAS) * len(gh.FACTORS) * 20 * gh.DIM
    one = eig[eig["k"] == 1]
    assert (one["im"].abs() < 1e-9).all()  # a symmetric matrix
    near_one = (one["re"] - 1).abs() < 1e-9
    assert near_one.groupby([one["beta"], one["sample"]]).sum().ge(gh.DIM - 1).all()  # 1 on the plane ⟂ v
    pos = one[one["beta"] == gh.BETAS[1.0]]
    assert pos["re"].between(-1e-9, 1 + 1e-9).all()  # 1 − β with β ∈ [0, 1]


def _eig(rows):
    return pd.DataFrame([{"k": k, "beta": b, "sample": s, "re": 0.0, "im": im} for k, b, s, im in rows])


def test_nonreal_share_counts_products_not_eigenvalues():
    lo, hi = gh.BETAS[1.0], gh.BETAS[2.0]
    eig = _eig([(3, lo, 0, 0.5), (3, lo, 0, -0.5), (3, lo, 1, 0.0), (3, lo, 2, 0.0), (3, lo, 3, 0.0),
                (2, hi, 0, 0.3), (2, hi, 0, -0.3), (2, hi, 1, 0.0), (2, lo, 0, 0.0), (3, hi, 0, 0.0)])
    share = gh.nonreal_share(eig)
    assert share.loc[lo, 3] == 0.25 and share.loc[hi, 2] == 0.5 and share.loc[lo, 2] == 0
    assert gh.share_values(share) == {"share_rot_k2": 0.5, "share_pos_k3": 0.25}
    table = gh.share_table(share)
    assert list(table.columns) == ["k = 2", "k = 3"] and table.index.name == "β range"
    assert table.loc[hi, "k = 2"] == "50.0%"


def test_swap_line_reads_the_counts():
    sw = {"matches": 10, "swaps": 10, "products_exact": 119, "elements": 120, "max_reflections": 4}
    assert gh.swap_line(sw) == ("10/10 transpositions equal their reflection; 119/120 elements rebuilt from at most "
                                "4 reflections")


def test_factor_table_has_a_row_per_size():
    fc = SimpleNamespace(orthogonal_factors={2: 2, 3: 3}, contraction_factors={2: 5, 3: 9},
                         permutation_reflections={2: 1, 3: 2}, max_error_by_size={2: 1.234e-16, 3: 5e-15})
    table = gh.factor_table(fc)
    assert list(table.index) == [2, 3] and table.loc[3, "contraction: factors (bound 3n)"] == 9
    assert table.loc[2, "largest |∏ factors − M|"] == "1.2e-16"


def test_track_values_and_table():
    track = SimpleNamespace(num_seqs=1000, length=10_000, acc=1.0, seq_acc=0.5, max_state_error=2.5e-6)
    assert gh.track_values(track) == {"track_seqs": "1,000", "track_len": "10,000", "track_acc": 1.0,
                                      "track_err": "2.5e-06"}
    assert gh.track_table(track).iloc[0].to_dict()["sequence accuracy"] == 0.5


def test_adder_values_read_fp32_only_for_the_error():
    table = pd.DataFrame([{"m": 2, "dtype": "float32", "steps": 2000, "accuracy": 1.0,
                           "largest distance from the exact point": 3e-5},
                          {"m": 3, "dtype": "float32", "steps": 2000, "accuracy": 0.99,
                           "largest distance from the exact point": 1e-5},
                          {"m": 2, "dtype": "float64", "steps": 2000, "accuracy": 1.0,
                           "largest distance from the exact point": 0.1}])
    assert gh.adder_values(table) == {"adder_len": "2,000", "adder_min_acc": 0.99, "adder_err32": "3.0e-05"}


def test_adders_add_mod_m_exactly_on_short_words():
    runs = gh.adders(4, 30)
    table = gh.adder_table(runs)
    assert len(table) == 2 * len(runs[torch.float32]) and (table["accuracy"] == 1.0).all()
    assert set(table["dtype"]) == {"float32", "float64"}


def test_eigenvalue_list_of_a_rotation_by_a_third_of_a_turn():
    t = 2 * math.pi / 3
    R = torch.tensor([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    assert sorted(gh.eigenvalue_list(R), key=lambda z: z.imag) == [complex(-0.5, -0.866), complex(-0.5, 0.866)]


def test_cascades_track_both_automata_in_both_dtypes():
    table = gh.cascade_table(5, 20)
    assert len(table) == 2 * len(gh_checks.AUTOMATA)
    assert (table["accuracy"] == 1.0).all()
    values = gh.cascade_values(table, 5, 20)
    assert values == {"cascade_words": "5", "cascade_length": "20", "cascade_min_acc": 1.0,
                      "reset_zero": "exactly 0"}


def _record(eig, status="ok", seq=0.5, max_len=128):
    return {"status": status, "config": {"model": {"eig_range": eig}, "eval": {"max_len": max_len}},
            "summary": {"seq_acc_at_max_len": seq, "ood_normalized": 0.7, "id_normalized": 0.9}}


def test_run_values_take_the_weakest_finished_neg_run():
    records = [_record("[-1,1]", seq=0.8), _record("[-1,1]", seq=0.6), _record("[0,1]", seq=0.1),
               _record("[-1,1]", status="diverged", seq=0.0)]
    grid = [SimpleNamespace(eval=SimpleNamespace(max_len=128))]
    assert gh.run_values(records, grid) == {"seq_acc_neg": 0.6, "test_max": 128}
    assert math.isnan(gh.run_values(records[2:3], grid)["seq_acc_neg"])
    assert gh.run_scores(_record("[0,1]", seq=0.25)) == {"test (normalized)": 0.7, "sequence acc. @128": 0.25,
                                                         "in-dist (normalized)": 0.9}
    assert gh.run_cell(_record("[0,1]")) == {"model": ne3.NAMES["[0,1]"]}


def test_check_values_count_the_holding_checks():
    checks = [SimpleNamespace(passed=p) for p in (True, True, False)]
    assert gh.check_values(checks) == {"checks_ok": 2, "checks_total": 3}


def test_sign_bound_tops_the_central_interval_of_a_fair_coin():
    v = gh.rule_values()
    n, count = v["sign_n"], v["sign_count"]
    assert v["sign_bound"] == pytest.approx(count / n) and v["sign_n_text"] == f"{n:,}"
    # brute force: the upper tail of Binomial(n, 1/2) beyond the count holds at most (1 − level)/2
    tail = sum(math.comb(n, j) for j in range(count + 1, n + 1)) / 2 ** n
    wider = sum(math.comb(n, j) for j in range(count, n + 1)) / 2 ** n
    assert tail <= (1 - v["level"]) / 2 < wider


def _frame():
    return pd.DataFrame([{"key": f"{e}{s}", "model": "deltanet", "family": "deltanet", "eig_range": e, "seed": s, "length": n,
                          "normalized": 0.5} for e in ne3.EIG_RANGES for s in (0, 1) for n in (33, 64, 128)])


def test_swap_lengths_draws_one_panel_and_a_line_per_run():
    fig = swap_lengths(_frame(), ne3.grid("smoke")[0], "smoke")
    assert len(fig.axes) == 1
    runs = [line for line in fig.axes[0].get_lines() if len(line.get_xdata()) == 3]
    assert len(runs) == len(ne3.EIG_RANGES) * 2
    assert "smoke" in fig.texts[0].get_text()


def test_construction_drift_draws_the_tracker_and_one_adder_per_dtype():
    track = SimpleNamespace(error_by_step=torch.full((5,), 1e-7))
    adders = {dt: [SimpleNamespace(m=m, dtype=str(dt).removeprefix("torch."), error_by_step=torch.full((5,), 1e-8))
                   for m in (3, 10)] for dt in (torch.float32, torch.float64)}
    fig = construction_drift(track, adders, m=10)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels[0].startswith("Thm 3 swaps") and len(labels) == 3
    assert labels[1:] == ["Thm 6 mod 10, float32 (margin sin(π/10))", "Thm 6 mod 10, float64 (margin sin(π/10))"]


def test_swap_explorer_tracks_the_product_of_each_word():
    """The table's true product against permutations composed by hand (a swap applied after the product so far);
    the hand-set network answers each one; the control names the word."""
    table = gh.swap_table(["01 12 01 34", "- 24"])

    def by_hand(word):
        p, out = list(range(5)), []
        for key in word.split():
            if key != "-":
                i, j = int(key[0]), int(key[1])
                p = [j if v == i else i if v == j else v for v in p]
            out.append("".join(map(str, p)))
        return out

    for word in ("01 12 01 34", "- 24"):
        rows = table[table["word"] == word]
        truth = rows.loc[rows["quantity"] == "true product", "value"].tolist()
        assert truth == by_hand(word)
        assert rows.loc[rows["quantity"] == "network's answer", "value"].tolist() == truth
    explorer = gh.swap_explorer()
    assert [c["name"] for c in explorer.controls()] == ["word"]
    assert explorer.controls()[0]["bind"]["options"] == [*gh.HAND_WORDS, *gh.random_words()]


def test_gh_pair_table_solves_the_pairs_characteristic_polynomial():
    """β₁ = 2, φ = 60°: trace −β₂/2 and determinant β₂ − 1 (the exercise's solution), so the eigenvalues are real
    exactly when β₂ ≤ 8 − 4√3; the grid holds φ = 60° and β₂ from 2 down to 0; controls β₁, β₂, φ."""
    import cmath

    table = gh.gh_pair_table()
    assert 60 in set(table["phi"]) and {0.0, 1.0, 1.1, 2.0} <= set(table["b2"])
    for b2 in (0.0, 0.5, 1.0, 1.1, 1.5, 2.0):
        row = table[(table["b1"] == 2.0) & (table["b2"] == b2) & (table["phi"] == 60)].iloc[0]
        tr, det = -b2 / 2, b2 - 1
        roots = sorted([(tr + s * cmath.sqrt(tr * tr - 4 * det)) / 2 for s in (1, -1)], key=lambda z: -z.imag)
        got = [complex(row["re1"], row["im1"]), complex(row["re2"], row["im2"])]
        assert sorted(got, key=lambda z: (-z.imag, z.real)) == pytest.approx(
            sorted(roots, key=lambda z: (-z.imag, z.real)), abs=1e-3)
        assert (abs(row["im1"]) < 1e-9) == (b2 <= 8 - 4 * math.sqrt(3))
    explorer = gh.gh_pair_explorer(table)
    assert [c["name"] for c in explorer.controls()] == ["b1", "b2", "phi"]
