"""Tests for the Elman and LSTM baselines: ``ops/rnn.py`` and the ``elman`` / ``lstm`` models.

Ground truth:
- the fp64 Python-loop references (``elman_sequential``, ``lstm_sequential``) for the native kernels,
  on outputs, final states and the gradient of every input (x, weights, biases, initial state);
- independently of both, torch's own ``nn.RNN`` / ``nn.LSTM`` modules holding the same weights
  (pins the private ``_VF`` calls and the reference's gate order i, f, g, o), and a hand-worked case.

Tolerances are norm-relative, ``‖x − ref‖ / ‖ref‖``: fp32 fast path vs fp64 reference 1e-5 (measured
≤ 3e-7 on outputs and states and ≤ 2e-6 on gradients at T = 37; a wrong gate order or a bf16 leak
is ≥ 1e-3), fp64 vs fp64 1e-12 (summation order only). Model-level fp32 comparisons use 1e-5.

Runtime: about 5 s on 2 CPU threads, most of it the smoke training.
"""

from __future__ import annotations

import math

import pytest
import torch

from statetrack.config import ConfigError, TrainConfig
from statetrack.models import make_model, model_config
from statetrack.models.ops import PAIRS, elman_native, elman_sequential, lstm_native, lstm_sequential
from statetrack.tasks import make_task, task_config
from statetrack.training import fit
from helpers import rel_err, rollout

FP32_TOL = 1e-5
FP64_TOL = 1e-12


def check_against_reference(fast, reference, inputs, gen):
    """``fast`` in fp32 and fp64 against ``reference`` in fp64: every output and every input's gradient."""
    leaves64 = [None if x is None else x.detach().double().requires_grad_() for x in inputs]
    ref_out = reference(*leaves64)
    upstream = [torch.randn(o.shape, generator=gen, dtype=torch.float64) for o in ref_out]
    with_grad = [x for x in leaves64 if x is not None]
    ref_grads = torch.autograd.grad(ref_out, with_grad, upstream)
    for dtype, tol in ((torch.float32, FP32_TOL), (torch.float64, FP64_TOL)):
        leaves = [None if x is None else x.detach().to(dtype).requires_grad_() for x in inputs]
        out = fast(*leaves)
        assert len(out) == len(ref_out)
        for i, (got, want) in enumerate(zip(out, ref_out)):
            assert got.dtype == dtype and got.shape == want.shape
            assert rel_err(got, want) < tol, f"{dtype} output {i}: {rel_err(got, want):.1e}"
        grads = torch.autograd.grad(out, [x for x in leaves if x is not None], [u.to(dtype) for u in upstream])
        for i, (got, want) in enumerate(zip(grads, ref_grads)):
            assert rel_err(got, want) < tol, f"{dtype} grad of input {i}: {rel_err(got, want):.1e}"


# ---------------------------------------------------------------------------------------------------------
# Ops: native kernels against the fp64 loops
# ---------------------------------------------------------------------------------------------------------

OP_CASES = [
    pytest.param(37, True, id="T37-h0"),
    pytest.param(37, False, id="T37-zero-h0"),
    pytest.param(1, True, id="T1-h0"),
]


@pytest.mark.parametrize("T, with_state", OP_CASES)
@pytest.mark.parametrize(
    "name, fast, reference",
    [("elman", elman_native, elman_sequential), ("lstm", lstm_native, lstm_sequential)],
    ids=["elman", "lstm"],
)
def test_native_matches_fp64_reference(name, fast, reference, T, with_state):
    gen = torch.Generator().manual_seed(0)
    inputs = list(PAIRS[name].make_inputs({"B": 3, "D": 8, "d_in": 5}, T, torch.float64, "cpu", gen))
    if not with_state:
        inputs = inputs[:5]  # x and the four weights; the state defaults to zeros
    check_against_reference(fast, reference, inputs, gen)


@pytest.mark.parametrize("num_layers", [1, 2])
def test_reference_matches_torch_modules(num_layers):
    """nn.RNN / nn.LSTM with the same weights (an implementation independent of our loops), fp64."""
    torch.manual_seed(1)
    x = torch.randn(2, 9, 4, dtype=torch.float64)  # (B, T, D_in)
    for module, loop in ((torch.nn.RNN(4, 6, num_layers, batch_first=True), elman_sequential),
                         (torch.nn.LSTM(4, 6, num_layers, batch_first=True), lstm_sequential)):
        module = module.double()
        h0 = torch.randn(num_layers, 2, 6, dtype=torch.float64)  # (L, B, D)
        c0 = torch.randn(num_layers, 2, 6, dtype=torch.float64)  # (L, B, D)
        is_lstm = isinstance(module, torch.nn.LSTM)
        want, want_state = module(x, (h0, c0) if is_lstm else h0)
        y = x
        finals = []
        for layer in range(num_layers):
            weights = [getattr(module, f"{w}_l{layer}") for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            state = (h0[layer], c0[layer]) if is_lstm else (h0[layer],)
            y, *last = loop(y, *weights, *state)
            finals.append(last)
        assert rel_err(y, want) < FP64_TOL
        if is_lstm:
            assert rel_err(torch.stack([f[0] for f in finals]), want_state[0]) < FP64_TOL
            assert rel_err(torch.stack([f[1] for f in finals]), want_state[1]) < FP64_TOL
        else:
            assert rel_err(torch.stack([f[0] for f in finals]), want_state) < FP64_TOL


@pytest.mark.parametrize("fn", [elman_sequential, elman_native], ids=["sequential", "native"])
def test_elman_hand_worked(fn):
    # D = 1, W_ih = 1, W_hh = 0.5, biases 0, h0 = 0: h_1 = tanh(0.5), h_2 = tanh(-0.5 + 0.5 tanh(0.5)).
    one = torch.ones(1, 1, dtype=torch.float64)
    x = torch.tensor([[[0.5], [-0.5]]], dtype=torch.float64)  # (B, T, 1)
    h, last = fn(x, one, 0.5 * one, torch.zeros(1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64))
    h1 = math.tanh(0.5)
    assert h.flatten().tolist() == pytest.approx([h1, math.tanh(-0.5 + 0.5 * h1)], abs=1e-15)
    assert last.item() == pytest.approx(math.tanh(-0.5 + 0.5 * h1), abs=1e-15)


@pytest.mark.parametrize("fn", [lstm_sequential, lstm_native], ids=["sequential", "native"])
def test_lstm_hand_worked_gate_order(fn):
    """Gates are (i, f, g, o) along 4·D: only the f pre-activation is large, so c = c0 and h = σ(0)·tanh(c0)."""
    W_ih = torch.zeros(4, 1, dtype=torch.float64)  # (4·D, D_in)
    W_hh = torch.zeros(4, 1, dtype=torch.float64)  # (4·D, D)
    b_ih = torch.tensor([-50.0, 50.0, 0.0, 0.0], dtype=torch.float64)  # i closed, f open, g = 0, o = ½
    b_hh = torch.zeros(4, dtype=torch.float64)
    x = torch.zeros(1, 3, 1, dtype=torch.float64)  # (B, T, 1)
    c0 = torch.full((1, 1), 0.8, dtype=torch.float64)  # (B, D)
    h, h_last, c_last = fn(x, W_ih, W_hh, b_ih, b_hh, torch.zeros(1, 1, dtype=torch.float64), c0)
    assert c_last.item() == pytest.approx(0.8, abs=1e-15)
    assert h.flatten().tolist() == pytest.approx([0.5 * math.tanh(0.8)] * 3, abs=1e-15)


# ---------------------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------------------

MODEL_CASES = [
    pytest.param("elman", dict(d_model=12, d_embed=5), id="elman"),
    pytest.param("lstm", dict(d_model=12, d_embed=5), id="lstm"),
    pytest.param("lstm", dict(d_model=8, d_embed=3, num_layers=2), id="lstm-2layers"),
    pytest.param("elman", dict(d_model=8, d_embed=3, num_layers=3), id="elman-3layers"),
]


def build(name, dtype=torch.float32, **fields):
    torch.manual_seed(0)
    return make_model(model_config(name, **fields), vocab_size=6, num_classes=4).to(dtype)


@pytest.mark.parametrize("name, fields", MODEL_CASES)
def test_model_backends_agree_on_the_same_weights(name, fields):
    fast = build(name, **fields, backend="fast")
    ref = build(name, **fields, backend="reference")
    ref.load_state_dict(fast.state_dict())  # the same tensors' values; the state dicts have the same keys
    tokens = torch.randint(0, 6, (3, 41), generator=torch.Generator().manual_seed(1))  # (B, T)
    y_fast, y_ref = fast(tokens), ref(tokens)  # (B, T, K)
    assert y_fast.shape == (3, 41, 4)
    assert rel_err(y_fast, y_ref) < FP32_TOL
    g_fast = torch.autograd.grad(y_fast.sin().sum(), list(fast.parameters()))
    g_ref = torch.autograd.grad(y_ref.sin().sum(), list(ref.parameters()))
    for a, b in zip(g_fast, g_ref):
        assert rel_err(a, b) < 1e-4  # fp32 gradients summed over 41 steps (measured ≤ 1e-6)


@pytest.mark.parametrize("backend", ["fast", "reference"])
@pytest.mark.parametrize("name, fields", MODEL_CASES)
def test_step_rollout_equals_forward(name, fields, backend):
    model = build(name, torch.float64, **fields, backend=backend)
    tokens = torch.randint(0, 6, (2, 15), generator=torch.Generator().manual_seed(2))  # (B, T)
    got, _ = rollout(model, tokens)  # (B, T, K)
    assert rel_err(got, model(tokens)) < 1e-12


@pytest.mark.parametrize("backend", ["fast", "reference"])
@pytest.mark.parametrize("name", ["elman", "lstm"])
def test_causality(name, backend):
    model = build(name, d_model=8, d_embed=4, num_layers=2, backend=backend)
    tokens = torch.randint(0, 6, (3, 12), generator=torch.Generator().manual_seed(3))  # (B, T)
    changed = tokens.clone()
    changed[:, 7:] = (changed[:, 7:] + 1) % 6  # only the future changes
    y, y2 = model(tokens), model(changed)
    assert torch.equal(y[:, :7], y2[:, :7])
    assert not torch.allclose(y[:, 7:], y2[:, 7:])


def test_defaults_are_the_bl_lstm_baseline():
    cfg = model_config("lstm")
    assert (cfg.d_model, cfg.d_embed, cfg.num_layers, cfg.backend) == (128, 32, 1, "fast")
    assert cfg.label == "lstm-128" and model_config("elman", d_model=64).label == "elman-64"
    model = make_model(cfg, vocab_size=6, num_classes=5)
    assert model.rnn.weight_ih_l0.shape == (4 * 128, 32)


@pytest.mark.parametrize("name", ["elman", "lstm"])
def test_bad_config_values(name):
    with pytest.raises(ConfigError, match="d_embed=0"):
        model_config(name, d_embed=0)
    with pytest.raises(ConfigError, match="num_layers=0"):
        model_config(name, num_layers=0)
    with pytest.raises(ConfigError, match="backend"):
        model_config(name, backend="cudnn")
    with pytest.raises(ConfigError, match="d_model"):
        model_config(name, d_model=-3)


# ---------------------------------------------------------------------------------------------------------
# Smoke training
# ---------------------------------------------------------------------------------------------------------


def test_lstm_learns_modular_addition_mod5():
    """BL's LSTM baseline (D = 128, embedding 32) on Z_5 with a label at every position.

    The loss falls from ln 5 ≈ 1.61 to ≈ 0.01 within 150 steps (seeds 0-3 measured: 0.011-0.012 at
    the end, < 0.05 from step 80 on; about 1 s on 2 quiet threads); the test asks for < 0.2.
    """
    task = make_task(task_config("modular_addition", modulus=5))
    torch.manual_seed(0)
    model = make_model(model_config("lstm"), task.vocab_size, task.num_classes)
    cfg = TrainConfig(num_steps=150, batch_size=64, lr=5e-3, warmup_steps=10, min_len=2, max_len=10, log_every=10)
    res = fit(model, task, cfg, seed=0, device=torch.device("cpu"))
    losses = res.history["loss"]
    assert res.status == "ok"
    assert losses[0] > 1.4
    assert losses[-1] < 0.2


# ---------------------------------------------------------------------------------------------------------
# CUDA (skipped without one)
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("name", ["elman", "lstm"])
def test_cudnn_matches_cpu_fp64_reference(name):
    pair = PAIRS[name]
    gen = torch.Generator().manual_seed(4)
    inputs = pair.make_inputs({"B": 3, "D": 16, "d_in": 8}, 37, torch.float64, "cpu", gen)
    ref = pair.reference(*inputs)
    saved = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False  # state recurrences in true fp32
    try:
        leaves = [x.float().cuda().requires_grad_() for x in inputs]
        out = pair.fast(*leaves)
        torch.autograd.grad([o.sum() for o in out], leaves)  # cuDNN's backward runs (train flag set)
    finally:
        torch.backends.cudnn.allow_tf32 = saved
    for got, want in zip(out, ref):
        assert got.device.type == "cuda"
        assert rel_err(got.cpu(), want) < FP32_TOL
