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

Its figures and explorers:

- ``gh_spectra``: eigenvalues of sampled products of k GH matrices on the complex plane.
- ``rounding_drift``: how far the exact constructions' stored states drift in finite precision.
- ``swap_run``, ``swap_table``, ``swap_explorer``: pick a word of S5 swaps (``HAND_WORDS``, ``random_words``); the
  hand-set DeltaNet's answer after every swap beside the truth (Vega-Lite, no kernel needed).
- ``swap_exercise``: type your own word (ipywidgets; needs a kernel).
- ``gh_pair_table``, ``gh_pair_explorer``: two GH factors in the plane and their product's eigenvalues over a grid
  of β₁, β₂ and φ (Vega-Lite).
- ``construction_drift``: ``rounding_drift`` of the swap tracker and of the mod-m adder in each dtype.
- ``swap_lengths``: the trained one-layer DeltaNets' normalized accuracy by length, one line per run.

Used in: notebooks/ne3_householder_products.md, tests/test_page_ne3.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch
from matplotlib.figure import Figure

from statetrack.claims.ne3 import claim as ne3
from statetrack.verdicts.statements import PAPER_TOLERANCE
from statetrack.display.grids import recipe_values
from statetrack.display.explorers import Explorer, exercise, select, slider, step_grid
from statetrack.display.plots import COLORS, accuracy_by_length, style
from statetrack.theory import cascade as kr, gh_checks, householder as hh
from statetrack.theory.householder import permutation_matrix, swap_tracker, gh_product

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
    recipe's weight decay and warm-up (``display.grids.recipe_values``)."""
    bound = next(s.rule.threshold for s in ne3.statements() if s.id == "pos-cannot-track-sign")
    n = ne3.grid("paper")[0].eval.num_seqs
    return {"sign_bound": bound, "sign_n": n, "sign_n_text": f"{n:,}", "sign_count": round(bound * n),
            "level": ne3.LEVEL, "tolerance": PAPER_TOLERANCE, **recipe_values(ne3.grid("quick"))}


def gh_spectra(eig: pd.DataFrame, title: str | None = None) -> Figure:
    """Eigenvalues of sampled products of k GH matrices on the complex plane: rows β range, columns k.

    Args:
        eig: one row per eigenvalue, columns ``k`` (factors), ``beta`` (a label such as "β ∈ [0, 1]"),
            ``re``, ``im``. The unit circle and the segment [0, 1] are drawn in every panel.
    """
    import numpy as np

    style()
    ks, betas = sorted(set(eig["k"])), list(dict.fromkeys(eig["beta"]))
    fig, axes = plt.subplots(len(betas), len(ks), figsize=(6.8, 2.15 * len(betas) + 0.4), sharex=True, sharey=True,
                             squeeze=False)
    t = np.linspace(0, 2 * np.pi, 400)
    for r, b in enumerate(betas):
        for c, k in enumerate(ks):
            ax = axes[r][c]
            sub = eig[(eig["beta"] == b) & (eig["k"] == k)]
            ax.plot(np.cos(t), np.sin(t), color="0.6", lw=0.8)
            ax.plot([0, 1], [0, 0], color=COLORS[0], lw=3, alpha=0.35, solid_capstyle="butt")
            real = sub["im"].abs() <= 1e-6
            ax.scatter(sub.loc[real, "re"], sub.loc[real, "im"], s=4, color=COLORS[0], alpha=0.5, lw=0)
            ax.scatter(sub.loc[~real, "re"], sub.loc[~real, "im"], s=4, color=COLORS[1], alpha=0.5, lw=0)
            share = (~real).groupby(sub["sample"]).any().mean() if len(sub) else 0.0
            ax.set_title(f"k = {k}, {b}\n{share:.0%} of products non-real", fontsize=10.5)
            ax.set_aspect("equal")
            ax.set_xlim(-1.15, 1.15)
            ax.set_ylim(-1.15, 1.15)
            ax.tick_params(labelsize=9)
            if r == len(betas) - 1:
                ax.set_xlabel("Re λ", fontsize=10)
            if c == 0:
                ax.set_ylabel("Im λ", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def rounding_drift(drift: pd.DataFrame, title: str | None = None) -> Figure:
    """How far the exact constructions' stored states drift from the exact ones, step by step (log-log).

    Args:
        drift: columns ``construction`` (a label), ``step`` (1-based), ``error`` (the largest deviation
            at that step over the sequences) and ``margin`` (the deviation at which an answer could flip).
    """
    style()
    fig, ax = plt.subplots(figsize=(7.0, 3.3))
    cases = list(dict.fromkeys(drift["construction"]))
    colors = dict(zip(cases, sns.color_palette("colorblind", len(cases))))
    for case in cases:
        sub = drift[drift["construction"] == case]
        ax.plot(sub["step"], sub["error"].clip(lower=1e-17), color=colors[case], lw=1.3, label=case)
        ax.axhline(float(sub["margin"].iloc[0]), color=colors[case], ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step t")
    ax.set_ylabel("largest deviation\nfrom the exact state")
    ax.set_ylim(top=3.0)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=10, loc="lower center", ncol=2, frameon=False)  # below, never over data
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.15, 1, 1))
    return fig


#: The words the swap explorer offers: by hand, one of each kind of product (the first is the page's example,
#: (0 1)(1 2)(0 1) = (0 2) then (3 4)), then two random words of 12 swaps (``random_words``, seed 0).
HAND_WORDS = ("01 12 01 34", "01", "01 01", "01 12", "01 12 23 34", "- 24 - 13", "04 03 02 01 04 03 02 01")


def random_words(count: int = 2, length: int = 12, seed: int = 0) -> list[str]:
    """``count`` words of ``length`` swaps (or the identity "-") drawn uniformly with ``random.Random(seed)``."""
    import random

    pairs = ["-"] + [f"{i}{j}" for i in range(5) for j in range(i + 1, 5)]
    rng = random.Random(seed)
    return [" ".join(rng.choice(pairs) for _ in range(length)) for _ in range(count)]


def _swap_keys(word: str) -> list[str]:
    return [w if w == "-" else "".join(sorted(w)) for w in word.replace(",", " ").split()]


def swap_run(word: str) -> tuple[pd.DataFrame, torch.Tensor, tuple[int, ...]]:
    """The hand-set DeltaNet (``theory.householder.swap_tracker``, NE Thm 3) run with the model's own ``step`` from
    S_0 = I on a word of swaps ("01" swaps points 0 and 1, "-" is the identity): one row per token (t, token, true
    product, network's answer, right, max |S − M|), the last state S_t of a working head (5, 5) and the true
    product. Raises ValueError on anything but 1 to 30 swaps."""
    tr = swap_tracker()
    perms, table = tr.task.permutations, tr.task.mul_table
    by_pair = {}
    for e in tr.task.elements_drawn.tolist():
        moved = [i for i in range(5) if perms[e][i] != i]
        by_pair["".join(map(str, moved)) if moved else "-"] = e
    keys = _swap_keys(word)
    if not keys or len(keys) > 30 or any(k not in by_pair for k in keys):
        raise ValueError("type 1 to 30 swaps such as 01 24 or - (identity), separated by spaces")
    state, product, rows = tr.init_state(1), 0, []
    with torch.no_grad():
        for t, k in enumerate(keys, 1):
            e = by_pair[k]
            logits, state = tr.model.step(torch.tensor([e]), state)
            product = int(table[product, e])
            answer = int(logits.argmax())
            S = state[0][0][0, 0]  # (5, 5) head 0's state (all working heads hold the same)
            err = float((S - permutation_matrix(perms[product], torch.float32)).abs().max())
            rows.append({"t": t, "token": k, "true product": tuple(perms[product]), "network": tuple(perms[answer]),
                         "right": answer == product, "max |S − M|": f"{err:.1e}"})
    return pd.DataFrame(rows).set_index("t"), S, tuple(perms[product])


def swap_table(words: Sequence[str] | None = None) -> pd.DataFrame:
    """What the swap explorer draws: ``swap_run`` of each word (``HAND_WORDS`` and ``random_words()``) as text,
    one row per (word, step, quantity): columns word, step, quantity, value."""
    words = [*HAND_WORDS, *random_words()] if words is None else list(words)
    shown = {"token": "swap read", "true product": "true product", "network": "network's answer",
             "max |S − M|": "max |S − M|"}
    rows = []
    for word in words:
        run = swap_run(word)[0]
        rows += [{"word": word, "step": t, "quantity": name,
                  "value": "".join(map(str, v)) if isinstance(v, tuple) else str(v)}
                 for t, r in run.iterrows() for col, name in shown.items() for v in [r[col]]]
    return pd.DataFrame(rows)


def swap_explorer(table: pd.DataFrame | None = None) -> Explorer:
    """Pick a word of S5 swaps; read the hand-set DeltaNet's answer after every swap beside the true product (a
    permutation written as the images of 0..4: "10234" swaps 0 and 1) and its state's distance from the product's
    permutation matrix (``swap_table``, computed when the page is built)."""
    table = swap_table() if table is None else table
    words = list(dict.fromkeys(table["word"]))
    word = select("word", words, words[0], label="word of swaps")
    return Explorer(step_grid(table, word, "word", ["swap read", "true product", "network's answer",
                                                    "max |S − M|"], step_title="t (swaps read)"), "swap explorer")


def swap_exercise(word: str = "01 12 01 34"):
    """Type a word of S5 swaps; see the hand-set DeltaNet's answer and state beside the true product (``swap_run``).
    Needs a running kernel (``explorers.exercise``)."""
    from IPython.display import display

    text = widgets.Text(value=word, description="word", placeholder="e.g. 01 12 - 34")

    def draw():
        try:
            run, S, product = swap_run(text.value)
        except ValueError as e:
            print(e)
            return
        display(run)
        print("state S_t of a working head (rounded) and the true permutation matrix M(product):")
        display(pd.concat({"network S_t": pd.DataFrame(S.numpy().round(3)),
                           "M(product)": pd.DataFrame(permutation_matrix(product).numpy().astype(int))}, axis=1))

    return exercise([text], draw, "type your own word of swaps")


BETA_GRID = tuple(round(0.1 * i, 1) for i in range(21))  # the gh pair explorer's β₁ and β₂
ANGLE_GRID = tuple(range(0, 181, 10))  # its angles φ (degrees)


def gh_pair_table(betas: Sequence[float] = BETA_GRID, angles: Sequence[float] = ANGLE_GRID) -> pd.DataFrame:
    """The eigenvalues of (I − β₂ v₂v₂ᵀ)(I − β₁ v₁v₁ᵀ) in the plane, v₁ = (1, 0) and v₂ at φ degrees from it
    (``householder.gh_product`` in float64), for every β₁, β₂ in ``betas`` and φ in ``angles``: columns b1, b2, phi,
    re1, im1, re2, im2 (3 decimals; the first eigenvalue has im ≥ 0)."""
    grid = [(b1, b2, phi) for b1 in betas for b2 in betas for phi in angles]
    rad = torch.tensor([math.radians(p) for _, _, p in grid], dtype=torch.float64)
    keys = torch.stack([torch.stack([torch.ones_like(rad), torch.zeros_like(rad)], -1),
                        torch.stack([rad.cos(), rad.sin()], -1)], 1)  # (N, 2, 2)
    beta = torch.tensor([[b1, b2] for b1, b2, _ in grid], dtype=torch.float64)  # (N, 2)
    ev = torch.linalg.eigvals(gh_product(keys, beta))  # (N, 2)
    ev = torch.where((ev.imag[:, :1] < ev.imag[:, 1:]), ev.flip(-1), ev)  # the upper one first
    ev = torch.complex(ev.real.round(decimals=3), ev.imag.round(decimals=3)) + 0.0
    return pd.DataFrame({"b1": [g[0] for g in grid], "b2": [g[1] for g in grid], "phi": [g[2] for g in grid],
                         "re1": ev[:, 0].real.tolist(), "im1": ev[:, 0].imag.tolist(),
                         "re2": ev[:, 1].real.tolist(), "im2": ev[:, 1].imag.tolist()}).replace(-0.0, 0.0)


def gh_pair_explorer(table: pd.DataFrame | None = None) -> Explorer:
    """Two GH factors in the plane, I − β_j v_j v_jᵀ with an angle φ between v_1 and v_2: move β₁, β₂ and φ; see
    their product's eigenvalues against the unit circle (``gh_pair_table``, computed when the page is built).
    β ∈ [0, 1] keeps them real in [0, 1] (NE Prop. 1.3); two reflections (β = 2) rotate by 2φ."""
    table = gh_pair_table() if table is None else table
    b1 = slider("b1", min(BETA_GRID), max(BETA_GRID), 0.1, 2.0, label="β₁")
    b2 = slider("b2", min(BETA_GRID), max(BETA_GRID), 0.1, 2.0, label="β₂")
    phi = slider("phi", min(ANGLE_GRID), max(ANGLE_GRID), 10, 60, label="φ (degrees)")
    keep = " && ".join(f"abs(datum.{p.name} - {p.name}) < 1e-6" for p in (b1, b2, phi))
    scale = alt.Scale(domain=[-1.2, 1.2])
    x, y = alt.X("re:Q", title="Re λ", scale=scale), alt.Y("im:Q", title="Im λ", scale=scale)
    t = [2 * math.pi * i / 120 for i in range(121)]
    circle = alt.Chart(pd.DataFrame({"re": [round(math.cos(a), 3) for a in t], "im": [round(math.sin(a), 3) for a in t],
                                     "i": range(121)})).mark_line(color="#999999", strokeWidth=1).encode(
        x=x, y=y, order="i:Q")
    segment = alt.Chart(pd.DataFrame({"re": [0.0, 1.0], "im": [0.0, 0.0]})).mark_line(
        color="#1b9e77", strokeWidth=6, opacity=0.45).encode(x=x, y=y)
    picked_rows = alt.Chart().transform_filter(keep)  # the layer's data: the table, inlined once
    points = [picked_rows.transform_calculate(re=f"datum.re{j}", im=f"datum.im{j}").mark_point(
        filled=True, size=90, color="#d95f02").encode(
        x=x, y=y, tooltip=[alt.Tooltip("re:Q", format=".3f"), alt.Tooltip("im:Q", format=".3f")]) for j in (1, 2)]
    number = "format(datum.re{0}, '.2f') + (datum.im{0} < 0 ? ' − ' : ' + ') + format(abs(datum.im{0}), '.2f') + 'i'"
    note = picked_rows.transform_calculate(
        text=f"'λ = ' + {number.format(1)} + ',  ' + {number.format(2)} + "
             "(abs(datum.im1) < 1e-9 ? '  (real)' : '  (complex: a rotation-like pair)')").mark_text(
        align="left", x=4, y=-12, fontSize=13).encode(text="text:N")
    chart = alt.layer(circle, segment, *points, note, data=alt.Data(values=table.to_dict("records"))).add_params(
        b1, b2, phi).properties(width=300, height=300)
    return Explorer(chart.configure_axis(labelFontSize=11, titleFontSize=12), "GH pair explorer")


TRACK_MARGIN = 0.5  # the swap tracker's state error at which an answer could change


def construction_drift(track: Any, adders: dict[Any, list[Any]], m: int = 10) -> Figure:
    """``rounding_drift`` of the hand-set swap tracker (a ``householder.TrackResult``, margin ``TRACK_MARGIN``) and
    of the mod-``m`` reflection adder in each dtype (``adders``: dtype → ``householder.AdderResult`` per modulus;
    margin sin(π/m), half the chord between neighbouring answer points)."""
    drift = [pd.DataFrame({"construction": f"Thm 3 swaps, fp32 (margin {TRACK_MARGIN:g})",
                           "step": range(1, len(track.error_by_step) + 1), "error": track.error_by_step.numpy(),
                           "margin": TRACK_MARGIN})]
    for rs in adders.values():
        r = next(r for r in rs if r.m == m)
        drift.append(pd.DataFrame({"construction": f"Thm 6 mod {m}, {r.dtype} (margin sin(π/{m}))",
                                   "step": range(1, len(r.error_by_step) + 1), "error": r.error_by_step.numpy(),
                                   "margin": math.sin(math.pi / m)}))
    return rounding_drift(pd.concat(drift), title="Rounding drift of the exact constructions")


def swap_lengths(frame: pd.DataFrame, cfg: Any, preset: str) -> Figure:
    """The runs' normalized accuracy by length (``results.tidy`` rows), one panel, one line per run named by its
    model and range (``claims.ne3.NAMES``); ``cfg`` (a run config of the grid) gives the trained and tested lengths."""

    return accuracy_by_length(frame.assign(model=frame["eig_range"].map(ne3.NAMES)), train_max_len=cfg.train.max_len,
                              test_range=(cfg.eval.min_len, cfg.eval.max_len), panel=None, hue="model",
                              title=f"S5 swaps, one-layer DeltaNet, preset {preset}")
