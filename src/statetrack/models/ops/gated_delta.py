"""S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t: the gated delta rule (Gated DeltaNet).

Yang, Kautz and Hatamizadeh (2025), "Gated Delta Networks": DeltaNet's generalized Householder
transition times a data-dependent scalar gate α_t ∈ (0, 1] per head. The gate enters as its log,
g_t = log α_t ≤ 0, as in Mamba-2 and fla's ``chunk_gated_delta_rule``, so that chunk-local decay
ratios α_{i+1} ⋯ α_t are formed as exp(Σ g) without dividing by a vanishing product.

Pair:

- ``gated_delta_rule_sequential``: the autograd loop in rank-one form, the oracle.
- ``gated_delta_rule_chunked``: the chunkwise WY/UT form of ``delta.delta_rule_chunked`` with the
  decays folded into the triangular system, the keys, the queries and the causal mask.

With ‖k_t‖ = 1 the transition's eigenvalues are α_t (multiplicity d − 1) and α_t (1 − β_t): real, in
[0, 1] for β ∈ [0, 1] and in [−1, 1] for β ∈ [0, 2] (NE's extension, which Gated DeltaNet's fla layer
calls ``allow_neg_eigval``).

Hand-worked example: k = e_1, β = 2, α = 1/2, v = 0 gives S ← ½ (I − 2 e_1 e_1ᵀ) S: the first row of S
flips sign and every row halves.

Autocast is switched off inside both functions: the state math runs in the inputs' dtype.

Used in: the ``gated_deltanet`` model (models/gated_deltanet.py).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from statetrack.models.ops.delta import default_chunk
from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["gated_delta_rule_sequential", "gated_delta_rule_chunked"]


def gated_delta_rule_sequential(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, g: Tensor, S0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, α_t = exp(g_t), o_t = S_tᵀ q_t (Gated DeltaNet).

    The reference: a loop over ``unbind(dim=2)`` differentiated by autograd, in the rank-one form
    ``S' = α_t S_{t−1}``, ``S_t = S' + β_t k_t (v_t − S'ᵀ k_t)ᵀ`` (decay, then the delta-rule write), which
    never builds the (dk, dk) transition.

    Args:
        q: (B, H, T, dk) queries.
        k: (B, H, T, dk) keys; unit norm for the eigenvalues {α, α(1 − β)} to hold.
        v: (B, H, T, dv) values.
        beta: (B, H, T) write strengths β_t, in [0, 1] or [0, 2].
        g: (B, H, T) log-gates g_t = log α_t ≤ 0.
        S0: (B, H, dk, dv) initial state, or None for zeros.

    Returns:
        o: (B, H, T, dv) outputs o_t = S_tᵀ q_t (read after the write); S_last: (B, H, dk, dv).

    Used in: tests and ``statetrack bench`` (ground truth for ``gated_delta_rule_chunked``).
    """
    B, H, _, dk = k.shape
    dv = v.shape[-1]
    S = q.new_zeros(B, H, dk, dv) if S0 is None else S0  # (B, H, dk, dv)
    outputs = []
    steps = zip(q.unbind(2), k.unbind(2), v.unbind(2), beta.unbind(2), g.unbind(2))
    with torch.autocast(device_type=q.device.type, enabled=False):
        for q_t, k_t, v_t, beta_t, g_t in steps:  # (B, H, dk), (B, H, dk), (B, H, dv), (B, H), (B, H)
            S = torch.exp(g_t)[..., None, None] * S  # (B, H, dk, dv) α_t S_{t−1}
            recalled = (k_t.unsqueeze(-2) @ S).squeeze(-2)  # (B, H, dv) (α_t S_{t−1})ᵀ k_t
            error = beta_t.unsqueeze(-1) * (v_t - recalled)  # (B, H, dv)
            S = S + k_t.unsqueeze(-1) * error.unsqueeze(-2)  # (B, H, dk, dv)
            outputs.append((q_t.unsqueeze(-2) @ S).squeeze(-2))  # (B, H, dv) S_tᵀ q_t
    return torch.stack(outputs, dim=2), S  # (B, H, T, dv), (B, H, dk, dv)


def gated_delta_rule_chunked(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, g: Tensor, S0: Tensor | None = None,
    chunk_size: int | None = None,
) -> tuple[Tensor, Tensor]:
    """S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t; chunkwise gated WY/UT form.

    Same contract as ``gated_delta_rule_sequential``, exact up to rounding. Inside a chunk of C steps
    starting from state S, let γ_t = g_1 + … + g_t (chunk-local) and Γ_t = exp(γ_t). Writing the update
    as ``S_t = α_t S_{t−1} + k_t Δ_tᵀ`` with ``Δ_t = β_t (v_t − α_t S_{t−1}ᵀ k_t)``:

    - ``S_t = Γ_t S + Σ_{i≤t} e^{γ_t − γ_i} k_i Δ_iᵀ``, hence
      ``(I + A) Δ = diag(β) (V − diag(Γ) K S)`` with ``A_{ti} = β_t e^{γ_t − γ_i} k_tᵀ k_i`` for i < t.
    - UT transform: ``T = (I + A)⁻¹ diag(β)``, ``U = T V``, ``W = T diag(Γ) K``, so ``Δ = U − W S``.
    - Outputs ``O = diag(Γ) Q S + (Q Kᵀ ⊙ L) Δ`` with ``L_{ti} = e^{γ_t − γ_i}`` for i ≤ t, else 0.
    - Next chunk's state ``Γ_C S + (K ⊙ e^{γ_C − γ})ᵀ Δ``.

    Every exponent is ≤ 0 (the masked entries are set to −∞ before ``exp``), so nothing overflows
    however small α gets. T is padded with k = v = q = 0, β = 0 and g = 0 (an identity step).

    Args:
        q, k: (B, H, T, dk); v: (B, H, T, dv); beta, g: (B, H, T); S0: (B, H, dk, dv) or None.
        chunk_size: C; None: 16 on a CPU, 32 elsewhere (``delta.default_chunk``).

    Returns:
        o: (B, H, T, dv) outputs; S_last: (B, H, dk, dv) final state.

    Used in: the ``gated_deltanet`` model's fast path.
    """
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    C = chunk_size or default_chunk(q)
    NC = -(-T // C)  # number of chunks
    pad = NC * C - T
    if pad:
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))  # (B, H, NC·C, d) each
        beta, g = F.pad(beta, (0, pad)), F.pad(g, (0, pad))  # (B, H, NC·C) each
    q = q.reshape(B, H, NC, C, dk)  # (B, H, NC, C, dk)
    k = k.reshape(B, H, NC, C, dk)  # (B, H, NC, C, dk)
    v = v.reshape(B, H, NC, C, dv)  # (B, H, NC, C, dv)
    beta = beta.reshape(B, H, NC, C)  # (B, H, NC, C)
    g = g.reshape(B, H, NC, C)  # (B, H, NC, C)

    with torch.autocast(device_type=q.device.type, enabled=False):
        gamma = g.cumsum(-1)  # (B, H, NC, C) chunk-local γ_t
        causal = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()  # (C, C) i ≤ t
        diff = (gamma.unsqueeze(-1) - gamma.unsqueeze(-2)).masked_fill(~causal, float("-inf"))  # (B, H, NC, C, C)
        L = torch.exp(diff)  # (B, H, NC, C, C) e^{γ_t − γ_i} for i ≤ t, else 0
        Gam = torch.exp(gamma)  # (B, H, NC, C) Γ_t

        eye = torch.eye(C, dtype=k.dtype, device=k.device)  # (C, C)
        A = torch.tril((beta.unsqueeze(-1) * (k @ k.transpose(-1, -2))) * L, diagonal=-1)  # (B, H, NC, C, C)
        T_ut = torch.linalg.solve_triangular(eye + A, torch.diag_embed(beta), upper=False,
                                             unitriangular=True)  # (B, H, NC, C, C) (I + A)⁻¹ diag(β)
        W = T_ut @ (Gam.unsqueeze(-1) * k)  # (B, H, NC, C, dk)
        U = T_ut @ v  # (B, H, NC, C, dv)
        k_end = k * torch.exp(gamma[..., -1:] - gamma).unsqueeze(-1)  # (B, H, NC, C, dk) e^{γ_C − γ_i} k_i

        S = q.new_zeros(B, H, dk, dv) if S0 is None else S0  # (B, H, dk, dv)
        starts, deltas = [], []
        chunks = zip(W.unbind(2), U.unbind(2), k_end.unbind(2), Gam[..., -1].unbind(2))
        for W_c, U_c, k_c, decay_c in chunks:  # (B, H, C, dk), (B, H, C, dv), (B, H, C, dk), (B, H)
            starts.append(S)
            delta = U_c - W_c @ S  # (B, H, C, dv) Δ = U − W S
            deltas.append(delta)
            S = decay_c[..., None, None] * S + k_c.transpose(-1, -2) @ delta  # (B, H, dk, dv)
        S_starts = torch.stack(starts, dim=2)  # (B, H, NC, dk, dv)
        delta = torch.stack(deltas, dim=2)  # (B, H, NC, C, dv)

        scores = (q @ k.transpose(-1, -2)) * L  # (B, H, NC, C, C) decayed causal scores
        o = (Gam.unsqueeze(-1) * q) @ S_starts + scores @ delta  # (B, H, NC, C, dv)
        o = o.reshape(B, H, NC * C, dv)[:, :, :T]  # (B, H, T, dv)
    return o, S  # (B, H, T, dv), (B, H, dk, dv)


def _inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """Unit-norm keys, β ∈ [0, 2], gates α ∈ [0.5, 1] (log-gates g ∈ [log 0.5, 0]), a nonzero initial state."""
    B, H, dk, dv = size["B"], size["H"], size["dk"], size.get("dv", size["dk"])
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    q = F.normalize(torch.randn(B, H, T, dk, **f64), dim=-1)  # (B, H, T, dk)
    k = F.normalize(torch.randn(B, H, T, dk, **f64), dim=-1)  # (B, H, T, dk)
    v = torch.randn(B, H, T, dv, **f64)  # (B, H, T, dv)
    beta = 2 * torch.rand(B, H, T, **f64)  # (B, H, T)
    g = torch.log1p(-0.5 * torch.rand(B, H, T, **f64))  # (B, H, T) log α, α ∈ (0.5, 1]
    S0 = 0.1 * torch.randn(B, H, dk, dv, **f64)  # (B, H, dk, dv)
    return tuple(x.to(dtype) for x in (q, k, v, beta, g, S0))


register_pair(OpPair(
    name="gated_delta_rule", reference=gated_delta_rule_sequential, fast=gated_delta_rule_chunked,
    make_inputs=_inputs,
    sizes={"cpu": {"B": 8, "H": 4, "T": 256, "dk": 32}, "gpu": {"B": 64, "H": 4, "T": 500, "dk": 64}},
    why="chunkwise gated WY/UT form: T/C sequential steps of small matmuls instead of T rank-one updates",
))
