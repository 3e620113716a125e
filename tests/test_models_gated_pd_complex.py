"""The follow-up model families ``gated_deltanet``, ``pd_ssm`` and ``complex_diagonal``: registry, step
rollouts, backends, spectra and the straight-through estimator. (tests/test_models.py also runs its
generic contract over them, as over every registered model.)

Spectra, per family (the transition classes of ``theory.predictions``):

- gated_deltanet: eigenvalues {α, α(1 − β)}, real; in [0, 1] for eig_range [0,1], in [−1, 1] and
  reaching below −½ for [−1,1]; α ≤ 1.
- pd_ssm: P column one-hot (exactly, in value), |λ| ≤ max |D| < 1, non-real eigenvalues present.
- complex_diagonal: |λ| ≤ 1 with non-real eigenvalues for rotation "data"; real in (0, 1] for "none".

Tolerances: fp64 models, step vs forward and fast vs reference ``1e-10`` (only summation order differs).

Runtime: about 8 s on 2 idle CPU threads (lengths 34–35: two chunks of every chunked fast path).
"""

from __future__ import annotations

import pytest
import torch

from helpers import rel_err, rollout
from statetrack.config import ConfigError, RunConfig
from statetrack.models import MODELS, make_model, model_config
from statetrack.runs.provenance import code_files
from statetrack.tasks import task_config

V, K = 5, 3
CASES = [
    pytest.param("gated_deltanet", dict(num_heads=2, d_conv=4), id="gdn-pos-conv4"),
    pytest.param("gated_deltanet", dict(num_heads=2, d_conv=0, eig_range="[-1,1]"), id="gdn-neg-noconv"),
    pytest.param("gated_deltanet", dict(num_heads=4, d_conv=3, num_layers=2, eig_range="[-1,1]"), id="gdn-2layers"),
    pytest.param("pd_ssm", dict(d_state=6, dict_size=4), id="pd-e1"),
    pytest.param("pd_ssm", dict(d_state=5, dict_size=3, init_state="zero", num_layers=2, mlp_ratio=2), id="pd-zero-2layers"),
    pytest.param("complex_diagonal", dict(d_state=4, num_heads=2), id="cd-data-noconv"),
    pytest.param("complex_diagonal", dict(d_state=3, num_heads=4, d_conv=4, num_layers=2), id="cd-data-conv4-2layers"),
    pytest.param("complex_diagonal", dict(d_state=4, num_heads=2, rotation="none"), id="cd-none"),
]


def build(name, dtype=torch.float64, **fields):
    torch.manual_seed(0)
    model = make_model(model_config(name, d_model=16, **fields), vocab_size=V, num_classes=K).to(dtype)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return model


def tokens(B=2, T=34, seed=1):
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(seed))  # (B, T)


def test_registered_and_listed():
    assert {"gated_deltanet", "pd_ssm", "complex_diagonal"} <= set(MODELS)
    for name in ("gated_deltanet", "pd_ssm", "complex_diagonal"):
        assert MODELS[name].Config.__doc__.strip()


@pytest.mark.parametrize("name, fields", CASES)
def test_step_rollout_equals_forward(name, fields):
    model = build(name, **fields)
    x = tokens()
    with torch.no_grad():
        want = model(x)  # (B, T, K)
        got, _ = rollout(model, x)
    assert rel_err(got, want) < 1e-10


@pytest.mark.parametrize("name, fields", CASES)
def test_fast_and_reference_backends_agree_with_gradients(name, fields):
    fast, ref = build(name, backend="fast", **fields), build(name, backend="reference", **fields)
    ref.load_state_dict(fast.state_dict())
    x = tokens(T=35)
    y_fast, y_ref = fast(x), ref(x)
    assert rel_err(y_fast, y_ref) < 1e-10
    g = torch.randn(y_ref.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    y_fast.backward(g)
    y_ref.backward(g)
    for (n, p), q in zip(fast.named_parameters(), ref.parameters()):
        assert rel_err(p.grad, q.grad) < 1e-10, n


def _all_eigenvalues(model, x):
    with torch.no_grad():
        return torch.cat([e.flatten() for e in model.transition_eigenvalues(x)])


@pytest.mark.parametrize("eig_range", ["[0,1]", "[-1,1]"])
def test_gated_deltanet_spectrum(eig_range):
    model = build("gated_deltanet", num_heads=4, eig_range=eig_range, num_layers=2)
    with torch.no_grad():
        for block in model.blocks:
            block.mixer.b_proj.bias.fill_(4.0)  # β near its maximum
            block.mixer.A_log.fill_(-6.0)  # gate α near 1, so α(1 − β) can approach −1
    ev = _all_eigenvalues(model, tokens())
    assert not ev.is_complex()
    assert ev.max() <= 1 + 1e-12
    if eig_range == "[0,1]":
        assert ev.min() >= -1e-12
    else:
        assert ev.min() >= -1 - 1e-12 and ev.min() < -0.5


def test_pd_ssm_structure_is_column_one_hot_and_spectrum_inside_the_unit_disc():
    model = build("pd_ssm", d_state=6, dict_size=4)
    mixer = model.blocks[0].mixer
    x = model.embed(tokens())  # (B, T, D)
    P = mixer.structure(x)  # (B, T, N, N)
    assert set(P.detach().unique().tolist()) <= {0.0, 1.0}
    assert torch.equal(P.detach().sum(-2), torch.ones(P.shape[:-2] + P.shape[-1:], dtype=P.dtype))
    with torch.no_grad():
        r = torch.sigmoid(mixer.mag(x))  # (B, T, N)
        ev = mixer.transition_eigenvalues(x)  # (B, T, N)
    assert (ev.abs() <= r.max(-1, keepdim=True).values + 1e-10).all()
    assert ev.abs().max() < 1
    assert ev.imag.abs().max() > 0.1  # complex eigenvalues occur


def test_pd_ssm_straight_through_gradient_reaches_the_dictionary():
    """P is a hardmax in the forward pass; the softmax STE must still train the selection and the dictionary."""
    model = build("pd_ssm", d_state=6, dict_size=4)
    model(tokens(T=20)).square().sum().backward()
    mixer = model.blocks[0].mixer
    assert mixer.dictionary.grad.abs().sum() > 0 and mixer.select.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("rotation", ["data", "none"])
def test_complex_diagonal_spectrum(rotation):
    model = build("complex_diagonal", d_state=4, num_heads=2, rotation=rotation, num_layers=2)
    with torch.no_grad():
        for block in model.blocks:
            block.mixer.dt_bias.fill_(1.0)  # Δ ≈ 1.3: rotations of order one radian
    ev = _all_eigenvalues(model, tokens())
    assert ev.is_complex()
    assert ev.abs().max() <= 1 + 1e-12
    if rotation == "data":
        assert ev.imag.abs().max() > 0.1 and ev.real.min() < 0
    else:
        assert ev.imag.abs().max() == 0 and ev.real.min() > 0


def test_bad_fields():
    with pytest.raises(ConfigError, match="num_heads=3"):
        model_config("gated_deltanet", d_model=16, num_heads=3)
    with pytest.raises(ConfigError, match="eig_range"):
        model_config("gated_deltanet", eig_range="[0,2]")
    with pytest.raises(ConfigError, match="num_heads=5"):
        model_config("complex_diagonal", d_model=16, num_heads=5)
    with pytest.raises(ConfigError, match="rotation"):
        model_config("complex_diagonal", rotation="rope")
    with pytest.raises(ConfigError, match="d_state"):
        model_config("pd_ssm", d_state=0)
    with pytest.raises(ConfigError, match="init_state"):
        model_config("pd_ssm", init_state="e2")


@pytest.mark.parametrize("name, own", [
    ("gated_deltanet", {"models/gated_deltanet.py", "models/ops/gated_delta.py", "models/layers.py"}),
    ("pd_ssm", {"models/pd_ssm.py", "models/ops/pd.py", "models/ops/complex_diagonal.py"}),
    ("complex_diagonal", {"models/complex_diagonal.py", "models/ops/complex_diagonal.py"}),
])
def test_a_run_hashes_its_own_modules(name, own):
    files = {f.as_posix().split("statetrack/")[-1] for f in code_files(RunConfig(task=task_config("parity"),
                                                                                 model=model_config(name)))}
    assert own <= files
    assert not {"models/bilinear.py", "models/xlstm.py"} & files
