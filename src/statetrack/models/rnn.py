"""The classical nonlinear RNN baselines as registered models: ``elman`` and ``lstm`` (BL's baselines).

Not residual stacks: token → embedding (width ``d_embed``) → ``num_layers`` recurrent layers of
width D = ``d_model`` → a linear head at every position, as in the BL paper's LSTM baseline
(BL's baselines; the defaults here, LSTM-128 with embedding 32, follow our CPU calibration)::

    e_t = E[x_t]                                              (B, T, d_embed)
    Elman:  h_t = tanh(W_ih e_t + b_ih + W_hh h_{t−1} + b_hh)  per layer (B, T, D)
    LSTM:   [i f g o] = W_ih e_t + b_ih + W_hh h_{t−1} + b_hh, c_t = σ(f) c_{t−1} + σ(i) tanh(g), h_t = σ(o) tanh(c_t)
    logits_t = W_out h_t + b_out                              (B, T, K)

The parameters live in one ``nn.RNN(nonlinearity="tanh")`` / ``nn.LSTM`` module (PyTorch's default
init, U(−1/√D, 1/√D), zero initial state). ``backend="fast"`` calls that module (oneDNN / ATen
on CPU, cuDNN on CUDA); ``backend="reference"`` runs the cell equations as a
Python loop (``ops.elman_sequential`` / ``ops.lstm_sequential``) on the same weight tensors, so the
two backends share a state dict and agree up to rounding.

Used in: bl2 (and every BL claim with an LSTM baseline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn

from statetrack.config import ModelConfig, positive
from statetrack.models import register
from statetrack.models.ops.rnn import elman_sequential, lstm_sequential

Backend = Literal["fast", "reference"]


@dataclass(frozen=True)
class ElmanConfig(ModelConfig):
    """Elman RNN (tanh). Fields: ``d_model`` D, the hidden width; ``d_embed`` the token-embedding width;
    ``num_layers`` stacked recurrent layers; ``backend`` "fast" (``nn.RNN``'s native kernel) or
    "reference" (the Python loop over the same weights; identical up to rounding).
    """

    name: ClassVar[str] = "elman"
    display_names: ClassVar[dict[str, str]] = {"elman": "Elman"}
    colors: ClassVar[dict[str, str]] = {"elman": "#BCBD22"}
    activation_floats: ClassVar[tuple[float, float, float]] = (4.9, 4.5, 0.5)
    transition: ClassVar[str] = "nonlinear"
    transition_param: ClassVar[int | None] = None
    transition_reader: ClassVar[str | None] = None
    contractive_exact: ClassVar[bool] = False
    transition_note: ClassVar[str] = ""
    d_model: int = 128
    d_embed: int = 32
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "d_embed")

    @property
    def label(self) -> str:
        return f"{self.name}-{self.d_model}"


@dataclass(frozen=True)
class LSTMConfig(ElmanConfig):
    """LSTM (gates i, f, g, o in PyTorch's order). Fields as for ``elman``; the defaults (D = 128,
    embedding 32, one layer) are BL's LSTM baseline as our CPU calibration set it (book/recipes.md).
    """

    name: ClassVar[str] = "lstm"
    display_names: ClassVar[dict[str, str]] = {"lstm": "LSTM"}
    colors: ClassVar[dict[str, str]] = {"lstm": "#937860"}
    activation_floats: ClassVar[tuple[float, float, float]] = (18.2, 7.3, 0.17)


class _RecurrentModel(nn.Module):
    """Token ids (B, T) → logits (B, T, K) through an embedding, a native RNN module and a linear head."""

    Config: ClassVar[type[ElmanConfig]]
    rnn_class: ClassVar[type[nn.RNNBase]]

    def __init__(self, cfg: ElmanConfig, vocab_size: int, num_classes: int):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(vocab_size, cfg.d_embed)
        self.rnn = self.make_rnn(cfg)
        self.head = nn.Linear(cfg.d_model, num_classes)

    def make_rnn(self, cfg: ElmanConfig) -> nn.RNNBase:
        raise NotImplementedError

    def layer_weights(self, layer: int) -> tuple[torch.Tensor, ...]:
        """``W_ih, W_hh, b_ih, b_hh`` of one layer: the module's own parameter tensors."""
        return tuple(getattr(self.rnn, f"{w}_l{layer}") for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)  # (B, T, d_embed)
        if self.cfg.backend == "fast":
            y, _ = self.rnn(x)  # (B, T, D)
        else:
            y = self.reference_layers(x)  # (B, T, D)
        return self.head(y)  # (B, T, K)

    def reference_layers(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


@register
class Elman(_RecurrentModel):
    Config = ElmanConfig

    def make_rnn(self, cfg: ElmanConfig) -> nn.RNN:
        return nn.RNN(cfg.d_embed, cfg.d_model, cfg.num_layers, nonlinearity="tanh", batch_first=True)

    def reference_layers(self, x: torch.Tensor) -> torch.Tensor:
        for layer in range(self.cfg.num_layers):
            x, _ = elman_sequential(x, *self.layer_weights(layer))  # (B, T, D)
        return x

    def init_state(self, batch: int, device: torch.device | str = "cpu") -> torch.Tensor:
        """h_0 = 0 for every layer: (num_layers, B, D), ``nn.RNN``'s layout."""
        dtype = self.embed.weight.dtype
        return torch.zeros(self.cfg.num_layers, batch, self.cfg.d_model, device=device, dtype=dtype)

    def step(self, tokens: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One token per sequence: tokens (B,) → logits (B, K) and the next state (num_layers, B, D)."""
        x = self.embed(tokens).unsqueeze(1)  # (B, 1, d_embed)
        if self.cfg.backend == "fast":
            y, state = self.rnn(x, state)  # (B, 1, D), (L, B, D)
        else:
            new = []
            for layer in range(self.cfg.num_layers):
                x, h = elman_sequential(x, *self.layer_weights(layer), state[layer])  # (B, 1, D), (B, D)
                new.append(h)
            y, state = x, torch.stack(new)  # (B, 1, D), (L, B, D)
        return self.head(y.squeeze(1)), state  # (B, K)


@register
class LSTM(_RecurrentModel):
    Config = LSTMConfig

    def make_rnn(self, cfg: ElmanConfig) -> nn.LSTM:
        return nn.LSTM(cfg.d_embed, cfg.d_model, cfg.num_layers, batch_first=True)

    def reference_layers(self, x: torch.Tensor) -> torch.Tensor:
        for layer in range(self.cfg.num_layers):
            x, _, _ = lstm_sequential(x, *self.layer_weights(layer))  # (B, T, D)
        return x

    def init_state(self, batch: int, device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
        """(h_0, c_0) = 0 for every layer: two (num_layers, B, D) tensors, ``nn.LSTM``'s layout."""
        dtype = self.embed.weight.dtype
        zeros = torch.zeros(self.cfg.num_layers, batch, self.cfg.d_model, device=device, dtype=dtype)
        return zeros, zeros.clone()

    def step(self, tokens: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        """One token per sequence: tokens (B,) → logits (B, K) and the next (h, c), each (num_layers, B, D)."""
        x = self.embed(tokens).unsqueeze(1)  # (B, 1, d_embed)
        if self.cfg.backend == "fast":
            y, state = self.rnn(x, state)  # (B, 1, D), ((L, B, D), (L, B, D))
        else:
            hs, cs = [], []
            for layer in range(self.cfg.num_layers):
                x, h, c = lstm_sequential(x, *self.layer_weights(layer), state[0][layer], state[1][layer])  # (B, 1, D)
                hs.append(h)
                cs.append(c)
            y, state = x, (torch.stack(hs), torch.stack(cs))  # (B, 1, D), ((L, B, D), (L, B, D))
        return self.head(y.squeeze(1)), state  # (B, K)
