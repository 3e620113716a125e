"""GPU checks (``-m gpu``; every test is skipped without CUDA): same numbers on CUDA as on the CPU.

1. Every registered model, forward and backward on CUDA in fp32 with TF32 off, against the same
   model in fp64 on the CPU: norm-relative error of logits and of all parameter gradients < 1e-4
   (CPU fp32 against the same reference: ≤ 4e-7 on logits, ≤ 7e-6 on gradients for every model
   registered today; TF32 would be ~1e-3).
2. The fla backend (skipped unless fla imports): fla's bf16 Triton kernel against our fp32 chunked
   op, within bf16 tolerance (3e-2 on outputs and states, 1e-1 on gradients; fla rounds the state
   to bf16 every chunk), and the layer really uses it (no fallback warning).
3. ``models.cuda.cuda_graph_mixers``: the CUDA-graphed forward + backward equals eager over two training
   steps (so in-place parameter updates reach the graph), and other shapes fall back to eager.

Not run on CI (no GPU). Not yet run on a GPU at all: the session that wrote them had none, so the
first GPU run is also their first check (the CPU halves of 1 were run: see the numbers above).
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
from torch import nn

from statetrack.models import MODELS, make_model, model_config
from statetrack.models.cuda import cuda_graph_mixers
from statetrack.models.ops import delta as delta_module
from statetrack.models.ops import (
    PAIRS,
    delta_product_chunked,
    delta_product_fla,
    delta_rule_chunked,
    delta_rule_fla,
)
from helpers import rel_err

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


@pytest.fixture(autouse=True)
def no_tf32():
    """State recurrences in true fp32 (TF32 off). Restores the caller's flags afterwards."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def as_fp64_reference(model):
    """An fp64 copy computing the same function as the fp32 model.

    ``nn.RMSNorm(eps=None)`` (DeltaNet's output norm) uses ``finfo(dtype).eps``: 1.2e-7 in fp32 but
    2.2e-16 in fp64, which changes the function where the read-out S_tᵀ q_t is small (rel. 2e-2 on
    logits measured on CPU). Pin the fp32 value so the copy differs only by rounding.
    """
    ref = copy.deepcopy(model).double()
    for m in ref.modules():
        if isinstance(m, nn.RMSNorm) and m.eps is None:
            m.eps = torch.finfo(torch.float32).eps
    return ref


def loss_and_grads(model, tokens):
    logits = model(tokens)  # (B, T, K)
    loss = logits.double().sin().sum()  # any smooth scalar whose gradient reaches every logit
    grads = torch.autograd.grad(loss, [p for p in model.parameters() if p.requires_grad])
    return logits, torch.cat([g.flatten().double().cpu() for g in grads])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_on_cuda_matches_the_cpu_in_fp32(name):
    torch.manual_seed(0)
    model = make_model(model_config(name, d_model=32, num_layers=2), vocab_size=5, num_classes=3)
    tokens = torch.randint(0, 5, (4, 40), generator=torch.Generator().manual_seed(1))  # (B, T)
    ref_logits, ref_grads = loss_and_grads(as_fp64_reference(model), tokens)  # CPU fp64
    logits, grads = loss_and_grads(copy.deepcopy(model).cuda(), tokens.cuda())  # CUDA fp32
    assert logits.device.type == "cuda" and logits.dtype == torch.float32
    assert rel_err(logits, ref_logits) < 1e-4
    assert rel_err(grads, ref_grads) < 1e-4


# ---------------------------------------------------------------------------------------------------------
# fla (optional)
# ---------------------------------------------------------------------------------------------------------


def fallback_warnings(caught):
    """Our fallback warnings among those recorded (fla's own warnings, e.g. deprecations, are not ours)."""
    return [str(w.message) for w in caught if "backend='fla'" in str(w.message)]


def _cuda_inputs(pair, size, T):
    cpu = pair.make_inputs(size, T, torch.float32, "cpu", torch.Generator().manual_seed(2))
    return [x.cuda().requires_grad_() for x in cpu]


@pytest.mark.parametrize("pair_name, fla_fn, ours, size", [
    pytest.param("delta_rule", delta_rule_fla, delta_rule_chunked, {"B": 4, "H": 4, "dk": 64}, id="deltanet"),
    pytest.param("delta_product", delta_product_fla, delta_product_chunked, {"B": 4, "H": 4, "dk": 64, "n_h": 2},
                 id="deltaproduct-nh2"),
])
def test_fla_agrees_with_our_chunked_op_within_bf16(pair_name, fla_fn, ours, size, monkeypatch):
    pytest.importorskip("fla.ops.delta_rule")
    monkeypatch.setattr(delta_module, "_FLA_WARNED", set())  # so that a fallback would warn here
    pair = PAIRS[pair_name]
    inputs = _cuda_inputs(pair, size, 200)  # T = 200: not a multiple of fla's chunk of 64
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        o_fla, S_fla = fla_fn(*inputs)
    assert not fallback_warnings(caught)  # fla was really used
    o, S = ours(*inputs)
    assert o_fla.dtype == torch.float32 and o_fla.shape == o.shape and S_fla.shape == S.shape
    assert rel_err(o_fla, o) < 3e-2
    assert rel_err(S_fla, S) < 3e-2
    gen = torch.Generator().manual_seed(3)
    up = [torch.randn(t.shape, generator=gen).cuda() for t in (o, S)]
    g_fla = torch.autograd.grad((o_fla, S_fla), inputs, up)
    g = torch.autograd.grad((o, S), inputs, up)
    for i, (a, b) in enumerate(zip(g_fla, g)):
        assert rel_err(a, b) < 1e-1, f"grad of input {i}"


@pytest.mark.parametrize("name", ["deltanet", "deltaproduct"])
def test_fla_backend_layer_uses_fla_on_cuda(name, monkeypatch):
    pytest.importorskip("fla.ops.delta_rule")
    monkeypatch.setattr(delta_module, "_FLA_WARNED", set())
    torch.manual_seed(0)
    fields = dict(d_model=64, num_heads=2, eig_range="[-1,1]")
    fla = make_model(model_config(name, backend="fla", **fields), 5, 3).cuda()
    fast = make_model(model_config(name, **fields), 5, 3).cuda()
    fast.load_state_dict(fla.state_dict())
    tokens = torch.randint(0, 5, (8, 100), device="cuda")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = fla(tokens)
    assert not fallback_warnings(caught)
    assert rel_err(y, fast(tokens)) < 3e-2


# ---------------------------------------------------------------------------------------------------------
# CUDA graphs (optional helper)
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mamba", "deltanet"])
def test_cuda_graphed_mixers_equal_eager_over_two_training_steps(name):
    torch.manual_seed(0)
    eager = make_model(model_config(name, d_model=32, num_layers=2), 5, 3).cuda()
    graphed = cuda_graph_mixers(copy.deepcopy(eager), batch=8, length=32)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, graphed)]
    gen = torch.Generator().manual_seed(4)
    for _ in range(2):
        tokens = torch.randint(0, 5, (8, 32), generator=gen).cuda()  # the captured shape
        outs = []
        for model, opt in zip((eager, graphed), opts):
            opt.zero_grad()
            logits = model(tokens)  # (B, T, K)
            logits.square().mean().backward()
            outs.append((logits.detach().clone(), [p.grad.clone() for p in model.parameters()]))
            opt.step()
        (y_e, g_e), (y_g, g_g) = outs
        assert rel_err(y_g, y_e) < 1e-5
        for a, b in zip(g_g, g_e):
            assert rel_err(a, b) < 1e-5
    other = torch.randint(0, 5, (3, 17), generator=gen).cuda()  # another shape: the eager forward
    assert rel_err(graphed(other), eager(other)) < 1e-5
