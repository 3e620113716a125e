"""What ne3's page computes beside its verdict: the sampled GH products' spectra, the exact constructions' tables,
the trained runs' scores, and the numbers its prose reads.

- ``eigenvalues``, ``nonreal_share``, ``share_table``, ``share_values``: every eigenvalue of random products of
  k = 1, 2, 3 GH factors per β range, and the share of products with a non-real one.
- ``swap_line``: Prop 1.2's swap check (``theory.gh_checks.swap_check``) in one line.
- ``factor_table``: Prop 1.2's factorizations (``theory.gh_factorization.check_factorizations``), one row per size.
- ``track_table``, ``track_values``: Thm 3's hand-set swap tracker (``theory.householder.track_swaps``).
- ``adders``, ``adder_table``, ``adder_values``: Thm 6's reflection adders, per modulus and dtype.
- ``eigenvalue_list``: a matrix's eigenvalues rounded for printing.
- ``cascade_table``, ``cascade_values``: Thm 4's permutation–reset cascades (``theory.cascade.cascade_check``).
- ``run_cell``, ``run_scores``, ``run_values``: the trained runs' row of the run table and what the prose reads.
- ``check_values``, ``rule_values``: how many exact checks hold, and the numbers the statements' rules rest on.

Used in: notebooks/ne3_householder_products.md, tests/test_page_ne3.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import torch

from statetrack.site.analysis.grids import recipe_values
from statetrack.claims import ne3
from statetrack.claims.statements import PAPER_TOLERANCE
from statetrack.theory import cascade as kr
from statetrack.theory import gh_checks
from statetrack.theory import householder as hh

BETAS = {1.0: "β ∈ [0, 1]", 2.0: "β ∈ [0, 2]"}  # β_max → its label: DeltaNet's range and NE's
FACTORS = (1, 2, 3)  # the numbers k of GH factors sampled
DIM = 3  # the sampled products' dimension n
RESET = (5, 2)  # Thm 4's reset letter: (state size n, target q)


def eigenvalues(samples: int, n: int = DIM) -> pd.DataFrame:
    """Every eigenvalue of ``samples`` random products of k GH factors (seed k) in dimension n, per β range and
    k in ``FACTORS``: columns k, beta (its label), sample, re, im."""
    rows = []
    for beta_max, label in BETAS.items():
        for k in FACTORS:
            ev = hh.spectrum(hh.sample_gh_products(samples, n, k, beta_max, seed=k)).eigenvalues  # (N, n)
            rows += [{"k": k, "beta": label, "sample": i, "re": float(z.real), "im": float(z.imag)}
                     for i, row in enumerate(ev) for z in row]
    return pd.DataFrame(rows)


def nonreal_share(eig: pd.DataFrame) -> pd.DataFrame:
    """The share of products with an eigenvalue |Im λ| > ``householder.COMPLEX_TOL``: rows β label, columns k."""
    nonreal = (eig["im"].abs() > hh.COMPLEX_TOL).groupby([eig["beta"], eig["k"], eig["sample"]]).any()
    return nonreal.groupby(level=[0, 1]).mean().unstack()


def share_table(share: pd.DataFrame) -> pd.DataFrame:
    """``nonreal_share`` as the page shows it: percentages, columns "k = 1"..., the index named "β range"."""
    return share.map(lambda v: f"{v:.1%}").rename(columns=lambda k: f"k = {k}").rename_axis(
        index="β range", columns=None)


def share_values(share: pd.DataFrame) -> dict[str, float]:
    """``share_rot_k2`` (β ∈ [0, 2], two factors) and ``share_pos_k3`` (β ∈ [0, 1], three factors) of
    ``nonreal_share``."""
    return {"share_rot_k2": float(share.loc[BETAS[2.0], 2]), "share_pos_k3": float(share.loc[BETAS[1.0], 3])}


def swap_line(sw: dict[str, int]) -> str:
    """``gh_checks.swap_check``'s counts in one line: transpositions equal to their reflection, elements rebuilt."""
    return (f"{sw['matches']}/{sw['swaps']} transpositions equal their reflection; {sw['products_exact']}/"
            f"{sw['elements']} elements rebuilt from at most {sw['max_reflections']} reflections")


def factor_table(fc: Any) -> pd.DataFrame:
    """A ``gh_factorization.check_factorizations`` result, one row per size n: the factors each kind of matrix
    took beside its bound, and the largest error of the rebuilt product."""
    return pd.DataFrame([{"n": n, "orthogonal: factors (bound n)": fc.orthogonal_factors[n],
                          "contraction: factors (bound 3n)": fc.contraction_factors[n],
                          "permutation: reflections (bound n − 1)": fc.permutation_reflections[n],
                          "largest |∏ factors − M|": f"{fc.max_error_by_size[n]:.1e}"}
                         for n in fc.orthogonal_factors]).set_index("n")


def track_table(track: hh.TrackResult) -> pd.DataFrame:
    """The hand-set swap tracker's run (``householder.track_swaps``) in one row."""
    return pd.DataFrame([{"sequences": track.num_seqs, "steps": track.length, "accuracy vs the task's labels":
                          track.acc, "sequence accuracy": track.seq_acc,
                          "largest fp32 |S_t − M(label)|": track.max_state_error}])


def track_values(track: hh.TrackResult) -> dict[str, Any]:
    """``track_seqs``, ``track_len`` (as text), ``track_acc`` and ``track_err`` (as text) of the swap tracker."""
    return {"track_seqs": f"{track.num_seqs:,}", "track_len": f"{track.length:,}", "track_acc": track.acc,
            "track_err": f"{track.max_state_error:.1e}"}


def adders(num_seqs: int, length: int) -> dict[torch.dtype, list[hh.AdderResult]]:
    """Thm 6's two reflection layers run on ``num_seqs`` words of ``length`` inputs, for each of
    ``gh_checks.MODULI`` in each of ``gh_checks.HIGH`` (fp32, fp64)."""
    return {dt: hh.check_adders(gh_checks.MODULI, num_seqs, length, dt) for dt in gh_checks.HIGH}


def adder_table(runs: dict[torch.dtype, list[hh.AdderResult]]) -> pd.DataFrame:
    """``adders`` one row per (dtype, modulus): sequences, steps, accuracy and the largest distance from the exact
    point."""
    return pd.DataFrame([{"m": r.m, "dtype": r.dtype, "sequences": r.num_seqs, "steps": r.length, "accuracy": r.acc,
                          "largest distance from the exact point": r.max_angle_error}
                         for rs in runs.values() for r in rs])


def adder_values(table: pd.DataFrame) -> dict[str, Any]:
    """``adder_len`` (the steps, as text), ``adder_min_acc`` and ``adder_err32`` (fp32's largest distance, as text)
    of ``adder_table``."""
    fp32 = table[table["dtype"] == "float32"]
    return {"adder_len": f"{int(table['steps'].max()):,}", "adder_min_acc": float(table["accuracy"].min()),
            "adder_err32": f"{fp32['largest distance from the exact point'].max():.1e}"}


def eigenvalue_list(A: torch.Tensor, digits: int = 4) -> list[complex]:
    """The eigenvalues of the square matrix ``A`` (in fp64), each rounded to ``digits`` decimals."""
    ev = torch.linalg.eigvals(A.double())  # (n,) complex
    return [complex(round(z.real, digits), round(z.imag, digits)) for z in ev.tolist()]


def cascade_table(num_words: int, length: int) -> pd.DataFrame:
    """Thm 4's cascades of ``gh_checks.AUTOMATA`` run through the package's DeltaProduct op on ``num_words`` words
    of ``length`` letters (seed 1), fp32 and fp64: one row per (automaton, dtype)."""
    rows = []
    for make in gh_checks.AUTOMATA:
        auto = make()
        for dtype in gh_checks.HIGH:
            r = kr.cascade_check(auto, num_words, length, dtype, seed=1, op="delta_product")
            rows.append({"automaton": r.automaton, "monoid size": r.monoid_size, "dtype": r.dtype, "layers": r.layers,
                         "states per layer": ", ".join(map(str, r.state_sizes)),
                         "GH factors per token": ", ".join(map(str, r.factors_per_layer)),
                         "accuracy": r.acc, "largest |h − one-hot|": f"{r.max_error:.1e}"})
    return pd.DataFrame(rows).set_index(["automaton", "dtype"])


def cascade_values(table: pd.DataFrame, num_words: int, length: int) -> dict[str, Any]:
    """``cascade_words``, ``cascade_length`` (as text), ``cascade_min_acc`` of ``cascade_table``, and ``reset_zero``:
    whether the reset letter's ``RESET`` GH factors multiply to exactly 0."""
    reset = kr.reset_factors(RESET[0], target=RESET[1])
    return {"cascade_words": f"{num_words:,}", "cascade_length": f"{length:,}",
            "cascade_min_acc": float(table["accuracy"].min()),
            "reset_zero": "exactly 0" if reset.product_is_zero else "not 0"}


def run_cell(r: dict[str, Any]) -> dict[str, str]:
    """A run's cell in the run table: the model with its eigenvalue range."""
    return {"model": ne3.NAMES[r["config"]["model"]["eig_range"]]}


def run_scores(r: dict[str, Any]) -> dict[str, Any]:
    """A run's scores in the run table: normalized test accuracy, sequence accuracy at the longest test length,
    normalized in-distribution accuracy."""
    summary = r.get("summary", {})
    return {"test (normalized)": summary.get("ood_normalized"),
            f"sequence acc. @{r['config']['eval']['max_len']}": summary.get("seq_acc_at_max_len"),
            "in-dist (normalized)": summary.get("id_normalized")}


def run_values(records: list[dict[str, Any]], grid: Sequence[Any]) -> dict[str, Any]:
    """``seq_acc_neg``: the weakest DeltaNet [−1, 1] run's sequence accuracy at the longest test length (NaN
    when none ran), and ``test_max``: that length."""
    neg = [r["summary"]["seq_acc_at_max_len"] for r in records
           if r["config"]["model"]["eig_range"] == "[-1,1]" and r["status"] == "ok"]
    return {"seq_acc_neg": min(neg, default=float("nan")), "test_max": grid[0].eval.max_len}


def check_values(checks: Sequence[Any]) -> dict[str, int]:
    """``checks_ok`` of ``checks_total``: how many of the exact checks hold."""
    return {"checks_ok": sum(c.passed for c in checks), "checks_total": len(checks)}


def rule_values() -> dict[str, Any]:
    """The numbers the statements' rules rest on: the sign bound at the paper preset (``sign_bound``), its test set
    (``sign_n``, ``sign_n_text``), the count it allows (``sign_count``), its level, the tolerance, and the quick
    recipe's weight decay and warm-up (``analysis.grids.recipe_values``)."""
    bound = next(s.rule.threshold for s in ne3.statements() if s.id == "pos-cannot-track-sign")
    n = ne3.grid("paper")[0].eval.num_seqs
    return {"sign_bound": bound, "sign_n": n, "sign_n_text": f"{n:,}", "sign_count": round(bound * n),
            "level": ne3.LEVEL, "tolerance": PAPER_TOLERANCE, **recipe_values(ne3.grid("quick"))}
