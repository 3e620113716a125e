"""BL Prop. 3: the frozen random diagonal network, its log-space state, its two-example readout, the predicted rates.

References are independent of the code under test: an fp64 direct product loop, the package's own
diagonal ``bilinear`` model in fp64, the parity task's labels, brute-force enumeration and Monte Carlo.
"""

import itertools
import math

import pytest
import torch

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import frozen_diagonal as fd


def direct_product(w: torch.Tensor, bits: torch.Tensor) -> torch.Tensor:
    """h_T by the literal recurrence h_t = w_{x_t} ⊙ h_{t−1}, h_0 = 1, fp64: (N, S, H)."""
    h = torch.ones(w.shape[0], bits.shape[0], w.shape[2], dtype=torch.float64)  # (N, S, H)
    for t in range(bits.shape[1]):
        h = h * w[:, bits[:, t]]  # (N, S, H)
    return h


def test_log_state_matches_the_direct_product_at_small_T():
    w = fd.draw_weights(5, 6, seed=0)  # (N, 2, H)
    bits = torch.randint(0, 2, (7, 40), generator=torch.Generator().manual_seed(1))  # (S, T)
    sign, logabs = fd.log_state(w, bits)
    h = direct_product(w, bits)
    assert torch.equal(sign, torch.sign(h))
    assert torch.allclose(logabs, h.abs().log(), rtol=0, atol=1e-10)


def test_log_state_matches_the_package_diagonal_model():
    """The same network as the package's ``bilinear`` diagonal variant (fp64, no normalization)."""
    w = fd.draw_weights(1, 5, seed=3)  # (1, 2, H)
    model = make_model(model_config("bilinear", d_model=5, variant="diagonal", normalize="none"), 3, 2).double()
    with torch.no_grad():
        model.transition.copy_(torch.cat([w[0], torch.ones(1, 5, dtype=torch.float64)]))  # bits 0, 1, PAD
    bits = torch.randint(0, 2, (4, 30), generator=torch.Generator().manual_seed(2))  # (S, T)
    with torch.no_grad():
        h = model.states(bits, torch.ones(5, dtype=torch.float64))[:, -1]  # (S, H)
    sign, logabs = fd.log_state(w, bits)
    assert torch.equal(sign[0], torch.sign(h))
    assert torch.allclose(logabs[0], h.abs().log(), atol=1e-10)


def test_log_state_stays_finite_where_the_product_does_not():
    w = torch.tensor([[[10.0, 0.01], [-10.0, 0.01]]], dtype=torch.float64)  # (1, 2, 2)
    bits = torch.ones(1, 501, dtype=torch.long)  # 501 ones
    sign, logabs = fd.log_state(w, bits)
    assert torch.isinf(direct_product(w, bits)).any() and direct_product(w, bits)[0, 0, 1] == 0
    assert sign.tolist() == [[[-1.0, 1.0]]]
    assert logabs[0, 0].tolist() == pytest.approx([501 * math.log(10), 501 * math.log(0.01)])


def test_normalized_features_are_the_unit_vector():
    w = fd.draw_weights(3, 4, seed=5)
    bits = torch.randint(0, 2, (6, 20), generator=torch.Generator().manual_seed(0))
    h = direct_product(w, bits)
    want = h / h.norm(dim=-1, keepdim=True)
    assert torch.allclose(fd.features(*fd.log_state(w, bits), "normalized"), want, atol=1e-12)


def test_readout_separates_two_words_and_ignores_constant_features():
    x = torch.tensor([[[1.0, 1.0, -1.0], [-1.0, 1.0, -1.0]]], dtype=torch.float64)  # (1, 2, H): unit 0 differs
    weights, bias = fd.fit_readout(x, torch.tensor([0, 1]))
    assert fd.predict(x, weights, bias).tolist() == [[0, 1]]
    assert weights[0, 0] < 0 and abs(weights[0, 1]) < 1e-6 and abs(weights[0, 2]) < 1e-6


def test_predicted_rate_against_brute_force_enumeration():
    """Enumerate all 4^H sign patterns (each (s0, s1) pair has probability 1/4)."""
    for H in (1, 2, 3, 4, 5):
        match = mismatch = 0
        for pattern in itertools.product(["A", "B", "same+", "same-"], repeat=H):
            a, b = pattern.count("A"), pattern.count("B")
            match += a + b > 0
            mismatch += a > b
        assert fd.predicted_rate(H, ("00", "01"), 500) == pytest.approx(match / 4**H)
        assert fd.predicted_rate(H, ("0", "1"), 501) == pytest.approx(match / 4**H)
        assert fd.predicted_rate(H, ("0", "1"), 500) == pytest.approx(mismatch / 4**H)


def test_mismatched_rate_stays_below_one_half():
    assert all(fd.predicted_rate(H, ("0", "1"), 500) < 0.5 for H in range(1, 65))


def test_binomial_interval_against_its_definition():
    n, p = 100, 0.75
    lo, hi = fd.binomial_interval(n, p, level=0.999)
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    assert sum(pmf[:lo]) <= 0.0005 < sum(pmf[:lo + 1])
    assert sum(pmf[hi + 1:]) <= 0.0005 < sum(pmf[hi:])
    assert fd.binomial_interval(100, 1.0) == (100, 100)


def test_sweep_matches_the_proof_draw_by_draw_and_uses_the_task_labels():
    rows = fd.sweep([1, 3], num_draws=30, test_len=40, num_test=64)
    assert all(r.agreement == 1.0 for r in rows)
    wrong = fd.sweep([3], num_draws=30, train_words=("0", "1"), test_len=40, num_test=64)
    assert wrong[0].agreement == 1.0 and wrong[0].predicted == fd.predicted_rate(3, ("0", "1"), 40)
    # Success rates against a Monte Carlo of the predicate itself, from independent draws.
    w = torch.randn(200_000, 2, 3, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    a, b = fd.unit_types(w)
    assert (a > b).double().mean().item() == pytest.approx(fd.predicted_rate(3, ("0", "1"), 40), abs=0.005)


@pytest.mark.parametrize("backend", ["fast", "reference"])
def test_sign_flip_parity_solves_parity_to_10000(backend):
    task = make_task(task_config("parity"))
    model = fd.sign_flip_parity(2, backend=backend)
    batch = task.sample(torch.Generator().manual_seed(1), 4, 10_000)
    with torch.no_grad():
        assert torch.equal(model(batch.inputs).argmax(-1), batch.targets)


@pytest.mark.parametrize("call,needle", [
    pytest.param(lambda: fd.draw_weights(0, 3, 0), "num_draws=0", id="draws"),
    pytest.param(lambda: fd.log_state(fd.draw_weights(1, 2, 0), torch.tensor([[0, 2]])), "values 0..2", id="bits"),
    pytest.param(lambda: fd.features(torch.ones(1, 1, 1), torch.ones(1, 1, 1), "raw"), "'raw'", id="feature"),
    pytest.param(lambda: fd.fit_readout(torch.ones(1, 2, 1), torch.tensor([0, 1]), l2=0.0), "l2=0.0", id="l2"),
    pytest.param(lambda: fd.sweep([1], 2, train_words=("00", "11")), "one must be even", id="same-parity"),
    pytest.param(lambda: fd.sweep([1], 2, train_words=("0", "01")), "two bit strings of one length", id="lengths"),
    pytest.param(lambda: fd.sign_flip_parity(0), "H=0", id="width"),
])
def test_bad_input_names_the_value(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()
