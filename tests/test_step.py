"""``step()`` rollouts equal ``forward()`` for every model that has a step (the contract in models/model.py).

A rollout feeds one token at a time from ``init_state``; its logits must equal the full-sequence
forward at every position. The step paths share no sequence code with the forward paths (the short
convolution is an explicit window sum instead of conv1d, the delta rule and the diagonal scan are
rank-one / elementwise updates instead of the chunked or custom-gradient ops, attention reads a
key-value cache), so agreement checks both.

Tolerances: fp64 models, ``‖step − forward‖ / ‖forward‖ < 1e-10`` (only summation order differs;
measured ≤ 1e-15); one fp32 case per model with 1e-5.

Runtime: about 2 s on 2 CPU threads.
"""

from __future__ import annotations

import pytest
import torch

from statetrack.models import make_model, model_config
from helpers import rel_err, rollout

CASES = [
    # (model name, config fields)
    pytest.param("mamba", dict(d_model=16, d_state=4, expand=2, d_conv=4), id="mamba-conv4"),
    pytest.param("mamba", dict(d_model=16, d_state=4, expand=2, d_conv=0, eig_range="[-1,1]"), id="mamba-noconv-neg"),
    pytest.param("mamba", dict(d_model=16, d_state=4, expand=1, d_conv=2, num_layers=2), id="mamba-conv2-2layers"),
    pytest.param("deltanet", dict(d_model=16, num_heads=2, d_conv=4), id="deltanet-conv4"),
    pytest.param("deltanet", dict(d_model=16, num_heads=2, d_conv=0, eig_range="[-1,1]"), id="deltanet-noconv-neg"),
    pytest.param("deltanet", dict(d_model=16, num_heads=4, d_conv=3, num_layers=2, mlp_ratio=0),
                 id="deltanet-conv3-2layers-nomlp"),
    pytest.param("deltaproduct", dict(d_model=16, num_heads=2, d_conv=4, num_householder=2), id="deltaproduct-nh2"),
    pytest.param("deltaproduct", dict(d_model=16, num_heads=2, d_conv=0, num_householder=3, eig_range="[-1,1]"),
                 id="deltaproduct-nh3-noconv-neg"),
    pytest.param("deltaproduct", dict(d_model=16, num_heads=2, d_conv=4, num_householder=1), id="deltaproduct-nh1"),
    pytest.param("transformer", dict(d_model=16, num_heads=2), id="transformer-learned"),
    pytest.param("transformer", dict(d_model=16, num_heads=4, positions="rotary", num_layers=2), id="transformer-rotary"),
    pytest.param("transformer", dict(d_model=16, num_heads=2, backend="reference", max_len=25),
                 id="transformer-reference-maxlen25"),
]


def build(name, dtype=torch.float64, **fields):
    torch.manual_seed(0)
    model = make_model(model_config(name, **fields), vocab_size=5, num_classes=3).to(dtype)
    with torch.no_grad():  # make the layers' outputs matter: GPT-2's init keeps the Transformer's tiny
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return model


@pytest.mark.parametrize("name, fields", CASES)
def test_step_rollout_equals_forward(name, fields):
    model = build(name, **fields)
    tokens = torch.randint(0, 5, (3, 25), generator=torch.Generator().manual_seed(1))  # (B, T)
    with torch.no_grad():
        want = model(tokens)  # (B, T, K)
        got, _ = rollout(model, tokens)
    assert got.shape == want.shape
    assert rel_err(got, want) < 1e-10


@pytest.mark.parametrize(
    "name, fields, expected",
    [
        # (B, E·D, N) recurrent state, then the conv buffer (B, E·D, d_conv − 1)
        pytest.param("mamba", dict(d_model=8, d_state=4, expand=2, d_conv=4), [(2, 16, 4), (2, 16, 3)], id="mamba"),
        pytest.param("mamba", dict(d_model=8, d_state=4, expand=2, d_conv=0), [(2, 16, 4)], id="mamba-noconv"),
        # (B, H, d, d), then q, k, v conv buffers (k and v carry n_h·D channels)
        pytest.param("deltanet", dict(d_model=8, num_heads=2, d_conv=3), [(2, 2, 4, 4), (2, 8, 2), (2, 8, 2), (2, 8, 2)],
                     id="deltanet"),
        pytest.param("deltanet", dict(d_model=8, num_heads=2, d_conv=0), [(2, 2, 4, 4)], id="deltanet-noconv"),
        pytest.param("deltaproduct", dict(d_model=8, num_heads=2, d_conv=2, num_householder=3),
                     [(2, 2, 4, 4), (2, 8, 1), (2, 24, 1), (2, 24, 1)], id="deltaproduct"),
        # an empty key-value cache, (B, H, 0, d) twice
        pytest.param("transformer", dict(d_model=8, num_heads=2), [(2, 2, 0, 4), (2, 2, 0, 4)], id="transformer"),
    ],
)
def test_init_state_is_zeros_of_the_documented_shapes(name, fields, expected):
    model = build(name, **fields)
    state = model.init_state(2)
    assert len(state) == model.cfg.num_layers
    layer = state[0]
    assert isinstance(layer, tuple) and all(isinstance(t, torch.Tensor) for t in layer)
    assert [tuple(t.shape) for t in layer] == expected
    assert all(t.dtype == torch.float64 and not t.any() for t in layer)


def test_step_state_carries_the_whole_history():
    """Two rollouts that differ only in the first token must differ at the last one (the state is used)."""
    model = build("deltanet", d_model=16, num_heads=2, d_conv=0, eig_range="[-1,1]")
    a = torch.tensor([[1, 2, 3, 4, 0, 1, 2]])  # (1, T)
    b = a.clone()
    b[0, 0] = 4
    with torch.no_grad():
        ya, _ = rollout(model, a)
        yb, _ = rollout(model, b)
    assert not torch.allclose(ya[:, -1], yb[:, -1])
