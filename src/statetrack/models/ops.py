"""Pure recurrences of the linear RNNs, each as a pair: a sequential reference and a fast path.

Two transition rules from NE (PAPERS.md 1.1), both instances of NE Eq. 1, ``H_t = A(x_t) H_{t-1} + B(x_t)``:

- **diagonal** (Mamba's selective scan): ``A(x_t) = Diag(a_t)``, so ``h_t = a_t ⊙ h_{t-1} + b_t``.
  Negative eigenvalues (NE Eq. 2) are simply entries ``a_t < 0``; every function here works in linear
  space, so signs need no special care.
- **delta rule** (DeltaNet): ``A(x_t) = I - β_t k_t k_tᵀ`` (a generalized Householder matrix),
  ``B(x_t) = β_t k_t v_tᵀ``; with ``‖k_t‖ = 1`` and ``β_t ∈ [0, 2]`` its eigenvalues ``1 - β_t`` lie in
  ``[-1, 1]`` (NE Eq. 2 for DeltaNet is ``β = 2·sigmoid(·)``).

Pairs (``<rule>_sequential`` is the readable oracle, the other is what the layers call):

- ``diagonal_recurrence_sequential`` / ``diagonal_recurrence``: the same loop, the fast one without a
  per-step autograd graph and with a hand-written adjoint backward.
- ``delta_rule_sequential`` / ``delta_rule_chunked``: the chunkwise WY/UT form (fla's DeltaNet algorithm).

Hand-worked examples (also pinned in ``tests/test_ops.py``)::

    diagonal, scalar a_t = -1, b_t = 1, h_0 = 0:   h = 1, 0, 1, 0, ...       (parity of t, NE Thm 1)
    delta rule, k = e_1, β = 2, v = 0:             S ← (I - 2 e_1 e_1ᵀ) S    (the first row of S flips sign)

Why these fast paths (PERFORMANCE.md 0, 2.1, 2.3, 3): on CPU a plain loop over ``unbind`` is already the
fastest *scan* for the diagonal rule, so its fast path keeps the loop and only removes autograd's per-step
graph; for the delta rule the chunkwise WY/UT form turns T rank-one updates into T/C small matmuls and is
several times faster than its loop. Everything runs in fp32 or fp64 (PERFORMANCE.md 7: no bf16/TF32 in
state recurrences) and on CPU or CUDA alike (new tensors take the inputs' device and dtype).

Shape letters (book/notation.md): B batch, T time, H heads, N state size; ``*S`` is any trailing state
shape of the diagonal rule (e.g. (D, N) for Mamba); dk/dv are key/value widths; C is the chunk length and
NC = ceil(T / C) the number of chunks.

Used in: ne1, ne4, ne5, ne6, ne7, bl2 (through the Mamba-like and DeltaNet layers in ``models/layers.py``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

__all__ = [
    "diagonal_recurrence_sequential",
    "diagonal_recurrence",
    "delta_rule_sequential",
    "delta_rule_chunked",
]


# ---------------------------------------------------------------------------------------------------------
# Diagonal rule: h_t = a_t ⊙ h_{t-1} + b_t
# ---------------------------------------------------------------------------------------------------------


def diagonal_recurrence_sequential(a: Tensor, b: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """h_t = a_t ⊙ h_{t-1} + b_t (NE Eq. 1 with A(x_t) diagonal; Mamba's selective scan).

    The reference: a plain loop over ``unbind(dim=1)`` that autograd differentiates.

    Args:
        a: (B, T, *S) per-step decay, the diagonal of A(x_t); entries in [-1, 1] for NE's extended range.
        b: (B, T, *S) per-step input B(x_t), same shape as ``a``.
        h0: (B, *S) initial state, or None for zeros.

    Returns:
        h: (B, T, *S) the state after every step.
        h_last: (B, *S) the final state h_T.

    Used in: tests (ground truth for ``diagonal_recurrence``).
    """
    h = torch.zeros_like(b[:, 0]) if h0 is None else h0  # (B, *S)
    states = []
    for a_t, b_t in zip(a.unbind(dim=1), b.unbind(dim=1)):  # (B, *S) each
        h = a_t * h + b_t  # (B, *S)
        states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, *S), (B, *S)


class _DiagonalRecurrence(torch.autograd.Function):
    """Forward and backward of ``h_t = a_t ⊙ h_{t-1} + b_t`` as graph-free loops.

    Forward writes every state into one preallocated buffer. Backward runs the adjoint recurrence in
    reverse, ``g_t = dL/dh_t + a_{t+1} ⊙ g_{t+1}``, and in the same pass ``dL/da_{t+1} = g_{t+1} ⊙ h_t``
    (while g_{t+1} is still in cache); ``dL/db_t = g_t`` and ``dL/dh_0 = a_1 ⊙ g_1``. Each step is one
    or two fused elementwise ops writing straight into the result buffers: no per-step graph nodes and
    no full-size temporaries (cloning ``grad_h`` first or differentiating a view for ``h_last`` would
    each cost an extra pass over (B, T, *S) memory).
    """

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor, h0: Tensor | None) -> tuple[Tensor, Tensor]:
        h = torch.empty_like(b, memory_format=torch.contiguous_format)  # (B, T, *S)
        h_prev = h0  # (B, *S) or None
        for a_t, b_t, h_t in zip(a.unbind(dim=1), b.unbind(dim=1), h.unbind(dim=1)):  # (B, *S) each
            if h_prev is None:  # h_0 = 0, so h_1 = b_1
                h_t.copy_(b_t)  # (B, *S)
            else:
                torch.addcmul(b_t, a_t, h_prev, out=h_t)  # (B, *S) a_t ⊙ h_{t-1} + b_t
            h_prev = h_t  # (B, *S)
        ctx.save_for_backward(a, h, h0)
        # h_last is a copy, not a view of h: autograd would otherwise route its gradient through a
        # full-size zero tensor. Copying one step is cheap.
        return h, h_prev.clone()  # (B, T, *S), (B, *S)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_h: Tensor, grad_last: Tensor):
        a, h, h0 = ctx.saved_tensors  # (B, T, *S), (B, T, *S), (B, *S) or None
        need_a, _, need_h0 = ctx.needs_input_grad
        g = torch.empty_like(h)  # (B, T, *S) g_t = dL/dh_t through every later step; also dL/db
        grad_a = torch.empty_like(h) if need_a else None  # (B, T, *S)
        g_steps, a_steps, h_steps = g.unbind(dim=1), a.unbind(dim=1), h.unbind(dim=1)  # T × (B, *S)
        grad_h_steps = grad_h.unbind(dim=1)  # T × (B, *S)
        grad_a_steps = grad_a.unbind(dim=1) if need_a else None  # T × (B, *S)
        last = len(g_steps) - 1
        torch.add(grad_h_steps[last], grad_last, out=g_steps[last])  # (B, *S) g_T
        for t in range(last - 1, -1, -1):
            torch.addcmul(grad_h_steps[t], a_steps[t + 1], g_steps[t + 1], out=g_steps[t])  # (B, *S)
            if need_a:
                torch.mul(g_steps[t + 1], h_steps[t], out=grad_a_steps[t + 1])  # (B, *S) g_{t+1} ⊙ h_t
        if need_a:
            if h0 is None:
                grad_a_steps[0].zero_()  # (B, *S) since h_0 = 0
            else:
                torch.mul(g_steps[0], h0, out=grad_a_steps[0])  # (B, *S) g_1 ⊙ h_0
        grad_h0 = a_steps[0] * g_steps[0] if (need_h0 and h0 is not None) else None  # (B, *S)
        return grad_a, g, grad_h0


def diagonal_recurrence(a: Tensor, b: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """h_t = a_t ⊙ h_{t-1} + b_t (NE Eq. 1 with A(x_t) diagonal); fast path of ``diagonal_recurrence_sequential``.

    Same contract and same arithmetic as the reference, but the loop runs without building an autograd
    graph and the backward is the hand-written adjoint recurrence (see ``_DiagonalRecurrence``).
    Log-depth or chunked scans are slower than this loop on CPU (PERFORMANCE.md 2.3, 3), and a loop
    keeps negative ``a`` exact. Not twice differentiable.

    Args:
        a: (B, T, *S) per-step decay; b: (B, T, *S) per-step input; h0: (B, *S) or None (zeros).

    Returns:
        h: (B, T, *S) every state; h_last: (B, *S) the final state (equal to ``h[:, -1]``).

    Used in: ne1, ne4, ne7, bl2 (the Mamba-like layer).
    """
    return _DiagonalRecurrence.apply(a, b, h0)  # (B, T, *S), (B, *S)


# ---------------------------------------------------------------------------------------------------------
# Delta rule: S_t = (I - β_t k_t k_tᵀ) S_{t-1} + β_t k_t v_tᵀ,  o_t = S_tᵀ q_t
# ---------------------------------------------------------------------------------------------------------


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
