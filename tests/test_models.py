"""The contract every registered model keeps: shapes, causality, step rollout = forward, backends agree,
eigenvalues inside the declared range, one training step. New models are picked up from the registry."""

from typing import get_args, get_type_hints

import pytest
import torch

from helpers import rollout

from statetrack.config import ConfigError, RunConfig, TrainConfig
from statetrack.models import MODELS, make_model, model_config
from statetrack.runs.provenance import code_files
from statetrack.tasks import make_task, task_config

V, K = 5, 3
EXTRA = {"mamba": dict(d_state=4, expand=2, d_conv=4), "deltanet": dict(d_conv=4), "deltaproduct": dict(d_conv=4)}


def small(name: str, **kw):
    """A small config of any registered model (width 16; 2 heads where the model has heads)."""
    hints = get_type_hints(MODELS[name].Config)
    fields = {"d_model": 16}
    if "num_heads" in hints:
        fields["num_heads"] = 2
    fields.update(EXTRA.get(name, {}))
    return model_config(name, **{**fields, **kw})


def build(name: str, **kw):
    torch.manual_seed(0)
    return make_model(small(name, **kw), vocab_size=V, num_classes=K)


def backends(name: str) -> list[str]:
    hints = get_type_hints(MODELS[name].Config)
    return [b for b in get_args(hints["backend"]) if b != "fla"] if "backend" in hints else []


@pytest.mark.parametrize("name", sorted(MODELS))
def test_shapes_and_causality(name):
    model = build(name)
    x = torch.randint(0, V, (3, 12))
    y = model(x)
    assert y.shape == (3, 12, K)
    x2 = x.clone()
    x2[:, 7:] = (x2[:, 7:] + 1) % V  # change only the future
    torch.testing.assert_close(model(x2)[:, :7], y[:, :7], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_step_rollout_equals_forward(name):
    model = build(name).eval()
    x = torch.randint(0, V, (2, 40))  # longer than the 32-step chunks of the chunked fast paths
    with torch.no_grad():
        full = model(x)  # (B, T, K)
        steps, _ = rollout(model, x)  # (B, T, K)
    torch.testing.assert_close(steps, full, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", [n for n in sorted(MODELS) if len(backends(n)) > 1])
def test_backends_agree_on_the_same_weights(name):
    fast, ref = (build(name, backend=b) for b in ("fast", "reference"))
    ref.load_state_dict(fast.state_dict())
    x = torch.randint(0, V, (2, 45))
    torch.testing.assert_close(fast(x), ref(x), rtol=1e-5, atol=1e-5)


def _push_to_extremes(model):
    """Make the input-dependent step large, so a transition can reach its most negative eigenvalue."""
    with torch.no_grad():
        for block in model.blocks:
            mixer = block.mixer
            if hasattr(mixer, "dt_proj"):
                mixer.dt_proj.bias.fill_(3.0)  # Mamba: Δ ≈ 3, s = exp(-3 e^{A_log}) ≈ 0
            if hasattr(mixer, "b_proj"):
                mixer.b_proj.bias.fill_(4.0)  # DeltaNet family: sigmoid ≈ 0.98


EIG_MODELS = [n for n in sorted(MODELS) if "eig_range" in get_type_hints(MODELS[n].Config)]


@pytest.mark.parametrize("name", EIG_MODELS)
def test_eigenvalues_stay_in_the_declared_range(name):
    x = torch.randint(0, V, (4, 20))
    pos, neg = build(name, eig_range="[0,1]"), build(name, eig_range="[-1,1]")
    for m in (pos, neg):
        _push_to_extremes(m)
    with torch.no_grad():
        ev_pos = torch.cat([e.flatten() for e in pos.transition_eigenvalues(x)])
        ev_neg = torch.cat([e.flatten() for e in neg.transition_eigenvalues(x)])
    tol = 1e-5
    # [0,1]: every eigenvalue real and in [0, 1] (for products of <= 2 GH factors, NE Prop. 1.3).
    assert ev_pos.imag.abs().max() <= tol if ev_pos.is_complex() else True
    assert ev_pos.real.min() >= -tol and ev_pos.real.max() <= 1 + tol
    # [-1,1]: modulus <= 1, and negative (or non-real) eigenvalues do appear.
    assert ev_neg.abs().max() <= 1 + tol
    assert ev_neg.real.min() < -0.5


@pytest.mark.parametrize("name", sorted(MODELS))
def test_one_training_step_is_finite(name):
    from statetrack.training import fit

    task = make_task(task_config("modular_addition", modulus=K))
    cfg = RunConfig(task=task.cfg, model=small(name), train=TrainConfig(num_steps=2, batch_size=4, warmup_steps=0,
                                                                        min_len=6, max_len=6, log_every=1))
    torch.manual_seed(0)
    model = make_model(cfg.model, task.vocab_size, task.num_classes)
    res = fit(model, task, cfg.train, 0, torch.device("cpu"))
    assert res.status == "ok" and all(torch.isfinite(torch.tensor(res.history["loss"])))


def test_a_run_hashes_only_the_code_it_executes():
    cfg = RunConfig(task=task_config("parity"), model=model_config("mamba"))
    files = {f.as_posix().split("statetrack/")[-1] for f in code_files(cfg)}
    assert {"training.py", "evaluate.py", "tasks/parity.py", "models/lrnn.py", "models/ops/diagonal.py"} <= files
    assert not {"models/bilinear.py", "tasks/groups.py", "cli.py", "config.py"} & files


def test_bad_model_fields():
    with pytest.raises(ConfigError, match="eig_range"):
        model_config("mamba", eig_range="[0,2]")
    with pytest.raises(ConfigError, match="d_state=0"):
        model_config("mamba", d_state=0)
    with pytest.raises(ConfigError, match="unknown model 'gru'"):
        model_config("gru")


@pytest.mark.parametrize("width", [2, 4])
def test_short_conv_equals_causal_conv1d(width):
    """ShortConv's shifted multiply-adds equal torch's depthwise conv1d with causal padding, in fp64, and so
    do their gradients (the independent computation the layer's weights are laid out for)."""
    from torch.nn import functional as F

    from statetrack.models.layers import ShortConv

    torch.manual_seed(0)
    conv = ShortConv(6, width).double()
    x = torch.randn(3, 7, 6, dtype=torch.float64, requires_grad=True)  # (B, T, C)
    y = conv(x)  # (B, T, C)
    ref = F.silu(F.conv1d(x.transpose(1, 2), conv.conv.weight, conv.conv.bias, padding=width - 1,
                          groups=6)[..., :7].transpose(1, 2))  # (B, T, C)
    torch.testing.assert_close(y, ref, rtol=1e-12, atol=1e-12)
    g = torch.randn_like(y)
    got = torch.autograd.grad(y, (x, conv.conv.weight, conv.conv.bias), g)
    want = torch.autograd.grad(ref, (x, conv.conv.weight, conv.conv.bias), g)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
