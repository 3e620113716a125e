"""NE Prop 1, Thm 3, Thm 4, Thm 6: products of GH matrices I − β v vᵀ, checked as rows at given sizes.

ne3's exact part as ``Check`` rows, built
from ``householder`` (sampled products' norms and spectra, S5's swaps as reflections, the hand-set swap tracker,
the reflection adders, the rotating DeltaProduct), ``gh_factorization`` (Prop 1.2 in full) and ``cascade``
(Thm 4's resets and permutation–reset cascades).

Used in: ne3.
"""

from __future__ import annotations

import math

import torch

from statetrack.check import Check
from statetrack.tasks import make_task, task_config
from statetrack.theory import cascade as kr
from statetrack.theory import gh_factorization as gf
from statetrack.theory import householder as hh

MODULI = (2, 3, 5, 10)  # Thm 6 is checked for these m
#: NE Thm 4's automata: Z3 with a reset letter, and a random 5-state automaton with letters of rank 4, 3, 2.
AUTOMATA = (kr.z3_with_reset, kr.random_automaton)
HIGH = (torch.float32, torch.float64)  # the dtypes the adders and cascades run in


def spectra(samples: int) -> dict[tuple[int, int, float], hh.Spectrum]:
    """Spectra of ``samples`` random GH products per (n, k, β_max): n ∈ {3, 4}, k ∈ {1, 2, 3}, β_max ∈ {1, 2}."""
    return {(n, k, b): hh.spectrum(hh.sample_gh_products(samples, n, k, b, seed=100 * n + 10 * k + int(b)))
            for n in (3, 4) for k in (1, 2, 3) for b in (1.0, 2.0)}


def rows(samples: int, track: tuple[int, int], adder: tuple[int, int], cascade: tuple[int, int],
         factor: tuple[range, int]) -> list[Check]:
    """NE Prop 1.3 and 1.1 on sampled GH products, Prop 1.2, Thm 3, Thm 6, Thm 4: every exact row of ne3.

    The sizes are ne3's ``SIZES[preset]``: GH products per (n, k, β range); (sequences, steps) of the swap tracker,
    adders and cascades; (sizes n, matrices of each kind per n) of the factorizations."""
    spec, tol = spectra(samples), hh.COMPLEX_TOL
    real01 = [s for (n, k, b), s in spec.items() if b == 1.0 and k <= 2]
    worst = max(max(s.max_imag, -s.min_real, s.max_real - 1) for s in real01)
    norm = max(s.max_norm for s in spec.values())
    rot = min(spec[(n, 2, 2.0)].frac_complex for n in (3, 4))
    single = max(spec[(n, 1, 2.0)].max_imag for n in (3, 4))
    sw = swap_check()
    out = [
        Check(
            label="Prop 1.3: β ∈ [0,1], k ≤ 2 factors: every eigenvalue real and in [0, 1]", value=worst,
            rule=f"≤ {tol:g}", passed=worst <= tol,
            detail=f"{len(real01) * samples} products (n = 3, 4); value = the largest |Im λ| or distance outside [0, 1]"),
        Check(label="Prop 1.1: every product (k = 1, 2, 3; β ∈ [0,1] and [0,2]) has ‖A‖₂ ≤ 1", value=norm,
              rule="≤ 1 + 1e-12", passed=norm <= 1 + 1e-12,
              detail=f"{len(spec) * samples} products; value = the largest norm"),
        Check(label="Prop 1.3, contrast: β ∈ [0,2], k = 2 factors: complex eigenvalues (rotations) appear", value=rot,
              rule="> 0", passed=rot > 0,
              detail=f"value = fraction of products with |Im λ| > {tol:g} (the smaller of n = 3, 4); with "
                     f"β ∈ [0,1] it is {max(spec[(n, 2, 1.0)].frac_complex for n in (3, 4)):.3g}"),
        Check(label="Prop 1.3, one factor: a GH matrix (DeltaNet), β ∈ [0,2], has real eigenvalues", value=single,
              rule=f"≤ {tol:g}", passed=single <= tol,
              detail="value = the largest |Im λ|; one factor is a symmetric matrix"),
        Check(label="Prop 1.2 on S5: each transposition (the task's ids) is I − 2vvᵀ, v = (e_i − e_j)/√2",
              value=sw["matches"], rule=f"= {sw['swaps']}", passed=sw["matches"] == sw["swaps"],
              detail=f"exact equality with the permutation matrix; {sw['swaps']} transpositions"),
        Check(label="Prop 1.2 on S5: every element is a product of ≤ 4 = n − 1 such reflections",
              value=sw["max_reflections"], rule="≤ 4",
              passed=sw["max_reflections"] <= 4 and sw["products_exact"] == sw["elements"],
              detail=f"{sw['products_exact']}/{sw['elements']} elements rebuilt exactly from their reflections"),
    ]
    out += factorization_rows(*factor)
    B, T = track
    tr = hh.track_swaps(B, T, seed=0)
    out.append(Check(label=f"Thm 3: hand-set 1-layer DeltaNet [-1,1] tracks S5 swaps ({B:,} seqs × {T:,} steps)",
                     value=tr.acc, rule="= 1", passed=tr.acc == 1.0,
                     detail=f"sequence accuracy {tr.seq_acc:.4f}; largest fp32 |S_t − M(label)| = "
                            f"{tr.max_state_error:.1e}"))
    B, T = adder
    per_dtype = {dt: hh.check_adders(MODULI, B, T, dt) for dt in HIGH}
    for m, r32, r64 in zip(MODULI, per_dtype[torch.float32], per_dtype[torch.float64]):
        acc = min(r32.acc, r64.acc)
        out.append(Check(label=f"Thm 6: two reflection layers add mod {m} ({B:,} seqs × {T:,} steps, fp32 and fp64)",
                         value=acc, rule="= 1", passed=acc == 1.0,
                         detail=f"largest distance from the exact point: fp32 {r32.max_angle_error:.1e}, "
                                f"fp64 {r64.max_angle_error:.1e}"))
    dev = rotation_check()
    out.append(Check(
        label="Thm 3, Z3 as two reflections per token: DeltaProduct n_h = 2, hand-set keys, eigenvalues e^{±2πi/3}",
        value=dev, rule="≤ 1e-6", passed=dev <= 1e-6,
        detail="value = the largest |λ − e^{±2πi/3}| of the rotating pair (fp32 model)"))
    return out + cascade_rows(*cascade)


def factorization_rows(sizes: range, per_size: int) -> list[Check]:
    """Prop 1.2 in full: orthogonal matrices as n reflections, contractions as 3n GH factors, permutations n − 1."""
    f = gf.check_factorizations(tuple(sizes), per_size, seed=0)
    ns = f"n = {sizes.start}–{sizes.stop - 1}, {per_size} of each kind per n, fp64"
    betas_ok = 0 <= f.beta_min and f.beta_max <= 2 and f.max_key_norm_error <= 1e-12
    tol = f"≤ {gf.ERROR_PER_DIM:g}·n"
    orth = max(f.orthogonal_factors[n] / n for n in sizes)  # factors used ÷ the bound, worst n
    contr = max(f.contraction_factors[n] / (3 * n) for n in sizes)
    perm = max(f.permutation_reflections[n] / (n - 1) for n in sizes)
    return [
        Check(
            label="Prop 1.2: a Haar orthogonal matrix is a product of n reflections (β ∈ {0, 2})", value=f.max_error,
            rule=tol, passed=f.tolerance_ok and orth <= 1 and f.det_parity_ok and betas_ok,
            detail=f"{ns}; value = the largest |∏ factors − M| over all {f.num_matrices} matrices; sign det Q = (−1)^(β = 2 "
                   "count) for every Q"),
        Check(label="Prop 1.2: every contraction ‖M‖ ≤ 1 is a product of 3n GH factors, β ∈ [0, 2]", value=contr,
              rule="≤ 1 (factors ÷ 3n)", passed=f.tolerance_ok and contr <= 1 and betas_ok,
              detail=f"{ns} (norm 1 and below, rank-deficient, the zero matrix) through the SVD; β ∈ [{f.beta_min:g}, "
                     f"{f.beta_max:g}]; largest key-norm error {f.max_key_norm_error:.1e}"),
        Check(
            label="Prop 1.2: a permutation matrix needs n − 1 reflections (swaps)", value=perm,
            rule="≤ 1 (reflections ÷ (n − 1))",
            passed=f.within_bounds and f.swaps_match and f.tolerance_ok and perm <= 1,
            detail=f"{ns}; each permutation's reflection count equals its cycle decomposition's; every product within "
                   f"{gf.ERROR_PER_DIM:g}·n of the matrix (largest {f.max_error:.1e})"),
    ]


def cascade_rows(num_words: int, length: int) -> list[Check]:
    """NE Thm 4: the zero matrix as n GH factors, and permutation–reset cascades of two non-group automata."""
    n = 5
    rf = kr.reset_factors(n, target=2)
    exact = rf.product_is_zero and 0 <= rf.beta_min and rf.beta_max <= 2 and rf.max_image_error == 0
    out = [Check(label=f"Thm 4: a reset letter is {n} GH factors (β = 1, keys e_1..e_{n}) with product exactly 0",
                 value=rf.max_image_error, rule="= 0, product = 0", passed=exact,
                 detail=f"fp64; value = the largest |A e_p + B − e_q| over the {n} states p (B = e_q, q = 2); "
                        f"β ∈ [{rf.beta_min:g}, {rf.beta_max:g}]")]
    for make in AUTOMATA:
        auto = make()
        # op="delta_product": each layer runs the package's own DeltaProduct recurrence (models/ops/delta.py).
        res = {dt: kr.cascade_check(auto, num_words, length, dt, seed=1, op="delta_product") for dt in HIGH}
        r32, r64 = res[torch.float32], res[torch.float64]
        acc = min(r32.acc, r64.acc)
        sized = max(r32.state_sizes) <= auto.num_states and r32.layers < 2 ** auto.num_states
        not_group = min(r32.letter_ranks) < auto.num_states  # a letter that is no permutation: not a group
        ok = acc == 1.0 and r32.symbolic_ok and sized and not_group and 0 <= r32.beta_min and r32.beta_max <= 2
        out.append(Check(
            label=f"Thm 4: permutation–reset cascade tracks {auto.name} ({auto.num_states} states, monoid of "
                  f"{r32.monoid_size}, not a group; {num_words:,} words × {length:,} letters, fp32 and fp64)",
            value=acc, rule="= 1", passed=ok,
            detail=f"{r32.layers} layer(s) of {', '.join(map(str, r32.state_sizes))} states (≤ |Q| = {auto.num_states}), "
                   f"{', '.join(map(str, r32.factors_per_layer))} GH factors per token, β ∈ [{r32.beta_min:g}, "
                   f"{r32.beta_max:g}]; letter ranks {', '.join(map(str, r32.letter_ranks))}; largest |h − one-hot|: fp32 "
                   f"{r32.max_error:.1e}, fp64 {r64.max_error:.1e}; every cascade transition checked symbolically"))
    return out


def swap_check() -> dict[str, int]:
    """Prop 1.2 on the word_problem task's own S5 elements: swaps are reflections; products of ≤ n − 1 rebuild all."""
    perms = make_task(task_config("word_problem", group="S5")).permutations
    swaps = [p for p in perms if sum(i != j for i, j in enumerate(p)) == 2]
    matches = 0
    for p in swaps:
        i, j = [r for r in range(5) if p[r] != r]
        matches += bool(torch.equal(hh.swap_reflection(i, j, 5), hh.permutation_matrix(p)))
    exact, most = 0, 0
    for p in perms:
        pairs = hh.as_reflections(p)
        A = torch.eye(5, dtype=torch.float64)
        for i, j in pairs:
            A = hh.swap_reflection(i, j, 5) @ A
        exact += bool(torch.equal(A, hh.permutation_matrix(p)))
        most = max(most, len(pairs))
    return {"swaps": len(swaps), "matches": matches, "elements": len(perms), "products_exact": exact,
            "max_reflections": most}


def rotation_check(theta: float = 2 * math.pi / 3) -> float:
    """Largest |λ − e^{±iθ}| of the rotating eigenvalue pair of the hand-set DeltaProduct's A(x)."""
    _, A = hh.rotation_deltaproduct(theta)
    ev = torch.linalg.eigvals(A.double())  # (d,)
    want = torch.tensor([complex(math.cos(theta), math.sin(theta)), complex(math.cos(theta), -math.sin(theta))],
                        dtype=torch.complex128)  # (2,) the exact pair, in fp64
    return float(max((ev - w).abs().min() for w in want))
