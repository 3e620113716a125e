"""S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ: Gated DeltaNet as a registered model, ``gated_deltanet``.

Yang, Kautz and Hatamizadeh (2025), "Gated Delta Networks": DeltaNet's generalized Householder
transition (``lrnn.deltanet``) times a data-dependent scalar gate α_t ∈ (0, 1] per head, Mamba-2's
decay. ``eig_range`` is DeltaNet's: "[0,1]" (β = sigmoid) or "[-1,1]" (β = 2·sigmoid, NE Eq. 2). The
eigenvalues of A(x_t) are α_t (multiplicity d − 1) and α_t (1 − β_t): real, so by NE Thm 2 one layer
cannot count modulo 3, with or without the gate; the gate only lets the memory forget. Every
eigenvalue has modulus ≤ α_t < 1 unless the gate saturates at 1, so the layer is strictly contractive
in exact arithmetic.

The mixer reuses DeltaNet's body (projections, short convolutions, L2-normalised q and k, per-head
output RMSNorm; ``layers._HouseholderMixer`` with n_h = 1) and adds the gate. Choices (ours): no
output gate (our DeltaNet has none either); the gate's parameters follow Mamba-2's init (A ~ U(1, 16)
per head, softplus(dt_bias) log-uniform in [1e-3, 0.1]), so α starts in about [0.2, 1).

Used in: the follow-up leaderboard rows (``theory.predictions``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.models import register
from statetrack.models.layers import _HouseholderMixer
from statetrack.models.lrnn import EigRange, _check_heads_and_conv, _eig_slug, householder_class
from statetrack.models.model import SATURATES, SequenceModel, StackConfig
from statetrack.models.ops import gated_delta as gated_ops

Backend = Literal["fast", "reference"]


class GatedDeltaNetMixer(_HouseholderMixer):
    """S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = RMSNorm(S_tᵀ q_t): the gated delta rule layer.

    Per head h of width d = D/H::

        q_t, k_t = L2norm(SiLU(conv(W_q x))), L2norm(SiLU(conv(W_k x)))      (B, H, T, d)
        v_t      = SiLU(conv(W_v x))                                         (B, H, T, d)
        β_t      = sigmoid(w_βᵀ x_t)  or  2·sigmoid(w_βᵀ x_t)                by eig_range
        g_t      = −exp(A_log) · softplus(w_aᵀ x_t + dt_bias),  α_t = e^{g_t}  (B, H, T), α ∈ (0, 1]
        out      = W_o [RMSNorm(S_tᵀ q_t) of all heads]

    ``backend``: "fast" (``ops.gated_delta_rule_chunked``) or "reference" (the loop).
    """

    def __init__(self, d_model: int, num_heads: int, d_conv: int, eig_range: str, backend: str = "fast"):
        super().__init__(d_model, num_heads, d_conv, eig_range, backend, num_householder=1, backends={
            "fast": gated_ops.gated_delta_rule_chunked, "reference": gated_ops.gated_delta_rule_sequential,
        })
        self.a_proj = nn.Linear(d_model, num_heads, bias=False)
        self.A_log = nn.Parameter(torch.log(torch.empty(num_heads).uniform_(1.0, 16.0)))  # (H,)
        dt = torch.exp(torch.rand(num_heads) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))  # (H,)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # (H,) inverse softplus

    def _log_gate(self, x: torch.Tensor) -> torch.Tensor:
        """g = log α: (..., D) → (..., H), ≤ 0."""
        return -torch.exp(self.A_log) * F.softplus(self.a_proj(x) + self.dt_bias)  # (..., H)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v, beta = self._qkvb(x)  # (B, H, T, d), (B, H, T, 1, d) ×2, (B, H, T, 1)
        g = self._log_gate(x).transpose(1, 2)  # (B, H, T)
        o, _ = self._backends[self.backend](q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], g)  # (B, H, T, d)
        return self._out(o)  # (B, T, D)

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, ...]):
        """One token: x (B, D) → (B, D) and the next state (S (B, H, d, d), then the conv buffers)."""
        S = state[0]  # (B, H, d, d)
        q, k, v = self._split(x)  # (B, D) each
        if self.convs is not None:
            stepped = [conv.step(t, buf) for conv, t, buf in zip(self.convs, (q, k, v), state[1:])]
            (q, bq), (k, bk), (v, bv) = stepped  # (B, D) features and (B, D, d_conv − 1) buffers
        else:
            q, k, v = F.silu(q), F.silu(k), F.silu(v)  # (B, D) each
        q, k, v, beta = self._heads(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), x.unsqueeze(1))
        q, k, v, beta = q[:, :, 0], k[:, :, 0, 0], v[:, :, 0, 0], beta[:, :, 0, 0]  # (B, H, d) ×3, (B, H)
        S = torch.exp(self._log_gate(x))[..., None, None] * S  # (B, H, d, d) α_t S_{t−1}
        error = beta.unsqueeze(-1) * (v - (k.unsqueeze(-2) @ S).squeeze(-2))  # (B, H, d)
        S = S + k.unsqueeze(-1) * error.unsqueeze(-2)  # (B, H, d, d)
        out = self._out(q.unsqueeze(-2) @ S)[:, 0]  # (B, D) from o (B, H, 1, d)
        return out, ((S,) if self.convs is None else (S, bq, bk, bv))

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """Both distinct eigenvalues of each head's A(x_t), α_t and α_t (1 − β_t ‖k_t‖²): (B, T, 2H), real."""
        _, k, _, beta = self._qkvb(x)  # (B, H, T, 1, d), (B, H, T, 1)
        alpha = torch.exp(self._log_gate(x))  # (B, T, H)
        flip = (1 - beta[..., 0] * k[:, :, :, 0].pow(2).sum(-1)).transpose(1, 2)  # (B, T, H)
        return torch.cat([alpha, alpha * flip], dim=-1)  # (B, T, 2H)


@dataclass(frozen=True)
class GatedDeltaNetConfig(StackConfig):
    """A(x_t) = α_t (I − β_t k_t k_tᵀ): Gated DeltaNet's config. Paper symbols: D = d_model, H = num_heads.

    Fields: ``eig_range`` "[0,1]" (β = sigmoid, eigenvalues α(1 − β) ∈ [0, 1]) or "[-1,1]" (β = 2·sigmoid,
    NE Eq. 2); ``num_heads`` H (must divide D; head width d = D/H; one gate α per head); ``d_conv``
    short-convolution width on q, k, v (0 = none); ``backend`` "fast" (chunked gated WY/UT form) or
    "reference" (the step-by-step loop).
    """

    name: ClassVar[str] = "gated_deltanet"
    display_names: ClassVar[dict[str, str]] = {"gated_deltanet": "Gated DeltaNet"}
    colors: ClassVar[dict[str, str]] = {"gated_deltanet": "#64B5CD"}
    transition_reader: ClassVar[str | None] = None  # spectra reads no A(x) of it yet
    transition_param: ClassVar[int] = 1
    contractive_exact: ClassVar[bool] = True
    transition_note: ClassVar[str] = "eigenvalues α and α(1 − β), α ∈ (0, 1); " + SATURATES
    eig_range: EigRange = "[0,1]"
    num_heads: int = 4
    d_conv: int = 4
    backend: Backend = "fast"

    def check(self) -> None:
        super().check()
        _check_heads_and_conv(self)

    @property
    def label(self) -> str:
        return f"gated_deltanet-{_eig_slug(self.eig_range)}"

    @property
    def transition(self) -> str:
        return householder_class(self.eig_range, 1)


@register
class GatedDeltaNet(SequenceModel):
    Config = GatedDeltaNetConfig

    def make_mixer(self, cfg: GatedDeltaNetConfig):
        return GatedDeltaNetMixer(cfg.d_model, cfg.num_heads, cfg.d_conv, cfg.eig_range, cfg.backend)
