"""NE Thm 2 for two layers (``statetrack.theory.layered_counting``) against independent computations.

Ground truth: a numpy float32 scalar re-implementation of the two-layer rollout (bfloat16 by
bit-level rounding, ties to even), a pure-Python dictionary of first sightings for the eventual
period, numpy eigenvalues of the layer-2 two-step products, a lookup-table readout of the true
count k mod 3 for the best accuracy, and closed forms for Thm 6's reflections. The negative
control (layer 2 a rotation by 2π/3, non-real) must show periods divisible by 3.

Runtime: about 6 s on 2 CPU threads.
"""

from __future__ import annotations

import cmath
import math
from collections import Counter

import numpy as np
import pytest
import torch

from statetrack.theory import layered_counting as lc

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def to_bf16(x) -> np.float32:
    """Round a float32 to the nearest bfloat16 (ties to even), returned as float32."""
    u = int(np.float32(x).view(np.uint32))
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return np.uint32(u).view(np.float32)


def numpy_rollout(model: lc.TwoLayerLRNN, d: int, max_steps: int):
    """Draw d's orbit with numpy scalars, until the first repeated joint state (or max_steps).

    Returns:
        the list of joint states as bit tuples, and (entry, period) of the first repeat or None.
    """
    r = (lambda v: np.float32(v)) if model.dtype == torch.float32 else to_bf16
    f32 = lambda t: [np.float32(v) for v in t.float().tolist()]  # noqa: E731
    a1, b1, h1 = f32(model.a1[d]), f32(model.b1[d]), f32(model.h1_0[d])
    tau = model.tau[d].tolist()
    A = model.A2[d].float().numpy()  # (P, d2, d2)
    B = model.B2[d].float().numpy()  # (P, d2)
    h2 = f32(model.h2_0[d])

    def key():
        return tuple(int(np.float32(v).view(np.uint32)) for v in h1 + h2)

    states, seen = [key()], {key(): 0}
    for k in range(1, max_steps + 1):
        h1 = [r(r(a * h) + b) for a, h, b in zip(a1, h1, b1)]
        u = sum(2 ** j for j, (h, t) in enumerate(zip(h1, tau)) if float(h) > t)
        new = []
        for i in range(len(h2)):
            acc = r(A[u, i, 0] * h2[0])
            for j in range(1, len(h2)):
                acc = r(acc + r(A[u, i, j] * h2[j]))
            new.append(r(acc + B[u, i]))
        h2 = new
        s = key()
        states.append(s)
        if s in seen:
            return states, (seen[s], k - seen[s])
        seen[s] = k
    return states, None


def module_bits(model: lc.TwoLayerLRNN, steps: int) -> np.ndarray:
    """The module's orbit as float32 bit patterns (K+1, N, d1 + d2)."""
    h1, h2 = lc.two_layer_orbit(model, steps)
    return torch.cat([h1, h2], -1).float().numpy().view(np.uint32)


# ---------------------------------------------------------------------------------------------------------
# The rollout and the period detector against numpy and a dictionary
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("family", lc.FAMILIES)
def test_rollout_and_periods_match_numpy_and_a_dictionary(family, dtype):
    """Bitwise the same orbit as numpy scalars; the detector's (entry, period) equal the first repeat's."""
    model = lc.sample_two_layer(5, family, DTYPES[dtype], seed=11)
    steps = 2500
    got = lc.two_layer_periods(model, steps, chunk=97)  # a chunk that does not divide anything
    ours = module_bits(model, 60)
    for d in range(5):
        states, rep = numpy_rollout(model, d, steps)
        n = min(len(states), 61)
        assert [tuple(s) for s in ours[:n, d].tolist()] == states[:n]
        assert rep is not None and rep[0] + rep[1] <= steps, "every draw settles within 2500 steps"
        assert (int(got["entry"][d]), int(got["period"][d])) == rep


def test_chunk_size_does_not_change_the_answer():
    model = lc.sample_two_layer(64, "deltanet", torch.float32, seed=2)
    a = lc.two_layer_periods(model, 1500, chunk=1500)
    b = lc.two_layer_periods(model, 1500, chunk=64)
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_detector_on_a_hand_built_model():
    """Layer 1: a = −1, b = 0, h = 0.5 alternates ±0.5, so u alternates 1, 0; layer 2 h ← −0.5 h + c_u."""
    f32 = torch.float32
    model = lc.TwoLayerLRNN(
        "diagonal", f32, a1=torch.tensor([[-1.0]]), b1=torch.tensor([[0.0]]), h1_0=torch.tensor([[0.5]]),
        tau=torch.tensor([[0.0]], dtype=torch.float64), A2=torch.tensor([[[[0.0]], [[0.0]]]]),
        B2=torch.tensor([[[1.0], [2.0]]]), h2_0=torch.tensor([[3.0]]))
    # h¹: 0.5, −0.5, 0.5, …; u_t = [h¹_t > 0]: 0, 1, 0, …; h²_t = B_{u_t}: 3, 1, 2, 1, 2, …
    out = lc.two_layer_periods(model, 10, max_period=4)
    assert int(out["period"][0]) == 2 and int(out["entry"][0]) == 1 and int(out["layer1_period"][0]) == 2
    assert int(out["layer1_entry"][0]) == 0 and bool(out["alternating"][0])
    out = lc.two_layer_periods(model, 1, max_period=4)  # two states, no repeat yet
    assert int(out["period"][0]) == -1 and int(out["entry"][0]) == -1


# ---------------------------------------------------------------------------------------------------------
# Impossibility: real two-step products give power-of-two periods
# ---------------------------------------------------------------------------------------------------------


def lookup_readout_accuracy(bits: np.ndarray, start: int) -> float:
    """Best accuracy of any map state → residue on k mod 3 over steps start..K (a table of counts)."""
    table: dict[tuple, Counter] = {}
    for k in range(start, len(bits)):
        table.setdefault(tuple(bits[k].tolist()), Counter())[k % 3] += 1
    return sum(max(c.values()) for c in table.values()) / (len(bits) - start)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("family", lc.REAL_FAMILIES)
def test_real_two_step_products_give_power_of_two_periods(family, dtype):
    """Diagonal: every period is 1, 2 or 4 (the monotone argument). GH: the same up to rare 1-ulp rounding cycles."""
    res = lc.real_two_layer_periods(num_draws=160, steps=2500, dtype=DTYPES[dtype], seed=5, family=family)
    assert res.max_product_imag == 0.0
    assert res.draws_settled >= 0.9 * res.num_draws and sum(res.periods.values()) == res.draws_settled
    assert set(res.layer1_periods) <= {1, 2}  # the monotone scalar maps of layer 1
    assert all(p & (p - 1) == 0 for p in res.periods if p % 3)  # 1, 2, 4, 8 only, apart from the exceptions
    assert res.exceptions == sum(n for p, n in res.periods.items() if p % 3 == 0)
    if family == "diagonal":
        assert res.exceptions == 0 and res.powers_of_two and set(res.periods) <= {1, 2, 4}
        assert res.best_acc == pytest.approx(1 / 3)
    else:
        assert res.exceptions <= 0.02 * res.num_draws and res.exception_ulps <= 2
    assert res.best_acc_without_exceptions == pytest.approx(1 / 3)
    assert res.alternating_inputs >= res.num_draws // 4 and 2 in res.periods


def test_a_rounding_cycle_of_period_6_is_real_arithmetic():
    """fixed_key fp32, seed 1, draw 233: numpy scalars find the same period-6 cycle; its 3-cycles are 1 ulp apart."""
    big = lc.sample_two_layer(1024, "fixed_key", torch.float32, seed=1)
    model = lc.TwoLayerLRNN("fixed_key", torch.float32, *(getattr(big, f)[233:234] for f in
                                                          ("a1", "b1", "h1_0", "tau", "A2", "B2", "h2_0")))
    states, rep = numpy_rollout(model, 0, 500)
    out = lc.two_layer_periods(model, 500)
    assert rep is not None and rep[1] == 6 and (int(out["entry"][0]), int(out["period"][0])) == rep
    assert int(out["layer1_period"][0]) == 2  # layer 1 alternates, so layer 2's pair map has a 3-cycle
    assert lc.subperiod_ulps(out["tail"][:, 0], 6) == 1.0
    assert lc.product_spectra_imag(model) == 0.0  # every two-step product is real all the same


def test_period_four_appears_and_the_readout_table_agrees():
    """Diagonal layer 2 with an alternating input and a negative two-step product: period 4 on the pairs' 2-cycle."""
    model = lc.sample_two_layer(96, "diagonal", torch.float32, seed=5)
    steps = 3000
    out = lc.two_layer_periods(model, steps)
    period, entry = out["period"], out["entry"]
    assert (period == 4).any() and set(period[period > 0].tolist()) <= {1, 2, 4}
    bits = module_bits(model, steps)  # (K+1, N, D)
    for d in torch.nonzero(period > 0).flatten()[:12].tolist():
        start = int(entry[d])
        tail = (steps + 1 - start) // 12 * 12  # whole joint periods lcm(p, 3) divide 12
        assert lookup_readout_accuracy(bits[start: start + tail, d], 0) == pytest.approx(1 / 3)


def test_product_spectra_against_numpy_eig():
    for family in lc.REAL_FAMILIES:
        model = lc.sample_two_layer(8, family, torch.float32, seed=1)
        A = model.A2.double().numpy()  # (N, P, 2, 2)
        worst = max(np.abs(np.linalg.eigvals(A[n, i] @ A[n, j]).imag).max()
                    for n in range(8) for i in range(4) for j in range(4))
        assert worst == 0.0 and lc.product_spectra_imag(model) == 0.0
    rot = lc.sample_two_layer(2, "rotation", torch.float32)
    assert lc.product_spectra_imag(rot) == pytest.approx(math.sin(2 * math.pi / 3), abs=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_negative_control_rotation_has_period_divisible_by_3(dtype):
    """Layer 2 R(2π/3) (non-real product): the same detector finds periods 3 or 6, and the readout can be exact."""
    res = lc.real_two_layer_periods(num_draws=64, steps=3000, dtype=DTYPES[dtype], seed=5, family="rotation")
    assert res.draws_settled >= 60 and set(res.periods) <= {3, 6} and all(p % 3 == 0 for p in res.periods)
    assert not res.powers_of_two and res.best_acc == 1.0 and res.exceptions == res.draws_settled
    assert res.exception_ulps > 100  # a genuine rotation (3 cycle points far apart), not a 1-ulp rounding cycle
    assert res.max_product_imag == pytest.approx(math.sin(2 * math.pi / 3), abs=5e-3)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="family"):
        lc.sample_two_layer(4, "complex")
    with pytest.raises(ValueError, match="num_draws"):
        lc.sample_two_layer(0)
    with pytest.raises(ValueError, match="d2"):
        lc.sample_two_layer(4, "rotation", d2=3)
    with pytest.raises(ValueError, match="steps"):
        lc.two_layer_periods(lc.sample_two_layer(2), 0)


# ---------------------------------------------------------------------------------------------------------
# Possibility: Thm 6's reflections count mod 3
# ---------------------------------------------------------------------------------------------------------


def numpy_reflection(theta: float) -> np.ndarray:
    return np.array([[math.cos(theta), math.sin(theta)], [math.sin(theta), -math.cos(theta)]])


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 2e-3), (torch.float64, 1e-9)])
def test_reflection_counter_counts_mod_3_for_10_000_steps(dtype, tol):
    res = lc.reflection_counter(3, 10_000, dtype)
    assert res.acc == 1.0 and res.best_acc == 1.0 and res.max_error < tol
    # Independent spectrum: H(π) H(−π/3) with numpy, the rotation by 4π/3.
    ev = np.linalg.eigvals(numpy_reflection(math.pi) @ numpy_reflection(-math.pi / 3))
    ev = ev[np.argsort(ev.imag)]
    assert np.allclose(ev, [cmath.exp(-2j * math.pi / 3), cmath.exp(2j * math.pi / 3)], atol=1e-12)
    assert np.allclose(np.array(res.product_eigenvalues), ev, atol=1e-6)
    assert min(abs(z.imag) for z in res.product_eigenvalues) > 0.86 and res.eigenvalue_error < 1e-6
    # Each transition alone is real (a reflection: eigenvalues 1 and −1).
    assert all(abs(z.imag) < 1e-12 for z in res.step_eigenvalues)
    assert sorted(round(z.real, 5) for z in res.step_eigenvalues) == [-1, -1, 1, 1]


def test_reflection_counter_readout_is_k_mod_m_by_hand():
    """The docstring's first readouts 1, 2, 0 and a second modulus (m = 5) on 1^k."""
    res5 = lc.reflection_counter(5, 2000, torch.float64)
    assert res5.acc == 1.0
    w = 4 * math.pi / 5
    assert np.allclose(sorted(res5.product_eigenvalues, key=lambda z: z.imag),
                       [cmath.exp(-1j * w), cmath.exp(1j * w)], atol=1e-12)
    short = lc.reflection_counter(3, 3, torch.float64)
    assert short.acc == 1.0 and short.max_error < 1e-15
