"""The model wrapper shared by the residual-stack models: embed → L blocks → norm → per-token head.

Each block is pre-norm and residual, in the style of GPT-2 and of the NE paper's fla/xLSTM stacks::

    x = x + mixer(norm(x))          # the sequence mixer: Mamba, DeltaNet, ...
    x = x + mlp(norm(x))            # optional: Linear(D, r·D) → GELU → Linear(r·D, D); r = mlp_ratio

Subclasses set ``Config`` and build one mixer per layer in ``make_mixer``.

The mixer contract (every mixer in ``layers`` and the modules that add more)::

    mixer(x)                          # (B, T, D) → (B, T, D), causal
    mixer.init_state(B, device, dtype) → state   # the state before the first token (tensors, tuples)
    mixer.step(x_t, state)            # (B, D), state → (B, D), new state; a rollout equals forward()

and, for linear RNN mixers, ``transition_eigenvalues(x)``. Every registered model, residual stack or
not, offers ``init_state(B, device)`` and ``step(tokens_t, state) → (logits_t, state)`` on top. The head maps each position
to K answer classes (the NE code takes the argmax over the whole vocabulary instead; with a K-way
head the argmax can only pick an answer, which we state in ne1's "Choices we made").

Used in: ne1 (Mamba, DeltaNet), and every claim that trains a residual-stack model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import nn

from statetrack.config import ModelConfig


#: Why a gated model is contractive in exact arithmetic only (a config's ``transition_note``).
SATURATES = "in fp32 the gate rounds to exactly 1, so it is not contractive in the arithmetic used"


@dataclass(frozen=True)
class StackConfig(ModelConfig):
    """Fields shared by residual-stack models. ``mlp_ratio`` r: MLP width r·D after each mixer (0 = none)."""

    mlp_ratio: int = 2

    def check(self) -> None:
        super().check()
        if self.mlp_ratio < 0:
            # waits for a planned retrain: hoisting it changes the code hash the records read (no cycle)
            from statetrack.config import ConfigError

            raise ConfigError(f"{self._prefix()}mlp_ratio={self.mlp_ratio!r} is not allowed: it must be >= 0")


class MLP(nn.Module):
    def __init__(self, d_model: int, ratio: int):
        super().__init__()
        self.up = nn.Linear(d_model, ratio * d_model)
        self.down = nn.Linear(ratio * d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(nn.functional.gelu(self.up(x)))  # (B, T, D)


class Block(nn.Module):
    def __init__(self, mixer: nn.Module, d_model: int, mlp_ratio: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.mixer = mixer
        self.norm2 = nn.LayerNorm(d_model) if mlp_ratio else None
        self.mlp = MLP(d_model, mlp_ratio) if mlp_ratio else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.mixer(self.norm1(x))  # (B, T, D)
        if self.mlp is not None:
            x = x + self.mlp(self.norm2(x))  # (B, T, D)
        return x

    def step(self, x: torch.Tensor, state):
        y, state = self.mixer.step(self.norm1(x), state)  # (B, D)
        x = x + y  # (B, D)
        if self.mlp is not None:
            x = x + self.mlp(self.norm2(x))  # (B, D)
        return x, state


class SequenceModel(nn.Module):
    """Token ids (B, T) → logits (B, T, K). Subclasses provide ``Config`` and ``make_mixer``."""

    Config: ClassVar[type[StackConfig]]

    def __init__(self, cfg: StackConfig, vocab_size: int, num_classes: int):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(
            Block(self.make_mixer(cfg), cfg.d_model, cfg.mlp_ratio) for _ in range(cfg.num_layers)
        )
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, num_classes)

    def make_mixer(self, cfg: StackConfig) -> nn.Module:
        raise NotImplementedError

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)  # (B, T, D)
        for block in self.blocks:
            x = block(x)  # (B, T, D)
        return self.head(self.norm(x))  # (B, T, K)

    def init_state(self, batch: int, device: torch.device | str = "cpu") -> list:
        """The recurrent state before the first token: one entry per layer."""
        dtype = self.embed.weight.dtype
        return [block.mixer.init_state(batch, device, dtype) for block in self.blocks]

    def step(self, tokens: torch.Tensor, state: list) -> tuple[torch.Tensor, list]:
        """One token per sequence: tokens (B,) → logits (B, K) and the next state (generation, tests)."""
        x = self.embed(tokens)  # (B, D)
        new = []
        for block, s in zip(self.blocks, state):
            x, s = block.step(x, s)  # (B, D)
            new.append(s)
        return self.head(self.norm(x)), new  # (B, K)

    def transition_eigenvalues(self, tokens: torch.Tensor) -> list[torch.Tensor]:
        """Per layer, the eigenvalues of A(x_t) at every position (for the spectrum tests and x2)."""
        out = []
        x = self.embed(tokens)  # (B, T, D)
        for block in self.blocks:
            out.append(block.mixer.transition_eigenvalues(block.norm1(x)))
            x = block(x)  # (B, T, D)
        return out
