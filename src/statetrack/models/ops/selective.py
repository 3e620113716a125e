"""Mamba's selective scan y_t = ⟨h_t, C_t⟩, h_t = exp(Δ_t A) ⊙ h_{t−1} + (Δ_t u_t) ⊗ B_t (Mamba Alg. 2; NE Eq. 2).

Pair: ``selective_scan_sequential`` (builds the full (B, T, E·D, N) decay a and input b, runs the
diagonal reference loop of ``diagonal.py`` and reads out with C; autograd differentiates it, the
oracle) and ``selective_scan`` (fused: a_t, b_t and h_t exist only for one chunk of time at a time,
the readout happens inside, and the backward is written by hand and recomputes a_t, b_t and h_t
from the saved inputs and one saved state per chunk, the idea of mamba-ssm's CUDA kernel).

Shapes: u, Δ (B, T, E·D); A (E·D, N), negative reals (−exp(A_log)); B, C (B, T, N); h (B, E·D, N).
The decay is s_t = exp(Δ_t A) ∈ (0, 1] for eig_range "[0,1]" and a_t = 2 s_t − 1 ∈ (−1, 1] for NE's
"[-1,1]"; the input term (Δ_t u_t) ⊗ B_t is the same for both. Everything is in linear space, so
negative decays need no sign bookkeeping.

Hand-worked example (E·D = N = 1): A = −ln 2, Δ_t = 1, u_t = 1, B_t = C_t = 1, h_0 = 0 gives
s = 1/2 and y = 1, 1.5, 1.75, ... for "[0,1]"; a = 0 and y = 1, 1, 1, ... for "[-1,1]".

Why this fast path: a profile of the Mamba training step put ~65 % of its time in the
full-size (B, T, E·D, N) tensors around the scan (building a and b, their backward, and the readout
h·C whose backward is a large ``bmm``) and only ~20 % in the scan. Fusing keeps every (E·D, N)-sized
temporary at (B, C, E·D, N) for a chunk of C steps, which stays in cache on a CPU.

Used in: ne1, ne4, ne5, ne6, bl2, x1 (the Mamba layer, ``MambaMixer``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from statetrack.models.ops.diagonal import diagonal_recurrence_sequential
from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["EIG_RANGES", "selective_decay", "selective_input", "selective_scan_sequential", "selective_scan"]

EIG_RANGES = ("[0,1]", "[-1,1]")
LOG2E = 1.4426950408889634  # log₂ e: exp(x) = 2^(x log₂ e)
CHUNK = 8  # steps per chunk; at the bench size (B32, E·D 128, N16, T64) f+b min 14.3 ms at 8, 15.9 at 4, 16.3 at 16, 26 at 32 (buffers leave L2)


def _check_eig_range(eig_range: str) -> bool:
    """True for NE's extended range [-1,1]; a bad value stops with the allowed ones."""
    if eig_range not in EIG_RANGES:
        raise ValueError(f"eig_range {eig_range!r} is not allowed; allowed: {list(EIG_RANGES)}")
    return eig_range == "[-1,1]"


def selective_decay(delta: Tensor, A: Tensor, eig_range: str) -> Tensor:
    """a = exp(Δ A) for "[0,1]", 2 exp(Δ A) − 1 for "[-1,1]" (Mamba's zero-order hold; NE Eq. 2).

    Args:
        delta: (..., E·D) step sizes Δ > 0; A: (E·D, N) negative reals.

    Returns:
        a: (..., E·D, N) the diagonal of A(x_t).

    Used in: the Mamba layer (``step``, ``transition_eigenvalues``) and ``selective_scan_sequential``.
    """
    s = torch.exp(delta.unsqueeze(-1) * A)  # (..., E·D, N)
    return 2 * s - 1 if _check_eig_range(eig_range) else s  # (..., E·D, N)


def selective_input(delta: Tensor, u: Tensor, B: Tensor) -> Tensor:
    """b = (Δ u) ⊗ B, the input term of h_t = a_t ⊙ h_{t−1} + b_t (Mamba's discretised B̄ x).

    Args:
        delta, u: (..., E·D); B: (..., N).

    Returns:
        b: (..., E·D, N).

    Used in: the Mamba layer (``step``, spectra) and ``selective_scan_sequential``.
    """
    return (delta * u).unsqueeze(-1) * B.unsqueeze(-2)  # (..., E·D, N)


def selective_scan_sequential(u: Tensor, delta: Tensor, A: Tensor, B: Tensor, C: Tensor, h0: Tensor | None = None,
                              eig_range: str = "[0,1]") -> tuple[Tensor, Tensor]:
    """y_t = ⟨h_t, C_t⟩, h_t = a_t ⊙ h_{t−1} + (Δ_t u_t) ⊗ B_t (Mamba Alg. 2, without D and the gate).

    The reference: materialise a and b over the whole sequence, run ``diagonal_recurrence_sequential``
    and read out every state; autograd differentiates all of it.

    Args:
        u: (B, T, E·D) input; delta: (B, T, E·D) step sizes Δ; A: (E·D, N) negative reals;
        B: (B, T, N) input projection; C: (B, T, N) readout; h0: (B, E·D, N) or None (zeros);
        eig_range: "[0,1]" (a = exp(Δ A)) or "[-1,1]" (a = 2 exp(Δ A) − 1).

    Returns:
        y: (B, T, E·D) the readouts; h_last: (B, E·D, N) the final state.

    Used in: the Mamba layer with ``backend="reference"``; tests (ground truth for ``selective_scan``).
    """
    a = selective_decay(delta, A, eig_range)  # (B, T, E·D, N)
    b = selective_input(delta, u, B)  # (B, T, E·D, N)
    h, h_last = diagonal_recurrence_sequential(a, b, h0)  # (B, T, E·D, N), (B, E·D, N)
    return (h @ C.unsqueeze(-1)).squeeze(-1), h_last  # (B, T, E·D), (B, E·D, N)


def _chunk_states(delta: Tensor, du: Tensor, A2: Tensor, B: Tensor, h_start: Tensor, neg: bool,
                  s: Tensor, a: Tensor, h: Tensor) -> None:
    """Fill s, a (C, B, N, E·D) and h (C + 1, B, N, E·D) for one chunk of time, in place.

    s_t = exp(Δ_t A) = 2^(Δ_t A log₂e); a_t = s_t or 2 s_t − 1; h[0] = h_start, h[t] = a_t ⊙ h[t−1] + (Δ_t u_t) ⊗ B_t.
    Layout, for speed on a CPU: time leads, so every per-step slice is one contiguous block, and E·D is
    innermost, so the sums over N (readout, dΔ) and over E·D (dB, dC) both run on long vectors (a sum
    over an innermost N = 16 was 3× slower than a mul); ``exp2`` was 3× faster than ``exp`` (torch
    2.13 CPU). delta, du: (C, B, E·D); A2: (N, E·D) = Aᵀ log₂e; B: (C, B, N); h_start: (B, N, E·D).
    ``a`` is ``s`` itself for "[0,1]".
    """
    torch.exp2(torch.mul(delta.unsqueeze(-2), A2, out=s), out=s)  # (C, B, N, E·D) s_t
    if neg:
        torch.mul(s, 2, out=a).sub_(1)  # (C, B, N, E·D) a_t = 2 s_t − 1
    torch.mul(du.unsqueeze(-2), B.unsqueeze(-1), out=h[1:])  # (C, B, N, E·D) b_t, overwritten by h_t below
    h[0].copy_(h_start)  # (B, N, E·D)
    for t in range(1, h.shape[0]):
        h[t].addcmul_(a[t - 1], h[t - 1])  # (B, N, E·D) h_t = a_t ⊙ h_{t−1} + b_t


class _SelectiveScan(torch.autograd.Function):
    """Forward and backward of the selective scan over chunks of ``chunk`` steps, without full-size tensors.

    Forward: per chunk, build s, a and b for its C steps, run the recurrence, read out y = h·C (a mul
    and a sum), and keep only the state entering the chunk (T/C, B, N, E·D).

    Backward, chunks in reverse: rebuild s, a and h of the chunk from its saved entering state, then
    g_t = dL/dh_t = ∂y_t/∂h_t + a_{t+1} ⊙ g_{t+1} with ∂y_t/∂h_t = C_t ⊗ dy_t, and from g and h:
    dC_t = Σ_e dy_t h_t; dB_t = Σ_e g_t (Δ_t u_t); d(Δu)_t = Σ_n g_t B_t; and through the decay
    dz_t = g_t ⊙ h_{t−1} ⊙ ∂a/∂z (z = Δ A; ∂a/∂z = s, or 2 s for "[-1,1]"), dΔ_t += Σ_n dz_t A,
    dA += Σ_{b,t} dz_t Δ_t. The carry into the previous chunk is a_1 ⊙ g_1; at the start it is dL/dh_0.
    Internally states are (B, N, E·D) (see ``_chunk_states``); inputs and outputs keep (B, E·D, N).
    """

    @staticmethod
    def forward(ctx, u, delta, A, B, C, h0, neg: bool, chunk: int):
        Bsz, T, E = u.shape
        N = A.shape[1]
        like = dict(dtype=u.dtype, device=u.device)
        A2 = (A.t() * LOG2E).contiguous()  # (N, E·D)
        delta_t = delta.transpose(0, 1)  # (T, B, E·D)
        du_t = (delta * u).transpose(0, 1)  # (T, B, E·D)
        B_t, C_t = B.transpose(0, 1), C.transpose(0, 1)  # (T, B, N) each
        starts = range(0, T, chunk)
        h_in = torch.empty(len(starts), Bsz, N, E, **like)  # (T/C, B, N, E·D) the state entering each chunk
        y = torch.empty(T, Bsz, E, **like)  # (T, B, E·D)
        s = torch.empty(chunk, Bsz, N, E, **like)  # (C, B, N, E·D)
        a = torch.empty_like(s) if neg else s  # (C, B, N, E·D)
        h = torch.empty(chunk + 1, Bsz, N, E, **like)  # (C + 1, B, N, E·D)
        tmp = torch.empty_like(s)  # (C, B, N, E·D) products before a reduction
        h_prev = h0.transpose(1, 2) if h0 is not None else torch.zeros(Bsz, N, E, **like)  # (B, N, E·D)
        for c, t0 in enumerate(starts):
            t1 = min(t0 + chunk, T)
            n = t1 - t0
            h_in[c].copy_(h_prev)  # (B, N, E·D)
            _chunk_states(delta_t[t0:t1], du_t[t0:t1], A2, B_t[t0:t1], h_in[c], neg, s[:n], a[:n], h[:n + 1])
            torch.sum(torch.mul(h[1:n + 1], C_t[t0:t1].unsqueeze(-1), out=tmp[:n]), -2, out=y[t0:t1])  # (n, B, E·D)
            h_prev = h[n]  # (B, N, E·D)
        ctx.save_for_backward(u, delta, A, B, C, h_in)
        ctx.neg, ctx.chunk, ctx.has_h0 = neg, chunk, h0 is not None
        return y.transpose(0, 1), h_prev.transpose(1, 2).contiguous()  # (B, T, E·D), (B, E·D, N)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, dy, dh_last):
        u, delta, A, B, C, h_in = ctx.saved_tensors
        neg, chunk = ctx.neg, ctx.chunk
        Bsz, T, E = u.shape
        N = A.shape[1]
        like = dict(dtype=u.dtype, device=u.device)
        A_ne = A.t().contiguous()  # (N, E·D)
        A2 = A_ne * LOG2E  # (N, E·D)
        delta_t, u_t = delta.transpose(0, 1), u.transpose(0, 1)  # (T, B, E·D) each
        du_t = delta_t * u_t  # (T, B, E·D)
        B_t, C_t = B.transpose(0, 1), C.transpose(0, 1)  # (T, B, N) each
        dy_t = dy.transpose(0, 1) if dy is not None else torch.zeros(T, Bsz, E, **like)  # (T, B, E·D)
        d_du = torch.empty(T, Bsz, E, **like)  # (T, B, E·D) dL/d(Δu)
        d_delta = torch.empty(T, Bsz, E, **like)  # (T, B, E·D) through the decay; Δ's input share added last
        dB = torch.empty(T, Bsz, N, **like)  # (T, B, N)
        dC = torch.empty(T, Bsz, N, **like)  # (T, B, N)
        dA = torch.zeros(N, E, **like)  # (N, E·D)
        s = torch.empty(chunk, Bsz, N, E, **like)  # (C, B, N, E·D)
        a = torch.empty_like(s) if neg else s  # (C, B, N, E·D)
        h = torch.empty(chunk + 1, Bsz, N, E, **like)  # (C + 1, B, N, E·D)
        g = torch.empty(chunk, Bsz, N, E, **like)  # (C, B, N, E·D) g_t = dL/dh_t
        tmp = torch.empty_like(s)  # (C, B, N, E·D) products before a reduction
        carry = dh_last.transpose(1, 2) if dh_last is not None else torch.zeros(Bsz, N, E, **like)  # (B, N, E·D)
        for c, t0 in reversed(list(enumerate(range(0, T, chunk)))):
            t1 = min(t0 + chunk, T)
            n = t1 - t0
            sc, ac, hc, gc, pc = s[:n], a[:n], h[:n + 1], g[:n], tmp[:n]
            delta_c, du_c, B_c, C_c, dy_c = delta_t[t0:t1], du_t[t0:t1], B_t[t0:t1], C_t[t0:t1], dy_t[t0:t1]
            _chunk_states(delta_c, du_c, A2, B_c, h_in[c], neg, sc, ac, hc)
            torch.sum(torch.mul(hc[1:], dy_c.unsqueeze(-2), out=pc), -1, out=dC[t0:t1])  # (n, B, N) Σ_e dy h
            torch.mul(C_c.unsqueeze(-1), dy_c.unsqueeze(-2), out=gc)  # (n, B, N, E·D) C ⊗ dy
            gc[n - 1].add_(carry)  # (B, N, E·D)
            for t in range(n - 2, -1, -1):
                gc[t].addcmul_(ac[t + 1], gc[t + 1])  # (B, N, E·D) g_t += a_{t+1} ⊙ g_{t+1}
            carry = ac[0] * gc[0]  # (B, N, E·D) into the previous chunk (dL/dh_0 at the start)
            torch.sum(torch.mul(gc, du_c.unsqueeze(-2), out=pc), -1, out=dB[t0:t1])  # (n, B, N) Σ_e g Δu
            torch.sum(torch.mul(gc, B_c.unsqueeze(-1), out=pc), -2, out=d_du[t0:t1])  # (n, B, E·D) Σ_n g B
            dz = gc.mul_(hc[:n]).mul_(sc)  # (n, B, N, E·D) g ⊙ h_{t−1} ⊙ s, in g's buffer (g is spent)
            dA.add_(torch.mul(dz, delta_c.unsqueeze(-2), out=pc).sum((0, 1)))  # (N, E·D) Σ_{b,t} dz Δ
            torch.sum(dz.mul_(A_ne), dim=-2, out=d_delta[t0:t1])  # (n, B, E·D) Σ_n dz A
        if neg:  # ∂a/∂z = 2 s: the factor 2 goes on the reductions, not on the (n, B, N, E·D) buffer
            d_delta.mul_(2)
            dA.mul_(2)
        d_delta.addcmul_(d_du, u_t)  # (T, B, E·D) plus the input share: d(Δu)/dΔ = u
        du = d_du * delta_t  # (T, B, E·D)
        dh0 = carry.transpose(1, 2).contiguous() if ctx.has_h0 else None  # (B, E·D, N)
        return (du.transpose(0, 1), d_delta.transpose(0, 1), dA.t(), dB.transpose(0, 1), dC.transpose(0, 1), dh0,
                None, None)


def selective_scan(u: Tensor, delta: Tensor, A: Tensor, B: Tensor, C: Tensor, h0: Tensor | None = None,
                   eig_range: str = "[0,1]", chunk: int = CHUNK) -> tuple[Tensor, Tensor]:
    """y_t = ⟨h_t, C_t⟩, h_t = a_t ⊙ h_{t−1} + (Δ_t u_t) ⊗ B_t (Mamba Alg. 2); fused fast path of the reference.

    Same contract as ``selective_scan_sequential``. No (B, T, E·D, N) tensor is formed in the forward
    or the backward: a_t, b_t and h_t live in (chunk, B, E·D, N) buffers, and the backward recomputes
    them from the inputs and one saved state per chunk (see ``_SelectiveScan``). Not twice
    differentiable.

    Args:
        u, delta: (B, T, E·D); A: (E·D, N); B, C: (B, T, N); h0: (B, E·D, N) or None (zeros);
        eig_range: "[0,1]" or "[-1,1]"; chunk: steps per chunk (≥ 1).

    Returns:
        y: (B, T, E·D); h_last: (B, E·D, N).

    Used in: ne1, ne4, ne5, ne6, bl2, x1 (the Mamba layer with ``backend="fast"``).
    """
    neg = _check_eig_range(eig_range)
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk={chunk!r} is not allowed; allowed: an integer >= 1")
    if u.dim() != 3 or delta.shape != u.shape or A.shape[0] != u.shape[-1] or B.shape != C.shape \
            or B.shape[:2] != u.shape[:2] or B.shape[-1] != A.shape[-1]:
        raise ValueError(f"shapes u {tuple(u.shape)}, delta {tuple(delta.shape)}, A {tuple(A.shape)}, "
                         f"B {tuple(B.shape)}, C {tuple(C.shape)} do not fit; allowed: u, delta (B, T, E·D), "
                         "A (E·D, N), B, C (B, T, N)")
    return _SelectiveScan.apply(u, delta, A, B, C, h0, neg, min(chunk, max(u.shape[1], 1)))


def _inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """Mamba-like inputs: Δ = softplus(·) around Mamba's init, A = −(1..N) per channel, a nonzero h0."""
    Bsz, E, N = size["B"], size["D"], size["N"]
    f64 = dict(generator=gen, device=device, dtype=torch.float64)
    u = torch.randn(Bsz, T, E, **f64)  # (B, T, E·D)
    delta = torch.nn.functional.softplus(torch.randn(Bsz, T, E, **f64) - 2)  # (B, T, E·D)
    A = -torch.arange(1, N + 1, device=device, dtype=torch.float64).repeat(E, 1) * (0.5 + torch.rand(E, N, **f64))
    B, C = torch.randn(Bsz, T, N, **f64), torch.randn(Bsz, T, N, **f64)  # (B, T, N) each
    h0 = torch.randn(Bsz, E, N, **f64)  # (B, E·D, N)
    return tuple(x.to(dtype) for x in (u, delta, A, B, C, h0))


register_pair(OpPair(
    name="selective_scan", reference=selective_scan_sequential, fast=selective_scan, make_inputs=_inputs,
    sizes={"cpu": {"B": 32, "T": 64, "D": 128, "N": 16}, "cpu_long": {"B": 8, "T": 512, "D": 128, "N": 16},
           "gpu": {"B": 256, "T": 500, "D": 512, "N": 16}},
    why="a_t, b_t, h_t formed per chunk inside the recurrence, readout fused, hand-written backward that recomputes",
))
