"""Models: pure recurrences (``ops``), sequence mixers (``layers``), the wrapper (``model``), a registry.

Every registered model maps token ids (B, T) to per-position logits (B, T, K) and is built from its
frozen config with ``make_model(cfg, vocab_size, num_classes)``.

| name           | module         | transition / cell                                           | papers |
|----------------|----------------|-------------------------------------------------------------|--------|
| ``mamba``        | lrnn.py        | diagonal, eigenvalues in [0,1] or [-1,1]                    | NE     |
| ``deltanet``     | lrnn.py        | generalized Householder, [0,1] or [-1,1]                    | NE     |
| ``deltaproduct`` | lrnn.py        | product of n_h generalized Householder matrices per token   | NE     |
| ``bilinear``     | bilinear.py    | h_t = A(x_t) h_{t-1}: full, cp, block, diagonal, rotation   | BL     |
| ``elman``        | rnn.py         | tanh RNN (native kernel)                                    | BL     |
| ``lstm``         | rnn.py         | LSTM (native kernel)                                        | BL     |
| ``mlstm``        | xlstm.py       | xLSTM matrix memory, exponential gating                     | NE     |
| ``slstm``        | xlstm.py       | xLSTM scalar memory with recurrent gates                    | NE     |
| ``transformer``  | transformer.py | GPT-2-style causal attention, learned or rotary positions   | NE, BL |
| ``gated_deltanet`` | gated_deltanet.py | α(x)(I − β k kᵀ), a gated generalized Householder, [0,1] or [-1,1] | Yang et al. 2025 |
| ``pd_ssm``       | pd_ssm.py      | P(x) D(x): column-one-hot times complex diagonal of modulus < 1 | Terzić et al. 2025 |
| ``complex_diagonal`` | complex_diagonal.py | diag(r(x) e^{iθ(x)}), data-dependent rotations (Mamba-3) | Lahoti et al. 2026 |

Every config has ``backend``: "fast" (the default) or "reference" (the sequential oracle), and
"fla" for DeltaNet/DeltaProduct on a GPU with flash-linear-attention.

Used in: every claim that trains a model.
"""

from __future__ import annotations

from torch import nn

from statetrack.config import ConfigError, ModelConfig, register_section

MODELS: dict[str, type[nn.Module]] = {}


def register(cls: type[nn.Module]) -> type[nn.Module]:
    """Class decorator: add a model class to ``MODELS`` under its config's name."""
    MODELS[cls.Config.name] = cls
    register_section("model", cls.Config)  # so that config.RunConfig.from_dict can rebuild it
    return cls


def model_config(name: str, **fields) -> ModelConfig:
    """The config of model ``name`` with the given fields (others at their defaults)."""
    if name not in MODELS:
        raise ConfigError(f"unknown model {name!r}; allowed: {', '.join(sorted(MODELS))}")
    return MODELS[name].Config(**fields)


def make_model(cfg: ModelConfig, vocab_size: int, num_classes: int) -> nn.Module:
    """Instantiate the model that ``cfg`` describes (parameters on the CPU, fp32)."""
    if cfg.name not in MODELS:
        raise ConfigError(f"unknown model {cfg.name!r}; allowed: {', '.join(sorted(MODELS))}")
    return MODELS[cfg.name](cfg, vocab_size, num_classes)


# Importing the modules registers the models.
from statetrack.models import bilinear, lrnn, rnn, transformer, xlstm  # noqa: E402,F401
from statetrack.models import complex_diagonal, gated_deltanet, pd_ssm  # noqa: E402,F401

__all__ = ["MODELS", "make_model", "model_config", "register"]
