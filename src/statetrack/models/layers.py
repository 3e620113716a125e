"""Sequence mixers with a selectable eigenvalue range (NE Eq. 2): Mamba and DeltaNet.

Both are linear RNN layers ``H_t = A(x_t) H_{t-1} + B(x_t)`` whose transition eigenvalues lie in
[0, 1] in the original models. ``eig_range="[-1,1]"`` is the NE paper's change (PAPERS.md 1.1):

| layer    | A(x_t), eig_range "[0,1]"                  | A(x_t), eig_range "[-1,1]"             |
|----------|--------------------------------------------|----------------------------------------|
| Mamba    | Diag(s_t), s_t = exp(-Δ_t ⊙ exp(A_log))    | Diag(2 s_t − 1)                        |
| DeltaNet | I − β_t k_t k_tᵀ, β_t = sigmoid(w_βᵀ x_t)  | I − β_t k_t k_tᵀ, β_t = 2 sigmoid(...) |

For Mamba only the decay changes (B(x_t) is untouched); for DeltaNet β also doubles the write
β_t k_t v_tᵀ, exactly as in the NE code and fla's ``allow_neg_eigval``.

Glossary (paper symbol → code name): D → ``d_model``, E → ``expand``, N → ``d_state``,
Δ → ``dt``, A_log → ``A_log``, H → ``num_heads``, β → ``beta``, k/q/v → ``k``/``q``/``v``.

Used in: ne1 (and ne4, ne5, ne6 later).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.models import ops

EIG_RANGES = ("[0,1]", "[-1,1]")


class ShortConv(nn.Module):
    """Causal depthwise convolution of width ``width`` over time, with SiLU (the models' short conv)."""

    def __init__(self, channels: int, width: int):
        super().__init__()
        self.width = width
        self.conv = nn.Conv1d(channels, channels, width, groups=channels, padding=width - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.shape[1]
        y = self.conv(x.transpose(1, 2))[..., :T]  # (B, C, T): keep the causal part
        return F.silu(y.transpose(1, 2))  # (B, T, C)


class MambaMixer(nn.Module):
    """Selective diagonal SSM (Mamba-1, as in mamba.py and the NE code): h_t = a_t ⊙ h_{t-1} + Δ_t B_t x_t.

    Per channel c of the expanded width E·D and state index n::

        Δ_t   = softplus(W_Δ x_t + b_Δ)                 (B, T, E·D)
        s_t   = exp(−Δ_t · exp(A_log))                  (B, T, E·D, N), in (0, 1]
        a_t   = s_t  or  2 s_t − 1                       by eig_range
        h_t   = a_t ⊙ h_{t−1} + (Δ_t x_t) ⊗ B_t          (B, T, E·D, N)
        y_t   = h_t · C_t + D ⊙ x_t,  out = W_out (y_t ⊙ SiLU(z_t))

    Initialisation follows Mamba: A_log = log(1..N) per channel (S4D-real), Δ's bias so that
    softplus(b_Δ) is log-uniform in [1e-3, 0.1]. ``d_conv = 0`` removes the short convolution
    (our quick preset, as calibrated; the NE paper uses 4).
    """

    def __init__(self, d_model: int, d_state: int, expand: int, d_conv: int, dt_rank: int, eig_range: str,
                 backend: str = "fast"):
        super().__init__()
        if eig_range not in EIG_RANGES:
            raise ValueError(f"eig_range {eig_range!r} is not allowed; allowed: {list(EIG_RANGES)}")
        inner = expand * d_model
        self.d_state, self.eig_range, self.backend = d_state, eig_range, backend
        self.dt_rank = dt_rank or math.ceil(d_model / 16)
        self.in_proj = nn.Linear(d_model, 2 * inner, bias=False)
        self.conv = ShortConv(inner, d_conv) if d_conv > 0 else None
        self.x_proj = nn.Linear(inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, inner)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, d_state + 1, dtype=torch.float32)).repeat(inner, 1))
        self.D = nn.Parameter(torch.ones(inner))
        self.out_proj = nn.Linear(inner, d_model, bias=False)
        with torch.no_grad():
            dt = torch.exp(torch.rand(inner) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))  # (E·D,)
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))  # inverse softplus

    def _decay_and_input(self, x: torch.Tensor):
        xz = self.in_proj(x)  # (B, T, 2·E·D)
        u, z = xz.chunk(2, dim=-1)  # (B, T, E·D) each
        u = self.conv(u) if self.conv is not None else F.silu(u)  # (B, T, E·D)
        dt_in, Bm, Cm = self.x_proj(u).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt_in))  # (B, T, E·D)
        s = torch.exp(-dt.unsqueeze(-1) * torch.exp(self.A_log))  # (B, T, E·D, N)
        a = 2 * s - 1 if self.eig_range == "[-1,1]" else s  # (B, T, E·D, N)
        b = (dt * u).unsqueeze(-1) * Bm.unsqueeze(-2)  # (B, T, E·D, N)
        return a, b, u, z, Cm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b, u, z, Cm = self._decay_and_input(x)
        scan = ops.diagonal_recurrence if self.backend == "fast" else ops.diagonal_recurrence_sequential
        h, _ = scan(a, b)  # (B, T, E·D, N)
        y = (h @ Cm.unsqueeze(-1)).squeeze(-1) + self.D * u  # (B, T, E·D)
        return self.out_proj(y * F.silu(z))  # (B, T, D)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The diagonal of A(x_t): (B, T, E·D·N), real."""
        a = self._decay_and_input(x)[0]  # (B, T, E·D, N)
        return a.flatten(2)


class DeltaNetMixer(nn.Module):
    """DeltaNet (generalized Householder transitions): S_t = (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ.

    Per head h of width d = D/H::

        q_t, k_t = L2norm(SiLU(conv(W_q x))), L2norm(SiLU(conv(W_k x)))      (B, H, T, d)
        v_t      = SiLU(conv(W_v x))                                         (B, H, T, d)
        β_t      = sigmoid(w_βᵀ x_t)  or  2·sigmoid(w_βᵀ x_t)                by eig_range
        o_t      = RMSNorm(S_tᵀ q_t),  out = W_o [o_t of all heads]

    With ‖k_t‖ = 1 the transition's eigenvalues are 1 (multiplicity d − 1) and 1 − β_t, so they lie in
    [0, 1] or [−1, 1] and the spectral norm stays ≤ 1 (NE Prop. 1). This follows fla's DeltaNet layer
    (SiLU + L2-normalised q and k, short convolutions, per-head output RMSNorm), without its output
    gate. ``d_conv = 0`` replaces the convolutions by a plain SiLU.
    """

    def __init__(self, d_model: int, num_heads: int, d_conv: int, eig_range: str, backend: str = "fast"):
        super().__init__()
        if eig_range not in EIG_RANGES:
            raise ValueError(f"eig_range {eig_range!r} is not allowed; allowed: {list(EIG_RANGES)}")
        if d_model % num_heads:
            raise ValueError(f"num_heads={num_heads} must divide d_model={d_model}")
        self.num_heads, self.eig_range, self.backend = num_heads, eig_range, backend
        self.head_dim = d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.convs = nn.ModuleList(ShortConv(d_model, d_conv) for _ in range(3)) if d_conv > 0 else None
        self.b_proj = nn.Linear(d_model, num_heads)
        self.o_norm = nn.RMSNorm(self.head_dim)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def _heads(self, t: torch.Tensor) -> torch.Tensor:
        B, T, _ = t.shape
        return t.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, T, d)

    def _qkvb(self, x: torch.Tensor):
        q, k, v = self.qkv(x).chunk(3, dim=-1)  # (B, T, D) each
        if self.convs is not None:
            q, k, v = (conv(t) for conv, t in zip(self.convs, (q, k, v)))  # (B, T, D) each
        else:
            q, k, v = F.silu(q), F.silu(k), F.silu(v)  # (B, T, D) each
        q = F.normalize(self._heads(q), dim=-1)  # (B, H, T, d)
        k = F.normalize(self._heads(k), dim=-1)  # (B, H, T, d)
        v = self._heads(v)  # (B, H, T, d)
        beta = torch.sigmoid(self.b_proj(x)).transpose(1, 2)  # (B, H, T)
        if self.eig_range == "[-1,1]":
            beta = 2 * beta  # (B, H, T)
        return q, k, v, beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        q, k, v, beta = self._qkvb(x)
        rule = ops.delta_rule_chunked if self.backend == "fast" else ops.delta_rule_sequential
        o, _ = rule(q, k, v, beta)  # (B, H, T, d)
        o = self.o_norm(o).transpose(1, 2).reshape(B, T, D)  # (B, T, D)
        return self.o_proj(o)  # (B, T, D)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The non-unit eigenvalue 1 − β_t ‖k_t‖² of each head's transition: (B, T, H), real."""
        _, k, _, beta = self._qkvb(x)
        return (1 - beta * k.pow(2).sum(-1)).transpose(1, 2)  # (B, T, H)
