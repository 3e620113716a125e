"""h_t = e^{Δ_t A} R(Δ_t θ_t) h_{t−1} + Δ_t B_t x_t: Mamba-3's data-dependent rotations as a model, ``complex_diagonal``.

Lahoti et al. (2026), "Mamba-3", §3.1, Prop 2 (the exp-Euler form of a complex SSM): the transition is
complex diagonal, eigenvalues e^{Δ_t A} e^{±iΔ_t θ_t[n]}, with a data-dependent step Δ_t and
data-dependent angles θ_t. All transitions are diagonal in one fixed basis, so they commute (BL Prop
2: one layer sees only letter counts, so it tracks abelian groups only), but their eigenvalues are
complex, so one layer can count modulo any m (NE Thm 2's condition; a rotation by 2π/m). With
``rotation="none"`` the angles are 0 and the model is a scalar-decay selective SSM (Mamba-2's
transition, positive real eigenvalues), the ablation that separates the rotations from the rest.

Per head h (H heads of width P = E·D/H) with N complex state entries::

    z, x, B, C, dt, a = W_in u_t                              (B, T, E·D) ×2, (B, T, N, 2) ×2, (B, T, H), (B, T, N)
    x_t     = SiLU(conv(x)) or SiLU(x)                        (B, T, E·D), short conv if d_conv > 0
    Δ_t     = softplus(dt + dt_bias),  A = −exp(A_log)        (B, T, H), (H,)
    θ_t     = Δ_t · π tanh(a_t)                               (B, T, H, N); 0 if rotation == "none"
    S_t     = e^{Δ_t A} diag(e^{iθ_t}) S_{t−1} + (Δ_t B_t) x_tᵀ   (B, H, N, P) complex
    y_t     = Re(C_tᵀ S_t) + D_skip ⊙ x_t,  out = W_out (y_t ⊙ SiLU(z_t))

Choices (ours): the exp-Euler rule of Mamba-3's Prop 2, not its exp-trapezoidal Prop 4; A is learned
per head but not data-dependent (the decay still is, through Δ_t); B and C are shared by all heads
(one group) without Mamba-3's BC-norm and biases; the angles are as Mamba-3's (π tanh, times Δ, one
per complex entry, shared by the heads); init as Mamba-2 (A ~ U(1, 16), softplus(dt_bias)
log-uniform in [1e-3, 0.1], D_skip = 1).

Used in: the follow-up leaderboard rows (``theory.predictions``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.config import ConfigError, positive
from statetrack.models import register
from statetrack.models.layers import ShortConv
from statetrack.models.model import SATURATES, SequenceModel, StackConfig
from statetrack.models.ops import complex_diagonal as cd_ops

Backend = Literal["fast", "reference"]
Rotation = Literal["data", "none"]


class ComplexDiagonalMixer(nn.Module):
    """S_t = e^{Δ_t A} diag(e^{iθ_t}) S_{t−1} + Δ_t B_t x_tᵀ, y_t = Re(C_tᵀ S_t) (Mamba-3 Prop 2; see the module docstring).

    ``forward`` (B, T, D) → (B, T, D); ``step`` one token; the state is (S,) or (S, conv buffer), S
    (B, H, N, P, 2) the complex state as (re, im). ``backend``: "fast" (``ops.complex_diagonal_chunked``)
    or "reference" (``ops.complex_diagonal_sequential``).
    """

    def __init__(self, d_model: int, d_state: int, expand: int, num_heads: int, d_conv: int, rotation: str,
                 backend: str = "fast"):
        super().__init__()
        inner = expand * d_model
        self.d_state, self.num_heads, self.head_dim = d_state, num_heads, inner // num_heads
        self.inner, self.rotation, self.backend = inner, rotation, backend
        N, H = d_state, num_heads
        self.splits = [inner, inner, 2 * N, 2 * N, H, N]  # z, x, B, C, dt, angles
        self.in_proj = nn.Linear(d_model, sum(self.splits), bias=False)
        self.conv = ShortConv(inner, d_conv) if d_conv > 0 else None
        self.A_log = nn.Parameter(torch.log(torch.empty(H).uniform_(1.0, 16.0)))  # (H,)
        dt = torch.exp(torch.rand(H) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))  # (H,)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # (H,) inverse softplus
        self.D = nn.Parameter(torch.ones(inner))  # (E·D,)
        self.out_proj = nn.Linear(inner, d_model, bias=False)

    def _project(self, u: torch.Tensor):
        """u (B, T, D) → z, x (B, T, E·D) before the conv, and the SSM inputs (see ``_ssm``)."""
        z, x, Bm, Cm, dt, ang = self.in_proj(u).split(self.splits, dim=-1)
        return z, x, (Bm, Cm, dt, ang)  # (B, T, E·D) ×2; (B, T, 2N) ×2, (B, T, H), (B, T, N)

    def _ssm(self, x: torch.Tensor, Bm, Cm, dt, ang):
        """Per-head op inputs: q, k (B, H, T, N, 2), v (B, H, T, P), log r (B, H, T), θ (B, H, T, N)."""
        Bsz, T, _ = x.shape
        H, N = self.num_heads, self.d_state
        delta = F.softplus(dt + self.dt_bias)  # (B, T, H)
        log_r = (delta * -torch.exp(self.A_log)).transpose(1, 2)  # (B, H, T) Δ_t A
        if self.rotation == "data":
            theta = delta.unsqueeze(-1) * (math.pi * torch.tanh(ang)).unsqueeze(2)  # (B, T, H, N)
        else:
            theta = ang.new_zeros(Bsz, T, H, N)  # (B, T, H, N)
        Bc = Bm.unflatten(-1, (2, N)).transpose(-1, -2)  # (B, T, N, 2)
        Cc = Cm.unflatten(-1, (2, N)).transpose(-1, -2)  # (B, T, N, 2)
        k = (delta[..., None, None] * Bc.unsqueeze(2)).transpose(1, 2)  # (B, H, T, N, 2) Δ_t B_t
        q = Cc.unsqueeze(1).expand(Bsz, H, T, N, 2)  # (B, H, T, N, 2)
        v = x.view(Bsz, T, H, self.head_dim).transpose(1, 2)  # (B, H, T, P)
        return q, k, v, log_r, theta.transpose(1, 2)  # ..., (B, H, T, N)

    def _finish(self, o: torch.Tensor, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        """o (B, H, T, P), x, z (B, T, E·D) → (B, T, D)."""
        Bsz, H, T, P = o.shape
        y = o.transpose(1, 2).reshape(Bsz, T, H * P) + self.D * x  # (B, T, E·D)
        return self.out_proj(y * F.silu(z))  # (B, T, D)

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        z, x, rest = self._project(u)  # (B, T, E·D) ×2
        x = self.conv(x) if self.conv is not None else F.silu(x)  # (B, T, E·D)
        op = cd_ops.complex_diagonal_chunked if self.backend == "fast" else cd_ops.complex_diagonal_sequential
        o, _ = op(*self._ssm(x, *rest))  # (B, H, T, P)
        return self._finish(o, x, z)  # (B, T, D)

    def init_state(self, batch: int, device=None, dtype=torch.float32) -> tuple[torch.Tensor, ...]:
        """(S,) or (S, conv buffer): S (B, H, N, P, 2) zeros; the buffer (B, E·D, d_conv − 1) zeros."""
        S = torch.zeros(batch, self.num_heads, self.d_state, self.head_dim, 2, device=device, dtype=dtype)
        return (S,) if self.conv is None else (S, self.conv.init_state(batch, device, dtype))

    def step(self, u: torch.Tensor, state: tuple[torch.Tensor, ...]):
        """One token: u (B, D) → (B, D) and the next state; one complex multiply-add per entry."""
        z, x, rest = self._project(u.unsqueeze(1))  # (B, 1, E·D) ×2
        if self.conv is not None:
            x, buf = self.conv.step(x[:, 0], state[1])  # (B, E·D), (B, E·D, d_conv − 1)
            x = x.unsqueeze(1)  # (B, 1, E·D)
        else:
            x = F.silu(x)  # (B, 1, E·D)
        q, k, v, log_r, theta = (t[:, :, 0] for t in self._ssm(x, *rest))  # (B, H, N, 2) ×2, (B, H, P), (B, H), (B, H, N)
        lam = torch.exp(log_r).unsqueeze(-1) * torch.complex(torch.cos(theta), torch.sin(theta))  # (B, H, N)
        S = cd_ops.as_complex(state[0])  # (B, H, N, P)
        S = lam.unsqueeze(-1) * S + cd_ops.as_complex(k).unsqueeze(-1) * v.unsqueeze(-2)  # (B, H, N, P)
        o = (cd_ops.as_complex(q).unsqueeze(-1) * S).sum(-2).real  # (B, H, P)
        out = self._finish(o.unsqueeze(2), x, z)[:, 0]  # (B, D)
        S = cd_ops.as_real(S)  # (B, H, N, P, 2)
        return out, ((S,) if self.conv is None else (S, buf))

    def transition_eigenvalues(self, u: torch.Tensor) -> torch.Tensor:
        """The diagonal of A(x_t), e^{Δ_t A_h} e^{iθ_t[h, n]}: (B, T, H·N), complex."""
        z, x, rest = self._project(u)  # (B, T, E·D) ×2
        x = self.conv(x) if self.conv is not None else F.silu(x)  # (B, T, E·D)
        _, _, _, log_r, theta = self._ssm(x, *rest)  # (B, H, T), (B, H, T, N)
        lam = torch.exp(log_r).unsqueeze(-1) * torch.complex(torch.cos(theta), torch.sin(theta))  # (B, H, T, N)
        return lam.transpose(1, 2).flatten(2)  # (B, T, H·N)


@dataclass(frozen=True)
class ComplexDiagonalConfig(StackConfig):
    """A(x_t) = e^{Δ_t A} diag(e^{iθ_t}): the complex diagonal (Mamba-3) config. Paper symbols: D, N, E, H.

    Fields: ``d_state`` N, complex state entries per head (Mamba-3's real state size is 2N);
    ``expand`` E (inner width E·D); ``num_heads`` H (must divide E·D; head width P = E·D/H; one decay
    e^{Δ A} per head); ``d_conv`` short-convolution width on x (0 = none, Mamba-3's choice);
    ``rotation`` "data" (angles Δ_t π tanh(W_θ u_t), Mamba-3) or "none" (θ = 0: real positive decays
    only, the no-rotation ablation); ``backend`` "fast" (RoPE trick + chunked decay) or "reference" (loop).
    """

    name: ClassVar[str] = "complex_diagonal"
    display_names: ClassVar[dict[str, str]] = {"complex_diagonal": "complex diagonal"}
    colors: ClassVar[dict[str, str]] = {"complex_diagonal": "#66A61E"}
    transition_param: ClassVar[int | None] = None
    transition_reader: ClassVar[str | None] = None  # spectra reads no A(x) of it yet
    contractive_exact: ClassVar[bool] = True
    transition_note: ClassVar[str] = "|λ| = exp(Δ A) < 1 with A < 0; " + SATURATES
    d_state: int = 16
    expand: int = 2
    num_heads: int = 4
    d_conv: int = 0
    rotation: Rotation = "data"
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        positive(self, "d_state", "expand", "num_heads")
        if (self.expand * self.d_model) % self.num_heads:
            raise ConfigError(
                f"{self._prefix()}num_heads={self.num_heads} does not divide expand·d_model="
                f"{self.expand * self.d_model}; allowed: a divisor of {self.expand * self.d_model}"
            )
        if self.d_conv < 0:
            raise ConfigError(f"{self._prefix()}d_conv={self.d_conv!r} is not allowed: it must be >= 0")

    @property
    def label(self) -> str:
        return f"complex_diagonal-{self.rotation}"

    @property
    def transition(self) -> str:
        return "complex_diagonal" if self.rotation == "data" else "positive_diagonal"


@register
class ComplexDiagonal(SequenceModel):
    Config = ComplexDiagonalConfig

    def make_mixer(self, cfg: ComplexDiagonalConfig):
        return ComplexDiagonalMixer(cfg.d_model, cfg.d_state, cfg.expand, cfg.num_heads, cfg.d_conv, cfg.rotation,
                                    cfg.backend)
