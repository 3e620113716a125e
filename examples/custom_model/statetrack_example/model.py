"""``gated_rotation``: a residual stack whose mixer rotates and decays a complex state per token.

Per layer, with N complex state entries (``d_state``)::

    θ_t, g_t, u_t = W x_t                          (B, T, N), (B, T, N), (B, T, 2N)
    λ_t = σ(g_t) e^{i π tanh θ_t}                  a rotation by an input-dependent angle, gated
    h_t = λ_t ⊙ h_{t−1} + (1 − σ(g_t)) ⊙ u_t        complex diagonal transition (class "complex_diagonal")
    y_t = W_out [Re h_t, Im h_t]

A(x_t) is block diagonal with N rotation-and-scale blocks σ(g) [[cos, −sin], [sin, cos]]: the
transitions commute and have complex eigenvalues, so one layer can count modulo m but not track a
non-abelian group (the theories' predictions for its class).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn

from statetrack.config import positive
from statetrack.models.model import SequenceModel, StackConfig
from statetrack_example.ops import scan, sequential


@dataclass(frozen=True)
class GatedRotationConfig(StackConfig):
    """Gated rotation RNN (example plug-in). Fields: ``d_model`` D, ``d_state`` N complex entries per layer,
    ``backend`` "fast" (a parallel scan) or "reference" (the sequential loop)."""

    name: ClassVar[str] = "gated_rotation"
    transition: ClassVar[str] = "complex_diagonal"  # one of statetrack.models.TRANSITIONS
    lrs: ClassVar[tuple[float, ...]] = (1e-2, 3e-3)  # its learning-rate grid (the leaderboard sweeps it)
    d_model: int = 32
    d_state: int = 8
    backend: Literal["fast", "reference"] = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "d_state")

    @property
    def label(self) -> str:
        return f"{self.name}-{self.d_model}x{self.num_layers}"


class GatedRotationMixer(nn.Module):
    """One layer of the recurrence (module docstring); the mixer contract of ``statetrack.models.model``."""

    def __init__(self, cfg: GatedRotationConfig):
        super().__init__()
        self.cfg, N = cfg, cfg.d_state
        self.in_proj = nn.Linear(cfg.d_model, 4 * N)
        self.out_proj = nn.Linear(2 * N, cfg.d_model)
        with torch.no_grad():
            self.in_proj.bias[N:2 * N].fill_(3.0)  # gates start near 1: a long memory

    def _coeffs(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        N = self.cfg.d_state
        theta, gate, u_re, u_im = self.in_proj(x).split(N, dim=-1)  # (..., N) each
        angle, keep = math.pi * torch.tanh(theta), torch.sigmoid(gate)  # (..., N)
        lam = torch.polar(keep, angle)  # (..., N) complex
        b = torch.complex(u_re, u_im) * (1 - keep)  # (..., N) complex
        return lam, b, keep, angle

    def _out(self, h: torch.Tensor) -> torch.Tensor:
        return self.out_proj(torch.cat([h.real, h.imag], dim=-1))  # (..., D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lam, b, _, _ = self._coeffs(x)  # (B, T, N)
        h = (scan if self.cfg.backend == "fast" else sequential)(lam, b)  # (B, T, N)
        return self._out(h)  # (B, T, D)

    def init_state(self, batch: int, device, dtype) -> torch.Tensor:
        return torch.zeros(batch, self.cfg.d_state, device=device, dtype=torch.complex64 if dtype == torch.float32
                           else torch.complex128)

    def step(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        lam, b, _, _ = self._coeffs(x)  # (B, N)
        h = lam * h + b  # (B, N)
        return self._out(h), h

    def transition_matrices(self, x: torch.Tensor) -> torch.Tensor:
        """A(x_t) as N real 2x2 blocks, as DeltaProduct's mixer gives its heads: (B, T, N, 2, 2)."""
        _, _, keep, angle = self._coeffs(x)  # (B, T, N)
        c, s = keep * torch.cos(angle), keep * torch.sin(angle)
        return torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)  # (B, T, N, 2, 2)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The N eigenvalue pairs' upper halves λ_t: (B, T, N) complex."""
        return self._coeffs(x)[0]


class GatedRotationRNN(SequenceModel):
    """Token ids (B, T) → logits (B, T, K): embed → gated rotation layers (residual) → head."""

    Config = GatedRotationConfig

    def make_mixer(self, cfg: GatedRotationConfig) -> nn.Module:
        return GatedRotationMixer(cfg)
