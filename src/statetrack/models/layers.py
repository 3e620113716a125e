"""Sequence mixers with a selectable eigenvalue range (NE Eq. 2): Mamba, DeltaNet and DeltaProduct.

All are linear RNN layers ``H_t = A(x_t) H_{t-1} + B(x_t)`` whose transition eigenvalues lie in
[0, 1] in the original models. ``eig_range="[-1,1]"`` is the NE paper's change (NE Eq. 2):

| layer    | A(x_t), eig_range "[0,1]"                  | A(x_t), eig_range "[-1,1]"             |
|----------|--------------------------------------------|----------------------------------------|
| Mamba    | Diag(s_t), s_t = exp(-Δ_t ⊙ exp(A_log))    | Diag(2 s_t − 1)                        |
| DeltaNet | I − β_t k_t k_tᵀ, β_t = sigmoid(w_βᵀ x_t)  | I − β_t k_t k_tᵀ, β_t = 2 sigmoid(...) |
| DeltaProduct | Π_{j=1..n_h} (I − β_{t,j} k_{t,j} k_{t,j}ᵀ) | the same with β_{t,j} = 2 sigmoid(...) |

For Mamba only the decay changes (B(x_t) is untouched); for DeltaNet β also doubles the write
β_t k_t v_tᵀ, exactly as in the NE code and fla's ``allow_neg_eigval``.

Glossary (paper symbol → code name): D → ``d_model``, E → ``expand``, N → ``d_state``,
Δ → ``dt``, A_log → ``A_log``, H → ``num_heads``, β → ``beta``, k/q/v → ``k``/``q``/``v``,
n_h → ``num_householder``.

Every mixer follows the contract of ``model.py``: ``forward`` (B, T, D) → (B, T, D), and
``init_state(B, device, dtype)`` / ``step(x_t, state)`` for one token at a time. States are flat
tuples of tensors (recurrent state first, then the short-convolution buffers when d_conv > 0).
Nesting: ``ShortConv`` ⊂ ``MambaMixer``; ``ShortConv`` ⊂ ``_HouseholderMixer`` → ``DeltaNetMixer``
(n_h = 1), ``DeltaProductMixer``.

Used in: ne1 (and ne4, ne5, ne6 later).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from statetrack.models.ops import delta as delta_ops
from statetrack.models.ops import selective as selective_ops

EIG_RANGES = ("[0,1]", "[-1,1]")


class ShortConv(nn.Module):
    """Causal depthwise convolution of width ``width`` over time, with SiLU (the models' short conv).

    ``step`` is the same map one token at a time: it keeps the last ``width − 1`` inputs in a buffer.
    The weights live in an ``nn.Conv1d`` (fla's and mamba's layout), but ``forward`` computes
    y_t = b + Σ_j w_j x_{t−W+1+j} as ``width`` shifted multiply-adds. ``conv1d``'s depthwise backward took
    1.1 ms per call at B64 T40 C32 on 2 CPU threads (torch 2.13); the shifted form took a whole DeltaNet
    training step (3 convolutions) from 30.6 to 26.7 ms at T=40 (B64, D32) and from 24.3 to 19.9 ms at
    T ≤ 10 (min of 40 steps). It also shrinks the part of a Mamba step that its fast path shares with the
    reference, which is what lifted ``statetrack bench``'s Mamba speed-up above 2×.
    """

    def __init__(self, channels: int, width: int):
        super().__init__()
        self.width = width
        self.conv = nn.Conv1d(channels, channels, width, groups=channels, padding=width - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T, W = x.shape[1], self.width
        w = self.conv.weight[:, 0]  # (C, W) taps, oldest input first (conv1d's cross-correlation order)
        xp = F.pad(x, (0, 0, W - 1, 0))  # (B, W − 1 + T, C): the zeros before the first token
        y = torch.addcmul(self.conv.bias, xp[:, W - 1:], w[:, W - 1])  # (B, T, C) bias + newest tap
        for j in range(W - 1):
            y = torch.addcmul(y, xp[:, j:j + T], w[:, j])  # (B, T, C) + w_j x_{t−W+1+j}
        return F.silu(y)  # (B, T, C)

    def init_state(self, batch: int, device=None, dtype=torch.float32) -> torch.Tensor:
        """The inputs before the first token: zeros, as the causal padding of ``forward``."""
        return torch.zeros(batch, self.conv.in_channels, self.width - 1, device=device, dtype=dtype)  # (B, C, W−1)

    def step(self, x: torch.Tensor, buf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, C), buf (B, C, W−1) of the previous inputs (oldest first) → (B, C) output, new buffer."""
        window = torch.cat([buf, x.unsqueeze(-1)], dim=-1)  # (B, C, W) oldest → newest, as conv1d's taps
        y = (window * self.conv.weight.squeeze(1)).sum(-1) + self.conv.bias  # (B, C)
        return F.silu(y), window[..., 1:]  # (B, C), (B, C, W−1)


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

    def _ssm_inputs(self, u: torch.Tensor):
        """From the conv'd input u (..., E·D): step Δ (..., E·D), A (E·D, N), input B and readout C (..., N)."""
        dt_in, Bm, Cm = self.x_proj(u).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt_in))  # (..., E·D)
        return dt, -torch.exp(self.A_log), Bm, Cm  # (..., E·D), (E·D, N), (..., N), (..., N)

    def _conv_input(self, x: torch.Tensor):
        xz = self.in_proj(x)  # (B, T, 2·E·D)
        u, z = xz.chunk(2, dim=-1)  # (B, T, E·D) each
        u = self.conv(u) if self.conv is not None else F.silu(u)  # (B, T, E·D)
        return u, z

    def _decay_and_input(self, x: torch.Tensor):
        """The full (B, T, E·D, N) decay a and input b (for spectra; the scan never builds them), u, z, C."""
        u, z = self._conv_input(x)  # (B, T, E·D) each
        dt, A, Bm, Cm = self._ssm_inputs(u)  # (B, T, E·D), (E·D, N), (B, T, N), (B, T, N)
        a = selective_ops.selective_decay(dt, A, self.eig_range)  # (B, T, E·D, N)
        b = selective_ops.selective_input(dt, u, Bm)  # (B, T, E·D, N)
        return a, b, u, z, Cm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u, z = self._conv_input(x)  # (B, T, E·D) each
        dt, A, Bm, Cm = self._ssm_inputs(u)  # (B, T, E·D), (E·D, N), (B, T, N), (B, T, N)
        scan = selective_ops.selective_scan if self.backend == "fast" else selective_ops.selective_scan_sequential
        y, _ = scan(u, dt, A, Bm, Cm, eig_range=self.eig_range)  # (B, T, E·D)
        y = y + self.D * u  # (B, T, E·D)
        return self.out_proj(y * F.silu(z))  # (B, T, D)

    def init_state(self, batch: int, device=None, dtype=torch.float32) -> tuple[torch.Tensor, ...]:
        """(h,) or (h, conv buffer): h (B, E·D, N) zeros; the buffer (B, E·D, d_conv − 1) zeros."""
        h = torch.zeros(batch, self.A_log.shape[0], self.d_state, device=device, dtype=dtype)  # (B, E·D, N)
        if self.conv is None:
            return (h,)
        return h, self.conv.init_state(batch, device, dtype)

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, ...]):
        """One token: x (B, D) → (B, D) and the next state; a rollout equals ``forward``."""
        h = state[0]  # (B, E·D, N)
        u, z = self.in_proj(x).chunk(2, dim=-1)  # (B, E·D) each
        if self.conv is not None:
            u, buf = self.conv.step(u, state[1])  # (B, E·D), (B, E·D, d_conv − 1)
        else:
            u = F.silu(u)  # (B, E·D)
        dt, A, Bm, Cm = self._ssm_inputs(u)  # (B, E·D), (E·D, N), (B, N), (B, N)
        a = selective_ops.selective_decay(dt, A, self.eig_range)  # (B, E·D, N)
        h = a * h + selective_ops.selective_input(dt, u, Bm)  # (B, E·D, N)
        y = (h @ Cm.unsqueeze(-1)).squeeze(-1) + self.D * u  # (B, E·D)
        out = self.out_proj(y * F.silu(z))  # (B, D)
        return out, ((h,) if self.conv is None else (h, buf))

    def transition_matrices(self, x: torch.Tensor) -> torch.Tensor:
        """A(x_t) as E·D·N blocks 1×1, the decays a_t (NE Eq. 2): (B, T, E·D·N, 1, 1) (for spectra)."""
        return self._decay_and_input(x)[0].flatten(2)[..., None, None]  # (B, T, E·D·N, 1, 1)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The diagonal of A(x_t): (B, T, E·D·N), real."""
        a = self._decay_and_input(x)[0]  # (B, T, E·D, N)
        return a.flatten(2)


class _HouseholderMixer(nn.Module):
    """Shared body of DeltaNet (n_h = 1) and DeltaProduct (n_h ≥ 1): projections, convs, step.

    Parameters are laid out so that n_h = 1 gives exactly DeltaNet's: ``qkv`` maps D → (1 + 2 n_h)·D
    (q, then n_h keys, then n_h values, each block ordered (n_h, H, d) like fla's '(n h d)'), one short
    convolution each for q, the keys and the values, and ``b_proj`` D → n_h·H.
    """

    def __init__(self, d_model: int, num_heads: int, d_conv: int, eig_range: str, backend: str,
                 num_householder: int, backends: dict):
        super().__init__()
        if eig_range not in EIG_RANGES:
            raise ValueError(f"eig_range {eig_range!r} is not allowed; allowed: {list(EIG_RANGES)}")
        if d_model % num_heads:
            raise ValueError(f"num_heads={num_heads} must divide d_model={d_model}")
        if num_householder < 1:
            raise ValueError(f"num_householder={num_householder} must be >= 1")
        if backend not in backends:
            raise ValueError(f"backend {backend!r} is not allowed; allowed: {sorted(backends)}")
        self.num_heads, self.eig_range, self.backend = num_heads, eig_range, backend
        self.num_householder = n = num_householder
        self.head_dim = d_model // num_heads
        self._backends = backends  # looked up at call time, so setting ``self.backend`` takes effect
        self.qkv = nn.Linear(d_model, (1 + 2 * n) * d_model, bias=False)
        widths = (d_model, n * d_model, n * d_model)  # q, keys, values
        self.convs = nn.ModuleList(ShortConv(w, d_conv) for w in widths) if d_conv > 0 else None
        self.b_proj = nn.Linear(d_model, n * num_heads)
        self.o_norm = nn.RMSNorm(self.head_dim, eps=1e-5)  # fla's eps; explicit, so fp32 and fp64 are one function
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def _split(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        D = self.o_proj.in_features
        n = self.num_householder
        return self.qkv(x).split([D, n * D, n * D], dim=-1)  # (..., D), (..., n_h·D), (..., n_h·D)

    def _heads(self, q, k, v, x):
        """Post-conv features (B, T, ·) → q (B, H, T, d), k, v (B, H, T, n_h, d), β (B, H, T, n_h)."""
        B, T, _ = q.shape
        H, d, n = self.num_heads, self.head_dim, self.num_householder
        q = F.normalize(q.view(B, T, H, d).transpose(1, 2), dim=-1)  # (B, H, T, d)
        k = F.normalize(k.view(B, T, n, H, d).permute(0, 3, 1, 2, 4), dim=-1)  # (B, H, T, n_h, d)
        v = v.view(B, T, n, H, d).permute(0, 3, 1, 2, 4)  # (B, H, T, n_h, d)
        beta = torch.sigmoid(self.b_proj(x)).view(B, T, n, H).permute(0, 3, 1, 2)  # (B, H, T, n_h)
        if self.eig_range == "[-1,1]":
            beta = 2 * beta  # (B, H, T, n_h)
        return q, k, v, beta

    def _qkvb(self, x: torch.Tensor):
        q, k, v = self._split(x)  # (B, T, D), (B, T, n_h·D), (B, T, n_h·D)
        if self.convs is not None:
            q, k, v = (conv(t) for conv, t in zip(self.convs, (q, k, v)))  # same shapes
        else:
            q, k, v = F.silu(q), F.silu(k), F.silu(v)  # same shapes
        return self._heads(q, k, v, x)

    def _out(self, o: torch.Tensor) -> torch.Tensor:
        """o (B, H, T, d) → (B, T, D): per-head RMSNorm, merge heads, project."""
        B, H, T, d = o.shape
        return self.o_proj(self.o_norm(o).transpose(1, 2).reshape(B, T, H * d))  # (B, T, D)

    def init_state(self, batch: int, device=None, dtype=torch.float32) -> tuple[torch.Tensor, ...]:
        """(S,) or (S, q-conv, k-conv, v-conv buffers); S (B, H, d, d) zeros."""
        S = torch.zeros(batch, self.num_heads, self.head_dim, self.head_dim, device=device, dtype=dtype)
        if self.convs is None:
            return (S,)
        return (S, *(conv.init_state(batch, device, dtype) for conv in self.convs))

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, ...]):
        """One token: x (B, D) → (B, D) and the next state; n_h rank-one writes, then one read."""
        S = state[0]  # (B, H, d, d)
        q, k, v = self._split(x)  # (B, D), (B, n_h·D), (B, n_h·D)
        if self.convs is not None:
            stepped = [conv.step(t, buf) for conv, t, buf in zip(self.convs, (q, k, v), state[1:])]
            (q, bq), (k, bk), (v, bv) = stepped  # (B, ·) features and (B, ·, d_conv − 1) buffers
        else:
            q, k, v = F.silu(q), F.silu(k), F.silu(v)
        q, k, v, beta = self._heads(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), x.unsqueeze(1))
        q, k, v, beta = q[:, :, 0], k[:, :, 0], v[:, :, 0], beta[:, :, 0]  # (B,H,d), (B,H,n_h,d) ×2, (B,H,n_h)
        for k_j, v_j, beta_j in zip(k.unbind(2), v.unbind(2), beta.unbind(2)):  # (B, H, d), ..., (B, H)
            error = beta_j.unsqueeze(-1) * (v_j - (k_j.unsqueeze(-2) @ S).squeeze(-2))  # (B, H, d)
            S = S + k_j.unsqueeze(-1) * error.unsqueeze(-2)  # (B, H, d, d)
        o = (q.unsqueeze(-2) @ S)  # (B, H, 1, d) S_tᵀ q_t
        out = self._out(o)[:, 0]  # (B, D)
        return out, ((S,) if self.convs is None else (S, bq, bk, bv))


class DeltaNetMixer(_HouseholderMixer):
    """DeltaNet (generalized Householder transitions): S_t = (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ.

    Per head h of width d = D/H::

        q_t, k_t = L2norm(SiLU(conv(W_q x))), L2norm(SiLU(conv(W_k x)))      (B, H, T, d)
        v_t      = SiLU(conv(W_v x))                                         (B, H, T, d)
        β_t      = sigmoid(w_βᵀ x_t)  or  2·sigmoid(w_βᵀ x_t)                by eig_range
        o_t      = RMSNorm(S_tᵀ q_t),  out = W_o [o_t of all heads]

    With ‖k_t‖ = 1 the transition's eigenvalues are 1 (multiplicity d − 1) and 1 − β_t, so they lie in
    [0, 1] or [−1, 1] and the spectral norm stays ≤ 1 (NE Prop. 1). This follows fla's DeltaNet layer
    (SiLU + L2-normalised q and k, short convolutions, per-head output RMSNorm), without its output
    gate. ``d_conv = 0`` replaces the convolutions by a plain SiLU. ``backend``: "fast" (chunked
    WY/UT), "reference" (the loop) or "fla" (fla's Triton kernel on CUDA in bf16, else the fast path
    with a one-time warning).
    """

    def __init__(self, d_model: int, num_heads: int, d_conv: int, eig_range: str, backend: str = "fast"):
        super().__init__(d_model, num_heads, d_conv, eig_range, backend, num_householder=1, backends={
            "fast": delta_ops.delta_rule_chunked, "reference": delta_ops.delta_rule_sequential, "fla": delta_ops.delta_rule_fla,
        })

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v, beta = self._qkvb(x)  # (B, H, T, d), (B, H, T, 1, d) ×2, (B, H, T, 1)
        o, _ = self._backends[self.backend](q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0])  # (B, H, T, d)
        return self._out(o)  # (B, T, D)

    def transition_matrices(self, x: torch.Tensor) -> torch.Tensor:
        """A(x_t) = I − β_t k_t k_tᵀ per head, acting on S from the left: (B, T, H, d, d) (for spectra)."""
        _, k, _, beta = self._qkvb(x)  # (B, H, T, 1, d), (B, H, T, 1)
        k, beta = k[:, :, :, 0], beta[..., 0]  # (B, H, T, d), (B, H, T)
        eye = torch.eye(k.shape[-1], dtype=k.dtype, device=k.device)  # (d, d)
        A = eye - beta[..., None, None] * k.unsqueeze(-1) * k.unsqueeze(-2)  # (B, H, T, d, d)
        return A.transpose(1, 2)  # (B, T, H, d, d)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """The non-unit eigenvalue 1 − β_t ‖k_t‖² of each head's transition: (B, T, H), real."""
        _, k, _, beta = self._qkvb(x)  # (B, H, T, 1, d), (B, H, T, 1)
        return (1 - beta[..., 0] * k[:, :, :, 0].pow(2).sum(-1)).transpose(1, 2)  # (B, T, H)


class DeltaProductMixer(_HouseholderMixer):
    """DeltaProduct (Siems et al. 2025): S_t = H_{t,n_h} ⋯ H_{t,1} S_{t−1} + writes, H_{t,j} = I − β k kᵀ.

    Like DeltaNet, but each token emits n_h (k, v, β) triples (``num_householder``; the DeltaProduct
    paper's n_h) and applies n_h delta-rule steps before the output ``o_t = RMSNorm(S_tᵀ q_t)`` is read::

        q_t                  = L2norm(SiLU(conv(W_q x)))                         (B, H, T, d)
        k_{t,j}, v_{t,j}     = L2norm(SiLU(conv(W_k x)))_j, SiLU(conv(W_v x))_j    (B, H, T, n_h, d)
        β_{t,j}              = sigmoid(w_{β,j}ᵀ x_t)  or  2·sigmoid(...)          by eig_range

    A(x_t) is a product of n_h generalized Householder matrices, each with eigenvalues in [0, 1] or
    [−1, 1], so ‖A(x_t)‖ ≤ 1 (NE Prop. 1.1). With eig_range [0,1] and n_h ≤ 2 the eigenvalues stay
    real in [0, 1] (NE Prop. 1.3); with [−1,1] two reflections already make a rotation (complex
    eigenvalues), which is what lets products of Householders represent S_n (NE Thm 3, 4). n_h = 1 is
    DeltaNet on the same weights. The fast path interleaves to length T·n_h and reuses the chunked
    delta rule (``ops.delta_product_chunked``); our layer has no forget gate (fla's GatedDeltaProduct
    has one) and no output gate, like our DeltaNet.
    """

    def __init__(self, d_model: int, num_heads: int, d_conv: int, eig_range: str, num_householder: int,
                 backend: str = "fast"):
        super().__init__(d_model, num_heads, d_conv, eig_range, backend, num_householder, backends={
            "fast": delta_ops.delta_product_chunked, "reference": delta_ops.delta_product_sequential,
            "fla": delta_ops.delta_product_fla,
        })

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v, beta = self._qkvb(x)  # (B, H, T, d), (B, H, T, n_h, d) ×2, (B, H, T, n_h)
        o, _ = self._backends[self.backend](q, k, v, beta)  # (B, H, T, d)
        return self._out(o)  # (B, T, D)

    def transition_matrices(self, x: torch.Tensor) -> torch.Tensor:
        """A(x_t) = H_{t,n_h} ⋯ H_{t,1} per head, built explicitly: (B, T, H, d, d) (for tests and plots)."""
        _, k, _, beta = self._qkvb(x)  # (B, H, T, n_h, d), (B, H, T, n_h)
        eye = torch.eye(self.head_dim, dtype=k.dtype, device=k.device)  # (d, d)
        A = eye.expand(*k.shape[:3], -1, -1)  # (B, H, T, d, d)
        for k_j, beta_j in zip(k.unbind(3), beta.unbind(3)):  # (B, H, T, d), (B, H, T)
            Hj = eye - beta_j[..., None, None] * k_j.unsqueeze(-1) * k_j.unsqueeze(-2)  # (B, H, T, d, d)
            A = Hj @ A  # (B, H, T, d, d) later factors on the left
        return A.transpose(1, 2)  # (B, T, H, d, d)

    def transition_eigenvalues(self, x: torch.Tensor) -> torch.Tensor:
        """All d eigenvalues of each head's A(x_t): (B, T, H·d), complex (real for [0,1] with n_h ≤ 2)."""
        A = self.transition_matrices(x)  # (B, T, H, d, d)
        # Eigenvalues of a non-normal matrix with a repeated eigenvalue (1, multiplicity d − n_h) are
        # ill-conditioned: an fp32 solve misses by ~1e-6. Solve in fp64, return in the matching complex type.
        ev = torch.linalg.eigvals(A.double())  # (B, T, H, d) complex128
        return ev.to(torch.complex128 if A.dtype == torch.float64 else torch.complex64).flatten(2)  # (B, T, H·d)
