"""The delta rule S_t = (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t (DeltaNet; NE Eq. 2).

Pair: ``delta_rule_sequential`` (the autograd loop in rank-one form, the oracle) and
``delta_rule_chunked`` (the chunkwise WY/UT form of fla's DeltaNet, pure torch, exact in fp32/fp64).
With ‖k_t‖ = 1 and β_t ∈ [0, 2] the transition's eigenvalues 1 − β_t lie in [−1, 1].

Hand-worked example: k = e_1, β = 2, v = 0 gives S ← (I − 2 e_1 e_1ᵀ) S: the first row of S flips sign.

Both functions switch autocast off inside, so a caller's bf16 autocast cannot turn the state
matmuls into bf16 (PERFORMANCE.md 7).

Used in: ne1, ne4, ne5, ne6, ne7 (the DeltaNet layer).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["delta_rule_sequential", "delta_rule_chunked"]


def delta_rule_sequential(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """S_t = (I - β_t k_t k_tᵀ) S_{t-1} + β_t k_t v_tᵀ,  o_t = S_tᵀ q_t (DeltaNet, NE Eq. 2 with β ∈ [0,2]).

    The reference: a loop over ``unbind(dim=2)`` that autograd differentiates. Each step is written in
    the equivalent rank-one form ``S_t = S_{t-1} + β_t k_t (v_t - S_{t-1}ᵀ k_t)ᵀ`` (the delta rule:
    write β_t times the error between the new value and what the memory returns for k_t), which never
    builds the (dk, dk) matrix ``I - β_t k_t k_tᵀ``.

    Args:
        q: (B, H, T, dk) queries.
        k: (B, H, T, dk) keys; unit norm for the eigenvalue range ``1 - β`` to hold.
        v: (B, H, T, dv) values.
        beta: (B, H, T) write strengths β_t; [0, 1] is DeltaNet, [0, 2] is NE's extended range.
        S0: (B, H, dk, dv) initial state, or None for zeros.

    Returns:
        o: (B, H, T, dv) the outputs ``o_t = S_tᵀ q_t`` (read after the write).
        S_last: (B, H, dk, dv) the final state S_T.

    Used in: tests (ground truth for ``delta_rule_chunked``).
    """
    B, H, _, dk = k.shape
    dv = v.shape[-1]
    S = q.new_zeros(B, H, dk, dv) if S0 is None else S0  # (B, H, dk, dv)
    outputs = []
    steps = zip(q.unbind(dim=2), k.unbind(dim=2), v.unbind(dim=2), beta.unbind(dim=2))
    with torch.autocast(device_type=q.device.type, enabled=False):  # state math in the inputs' dtype
        for q_t, k_t, v_t, beta_t in steps:  # (B, H, dk), (B, H, dk), (B, H, dv), (B, H)
            recalled = (k_t.unsqueeze(-2) @ S).squeeze(-2)  # (B, H, dv) S_{t-1}ᵀ k_t
            error = beta_t.unsqueeze(-1) * (v_t - recalled)  # (B, H, dv) β_t (v_t - S_{t-1}ᵀ k_t)
            S = S + k_t.unsqueeze(-1) * error.unsqueeze(-2)  # (B, H, dk, dv)
            outputs.append((q_t.unsqueeze(-2) @ S).squeeze(-2))  # (B, H, dv) S_tᵀ q_t
    return torch.stack(outputs, dim=2), S  # (B, H, T, dv), (B, H, dk, dv)


def delta_rule_chunked(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None, chunk_size: int = 32
) -> tuple[Tensor, Tensor]:
    """S_t = (I - β_t k_t k_tᵀ) S_{t-1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t; chunkwise WY/UT form (fla's DeltaNet).

    Same contract as ``delta_rule_sequential``; exact up to rounding in fp32 and fp64, for any β
    (PERFORMANCE.md 2.1). Derivation, inside one chunk of C steps starting from state S
    (rows of K, V, Q are k_t, v_t, q_t; Δ has rows ``Δ_t = β_t (v_t - S_{t-1}ᵀ k_t)``):

    - ``S_t = S + Σ_{i≤t} k_i Δ_iᵀ``, so ``Δ_t = β_t (v_t - Sᵀ k_t - Σ_{i<t} (k_tᵀ k_i) Δ_i)``, i.e.
      ``(I + A) Δ = diag(β) (V - K S)`` with ``A = tril(diag(β) K Kᵀ, -1)`` (strictly lower).
    - UT transform: ``T = (I + A)⁻¹ diag(β)`` (one unit-triangular solve), ``W = T K``, ``U = T V``,
      so ``Δ = U - W S``: only this and the state update are sequential across chunks.
    - ``o_t = S_tᵀ q_t`` gives ``O = Q S + (Q Kᵀ ⊙ M) Δ`` with M the inclusive lower-triangular mask,
      and the next chunk starts from ``S + Kᵀ Δ``.

    T is padded to a multiple of C with k = v = q = 0 and β = 0, an identity step that writes nothing;
    the padded outputs are cut off. The loop over chunks only computes Δ and S; the outputs of all
    chunks are then two batched matmuls. Autograd differentiates everything. Autocast is switched off
    inside (both delta-rule functions), so the math runs in the inputs' dtype; on CUDA keep
    ``torch.backends.cuda.matmul.allow_tf32`` False (its default) for the same reason.

    Args:
        q, k: (B, H, T, dk); v: (B, H, T, dv); beta: (B, H, T); S0: (B, H, dk, dv) or None (zeros).
        chunk_size: C, steps per chunk. On 2 CPU threads C = 16 and 32 tie at T=256, d=64 (~100 ms
            fwd+bwd at B=32, H=4); at short T, C = 16 wins by wasting less padding (T=40: 5 vs 8 ms).

    Returns:
        o: (B, H, T, dv) outputs; S_last: (B, H, dk, dv) final state.

    Used in: ne1, ne4, ne5, ne6, ne7 (the DeltaNet layer).
    """
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    C = chunk_size
    NC = -(-T // C)  # number of chunks, ceil(T / C)
    pad = NC * C - T
    if pad:
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))  # (B, H, NC·C, d) each
        beta = F.pad(beta, (0, pad))  # (B, H, NC·C)
    q = q.reshape(B, H, NC, C, dk)  # (B, H, NC, C, dk)
    k = k.reshape(B, H, NC, C, dk)  # (B, H, NC, C, dk)
    v = v.reshape(B, H, NC, C, dv)  # (B, H, NC, C, dv)
    beta = beta.reshape(B, H, NC, C)  # (B, H, NC, C)

    # Autocast off: under a caller's bf16 autocast the matmuls below would silently drop to bf16,
    # which is useless for state tracking (PERFORMANCE.md 3, 7). Inputs keep their own dtype.
    with torch.autocast(device_type=q.device.type, enabled=False):
        # UT transform for all chunks at once.
        eye = torch.eye(C, dtype=k.dtype, device=k.device)  # (C, C)
        k_beta = k * beta.unsqueeze(-1)  # (B, H, NC, C, dk) diag(β) K
        A = torch.tril(k_beta @ k.transpose(-1, -2), diagonal=-1)  # (B, H, NC, C, C)
        T_ut = torch.linalg.solve_triangular(
            eye + A, torch.diag_embed(beta), upper=False, unitriangular=True
        )  # (B, H, NC, C, C) (I + A)⁻¹ diag(β)
        W = T_ut @ k  # (B, H, NC, C, dk)
        U = T_ut @ v  # (B, H, NC, C, dv)

        # Sequential part: T/C steps of two small matmuls.
        S = q.new_zeros(B, H, dk, dv) if S0 is None else S0  # (B, H, dk, dv)
        starts, deltas = [], []
        for W_c, U_c, k_c in zip(W.unbind(dim=2), U.unbind(dim=2), k.unbind(dim=2)):  # (B, H, C, d) each
            starts.append(S)
            delta = U_c - W_c @ S  # (B, H, C, dv) Δ = U - W S
            deltas.append(delta)
            S = S + k_c.transpose(-1, -2) @ delta  # (B, H, dk, dv)
        S_starts = torch.stack(starts, dim=2)  # (B, H, NC, dk, dv)
        delta = torch.stack(deltas, dim=2)  # (B, H, NC, C, dv)

        # Outputs of every chunk: O = Q S + (Q Kᵀ ⊙ M) Δ.
        scores = torch.tril(q @ k.transpose(-1, -2))  # (B, H, NC, C, C) inclusive causal mask
        o = q @ S_starts + scores @ delta  # (B, H, NC, C, dv)
        o = o.reshape(B, H, NC * C, dv)[:, :, :T]  # (B, H, T, dv)
    return o, S  # (B, H, T, dv), (B, H, dk, dv)


def _inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """Unit-norm keys, β ∈ [0, 2] (eigenvalues in [−1, 1]), a nonzero initial state."""
    B, H, dk, dv = size["B"], size["H"], size["dk"], size.get("dv", size["dk"])
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    q = F.normalize(torch.randn(B, H, T, dk, **f64), dim=-1)  # (B, H, T, dk)
    k = F.normalize(torch.randn(B, H, T, dk, **f64), dim=-1)  # (B, H, T, dk)
    v = torch.randn(B, H, T, dv, **f64)  # (B, H, T, dv)
    beta = 2 * torch.rand(B, H, T, **f64)  # (B, H, T)
    S0 = 0.1 * torch.randn(B, H, dk, dv, **f64)  # (B, H, dk, dv)
    return tuple(x.to(dtype) for x in (q, k, v, beta, S0))


register_pair(OpPair(
    name="delta_rule", reference=delta_rule_sequential, fast=delta_rule_chunked, make_inputs=_inputs,
    sizes={"cpu": {"B": 32, "H": 4, "T": 256, "dk": 64}, "cpu_small": {"B": 64, "H": 2, "T": 40, "dk": 16},
           "gpu": {"B": 64, "H": 4, "T": 500, "dk": 64}},
    why="chunkwise WY/UT form: T/C sequential steps of small matmuls instead of T rank-one updates",
))
