"""S_t = diag(r_t e^{iθ_t}) S_{t−1} + k_t v_tᵀ, o_t = Re(q_tᵀ S_t): the complex diagonal rule (Mamba-3's rotations).

Lahoti et al. (2026), "Mamba-3", §3.1: a complex SSM whose exp-Euler discretization (their Prop 2)
is h_t = e^{Δ_t A} R_t h_{t−1} + Δ_t B_t x_t with R_t a block of 2×2 rotations by data-dependent
angles, i.e. a complex diagonal transition with modulus r_t = e^{Δ_t A} and phases θ_t. Here, per
head, the state S ∈ ℂ^{N×P} holds N complex entries for each of P value channels; the modulus is one
scalar per head and step, the phases one per complex entry::

    λ_t[n] = r_t e^{iθ_t[n]}                 (B, H, T, N), |λ| = r ≤ 1
    S_t    = λ_t ⊙ S_{t−1} + k_t v_tᵀ          k_t ∈ ℂ^N (the input direction Δ_t B_t), v_t ∈ ℝ^P
    o_t    = Re(q_tᵀ S_t)                     q_t ∈ ℂ^N (Mamba-3's readout C, stacked as [C; −Ĉ])

The transitions of all tokens share the standard eigenbasis, so they commute (BL Prop 2): the state
after a word depends on its letters' counts only. Complex eigenvalues let one layer count modulo any m
(NE Thm 2's condition, met by a rotation by 2π/m).

Complex tensors cross the interface as real views with a trailing axis of size 2 (re, im), so that
the benchmark's dtype casts and relative errors see every component.

Pair:

- ``complex_diagonal_sequential``: the autograd loop over steps, the oracle.
- ``complex_diagonal_chunked``: Mamba-3's "RoPE trick" (their Prop 3) plus the SSD chunked form:
  within a chunk the cumulative phases are folded into q and k (q̃ = q e^{iφ}, k̃ = k e^{−iφ}, all of
  unit modulus), the scalar decays form a C×C causal mask, and only the state is carried across chunks.

Hand-worked example: N = P = 1, r = 1, θ = π/2, k = 1, v = 1 from S_0 = 0 gives S = 1, 1 + i, i, 0, 1, …
(a walk around the square), o = 1, 1, 0, 0, 1.

The log-modulus enters as ``log_r`` = Δ_t A ≤ 0, so that chunk-local decay ratios are exp of a
difference and never a quotient of vanishing products.

Used in: the ``complex_diagonal`` model (models/complex_diagonal.py).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["complex_diagonal_sequential", "complex_diagonal_chunked", "as_complex", "as_real"]


def as_complex(x: Tensor) -> Tensor:
    """(..., 2) real view (re, im) → (...) complex, differentiable."""
    return torch.complex(x[..., 0], x[..., 1])  # (...)


def as_real(z: Tensor) -> Tensor:
    """(...) complex → (..., 2) real view (re, im), differentiable."""
    return torch.stack((z.real, z.imag), dim=-1)  # (..., 2)


def _unit(phase: Tensor) -> Tensor:
    return torch.complex(torch.cos(phase), torch.sin(phase))  # e^{i·phase}, same shape


def complex_diagonal_sequential(
    q: Tensor, k: Tensor, v: Tensor, log_r: Tensor, theta: Tensor, S0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """S_t = diag(r_t e^{iθ_t}) S_{t−1} + k_t v_tᵀ, o_t = Re(q_tᵀ S_t), r_t = e^{log_r_t} (Mamba-3 Prop 2).

    The reference: one complex multiply-add per step, differentiated by autograd.

    Args:
        q: (B, H, T, N, 2) readout vectors (complex as re, im).
        k: (B, H, T, N, 2) input directions (complex).
        v: (B, H, T, P) values (real).
        log_r: (B, H, T) log-modulus of the transition, ≤ 0 (one per head and step).
        theta: (B, H, T, N) phase of each complex entry's eigenvalue.
        S0: (B, H, N, P, 2) initial state, or None for zeros.

    Returns:
        o: (B, H, T, P) outputs Re(q_tᵀ S_t), read after the update; S_last: (B, H, N, P, 2).

    Used in: tests and ``statetrack bench`` (ground truth for ``complex_diagonal_chunked``).
    """
    B, H, _, N, _ = k.shape
    P = v.shape[-1]
    qc, kc = as_complex(q), as_complex(k)  # (B, H, T, N) complex each
    lam = torch.exp(log_r).unsqueeze(-1) * _unit(theta)  # (B, H, T, N) complex eigenvalues
    S = torch.zeros(B, H, N, P, dtype=kc.dtype, device=k.device) if S0 is None else as_complex(S0)  # (B, H, N, P)
    outputs = []
    with torch.autocast(device_type=q.device.type, enabled=False):
        for q_t, k_t, v_t, lam_t in zip(qc.unbind(2), kc.unbind(2), v.unbind(2), lam.unbind(2)):
            # (B, H, N), (B, H, N), (B, H, P), (B, H, N)
            S = lam_t.unsqueeze(-1) * S + k_t.unsqueeze(-1) * v_t.unsqueeze(-2)  # (B, H, N, P)
            outputs.append((q_t.unsqueeze(-1) * S).sum(-2).real)  # (B, H, P) Re(q_tᵀ S_t)
    return torch.stack(outputs, dim=2), as_real(S)  # (B, H, T, P), (B, H, N, P, 2)


def complex_diagonal_chunked(
    q: Tensor, k: Tensor, v: Tensor, log_r: Tensor, theta: Tensor, S0: Tensor | None = None,
    chunk_size: int = 32,
) -> tuple[Tensor, Tensor]:
    """S_t = diag(r_t e^{iθ_t}) S_{t−1} + k_t v_tᵀ, o_t = Re(q_tᵀ S_t); RoPE trick + chunked scalar decay (Mamba-3 §3.1).

    Same contract as ``complex_diagonal_sequential``, exact up to rounding. Inside a chunk of C steps
    starting from state S, with chunk-local cumulative sums γ_t = Σ log r and φ_t = Σ θ (per entry):

    - ``S_t = e^{γ_t} e^{iφ_t} ⊙ S + Σ_{i≤t} e^{γ_t − γ_i} e^{i(φ_t − φ_i)} ⊙ k_i v_iᵀ``.
    - With q̃_t = q_t ⊙ e^{iφ_t} and k̃_i = k_i ⊙ e^{−iφ_i} (unit-modulus rotations, the RoPE trick),
      ``o_t = e^{γ_t} Re(q̃_tᵀ S) + Σ_{i≤t} e^{γ_t − γ_i} Re(q̃_tᵀ k̃_i) v_i``: a real C×C causal mask
      times real values, since v and the decays are real.
    - Next chunk: ``S ← e^{iφ_C} ⊙ (e^{γ_C} S + Σ_i e^{γ_C − γ_i} k̃_i v_iᵀ)``.

    The phases are accumulated in float64 and reduced mod 2π before cos/sin even for fp32 inputs: a
    cumulative angle of C·π rounded to fp32 would already cost ~1e-6 of accuracy per chunk. Every
    decay exponent is ≤ 0 (masked entries are −∞ before ``exp``). T is padded with q = k = v = 0,
    log r = 0, θ = 0 (an identity step).

    Args:
        q, k: (B, H, T, N, 2); v: (B, H, T, P); log_r: (B, H, T); theta: (B, H, T, N);
        S0: (B, H, N, P, 2) or None. chunk_size: C, steps per chunk.

    Returns:
        o: (B, H, T, P) outputs; S_last: (B, H, N, P, 2) final state.

    Used in: the ``complex_diagonal`` model's fast path.
    """
    B, H, T, N, _ = k.shape
    P = v.shape[-1]
    C = chunk_size
    NC = -(-T // C)  # number of chunks
    pad = NC * C - T
    if pad:
        q, k = (F.pad(x, (0, 0, 0, 0, 0, pad)) for x in (q, k))  # (B, H, NC·C, N, 2) each
        v, theta = F.pad(v, (0, 0, 0, pad)), F.pad(theta, (0, 0, 0, pad))  # (B, H, NC·C, P), (B, H, NC·C, N)
        log_r = F.pad(log_r, (0, pad))  # (B, H, NC·C)
    qc = as_complex(q).reshape(B, H, NC, C, N)  # (B, H, NC, C, N) complex
    kc = as_complex(k).reshape(B, H, NC, C, N)  # (B, H, NC, C, N) complex
    v = v.reshape(B, H, NC, C, P)  # (B, H, NC, C, P)
    log_r = log_r.reshape(B, H, NC, C)  # (B, H, NC, C)
    theta = theta.reshape(B, H, NC, C, N)  # (B, H, NC, C, N)

    with torch.autocast(device_type=q.device.type, enabled=False):
        phi = torch.remainder(theta.double().cumsum(3), 2 * math.pi).to(theta.dtype)  # (B, H, NC, C, N) φ_t mod 2π
        rot = _unit(phi)  # (B, H, NC, C, N) e^{iφ_t}
        q_rot = qc * rot  # (B, H, NC, C, N) q̃
        k_rot = kc * rot.conj()  # (B, H, NC, C, N) k̃
        gamma = log_r.cumsum(-1)  # (B, H, NC, C) γ_t
        causal = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()  # (C, C) i ≤ t
        L = torch.exp((gamma.unsqueeze(-1) - gamma.unsqueeze(-2)).masked_fill(~causal, float("-inf")))  # (B, H, NC, C, C)
        scores = (q_rot @ k_rot.transpose(-1, -2)).real * L  # (B, H, NC, C, C) Re(q̃_tᵀ k̃_i) e^{γ_t − γ_i}
        o_local = scores @ v  # (B, H, NC, C, P)
        k_end = k_rot * torch.exp(gamma[..., -1:] - gamma).unsqueeze(-1)  # (B, H, NC, C, N) e^{γ_C − γ_i} k̃_i
        writes = k_end.transpose(-1, -2) @ v.to(k_end.dtype)  # (B, H, NC, N, P) Σ_i e^{γ_C − γ_i} k̃_i v_iᵀ
        decay_end = torch.exp(gamma[..., -1])  # (B, H, NC) e^{γ_C}
        rot_end = rot[..., -1, :]  # (B, H, NC, N) e^{iφ_C}

        S = torch.zeros(B, H, N, P, dtype=kc.dtype, device=k.device) if S0 is None else as_complex(S0)  # (B, H, N, P)
        starts = []
        for w_c, d_c, r_c in zip(writes.unbind(2), decay_end.unbind(2), rot_end.unbind(2)):
            # (B, H, N, P), (B, H), (B, H, N)
            starts.append(S)
            S = r_c.unsqueeze(-1) * (d_c[..., None, None] * S + w_c)  # (B, H, N, P)
        S_starts = torch.stack(starts, dim=2)  # (B, H, NC, N, P)
        o_state = (q_rot @ S_starts).real * torch.exp(gamma).unsqueeze(-1)  # (B, H, NC, C, P) e^{γ_t} Re(q̃_tᵀ S)
        o = (o_state + o_local).reshape(B, H, NC * C, P)[:, :, :T]  # (B, H, T, P)
    return o, as_real(S)  # (B, H, T, P), (B, H, N, P, 2)


def _inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """Moduli r ∈ [0.9, 1], phases θ ∈ [−π, π) (so cumulative angles wrap many times), a nonzero state."""
    B, H, N, P = size["B"], size["H"], size["dk"], size["dv"]
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    q = torch.randn(B, H, T, N, 2, **f64) / math.sqrt(2 * N)  # (B, H, T, N, 2)
    k = torch.randn(B, H, T, N, 2, **f64) / math.sqrt(2 * N)  # (B, H, T, N, 2)
    v = torch.randn(B, H, T, P, **f64)  # (B, H, T, P)
    log_r = torch.log1p(-0.1 * torch.rand(B, H, T, **f64))  # (B, H, T) r ∈ (0.9, 1]
    theta = math.pi * (2 * torch.rand(B, H, T, N, **f64) - 1)  # (B, H, T, N)
    S0 = 0.1 * torch.randn(B, H, N, P, 2, **f64)  # (B, H, N, P, 2)
    return tuple(x.to(dtype) for x in (q, k, v, log_r, theta, S0))


register_pair(OpPair(
    name="complex_diagonal", reference=complex_diagonal_sequential, fast=complex_diagonal_chunked,
    make_inputs=_inputs,
    sizes={"cpu": {"B": 8, "H": 4, "T": 256, "dk": 16, "dv": 16}, "gpu": {"B": 64, "H": 8, "T": 500, "dk": 32, "dv": 64}},
    why="RoPE trick + chunked scalar decay: T/C sequential state updates, the rest batched matmuls",
))
