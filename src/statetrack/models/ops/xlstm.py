"""The xLSTM cells (Beck et al. 2024): mLSTM (matrix memory) and sLSTM (scalar memory, recurrent gates).

Pairs, both with exponential input gates and the stabilizer state m_t (xLSTM Eqs. 15-17, 19-27):

| rule | reference | fast |
|------|-----------|------|
| mLSTM: C_t = f_t C_{t−1} + i_t v_t k_tᵀ, n_t = f_t n_{t−1} + i_t k_t, h̃_t = C_t q_t / max(|n_tᵀ q_t|, 1) | ``mlstm_recurrent`` | ``mlstm_chunkwise`` |
| sLSTM: c_t = f_t c_{t−1} + i_t z_t, n_t = f_t n_{t−1} + i_t, h_t = o_t ⊙ c_t / n_t, gates from x_t and R h_{t−1} | ``slstm_sequential`` | ``slstm_fused`` |

**Stabilizer.** With i_t = exp(ĩ_t) and log f_t (= logsigmoid(f̃_t) or f̃_t), both cells carry
``m_t = max(log f_t + m_{t−1}, ĩ_t)`` and the scaled states ``C'_t = C_t e^{−m_t}`` (same for n, c):

    i'_t = exp(ĩ_t − m_t),   f'_t = exp(log f_t + m_{t−1} − m_t),   so i'_t ≤ 1 and f'_t ≤ 1
    C'_t = f'_t C'_{t−1} + i'_t v_t k_tᵀ,   n'_t = f'_t n'_{t−1} + i'_t k_t
    h̃_t  = C'_t q_t / max(|n'_tᵀ q_t|, e^{−m_t})          (= C_t q_t / max(|n_tᵀ q_t|, 1) exactly)

The outputs do not depend on which m is carried (it cancels), so two implementations agree as
long as each is exact for its own m; m only keeps exp() finite. An **empty state has m = −∞**:
then m_1 = ĩ_1 and i'_1 = 1, which is what the official sLSTM code does with its
``if torch.all(n == 0.0): mnew = iraw`` branch (with m_0 = 0 instead, i'_1 = exp(ĩ_1 − max(log f_1, ĩ_1))
underflows for ĩ_1 ≪ log f_1 and the sLSTM's c/n becomes 0/0).
After the first step the sLSTM normalizer satisfies n'_t ≥ 1 (either f' = 1 or i' = 1 at every
step), so c'/n' is always well defined.

**Denominator floor.** For m_t > ~88 (fp32) e^{−m_t} underflows to 0, and where n'_tᵀ q_t is 0 as
well (q_t = 0, e.g. the zero-padded rows of the chunkwise form) the quotient is 0/0 and its gradient
NaN. Both mLSTM functions therefore floor the stabilized denominator at √(finfo.tiny) (1.1e-19 in
fp32, 1.5e-154 in fp64): the square root because the quotient's backward divides by den², which
must not underflow either. The floor binds only where max(|n'ᵀq|, e^{−m_t}) < 1e-19, i.e. m_t > 43
and n'ᵀq vanishing to 19 digits: exactly zero in practice. With q_t = 0 the output is then the true
0; with n'ᵀq rounded to exactly 0 by cancellation it is C'q·1e19 instead of C'q·e^{m_t}, both
beyond any meaningful fp32 output. Nowhere else does it change a value.

State layout: mLSTM ``C`` is (B, H, dv, dk) as in the paper (h̃ = C q); sLSTM states are (B, H, dh).

Speed (2 CPU threads, fp32, medians of 15 interleaved runs; the pairs' "cpu" sizes):

| pair  | size               | fwd ref / fast (ms) | fwd+bwd ref / fast (ms) |
|-------|--------------------|---------------------|-------------------------|
| mlstm | B16 H4 T128 d64    | 36 / 5.5 (6.5×)     | 162 / 18 (9×)           |
| slstm | B32 H4 T128 d32    | 22 / 12.7 (1.7×)    | 88 / 50 (1.75×)         |

The sLSTM cannot be parallelized over time (h_{t−1} enters every gate nonlinearly), so its fast path
only cuts ops per step. A hand-written adjoint backward (graph-free forward, the pointwise
derivatives precomputed for all steps at once, one bmm per step backward, dR as one bmm at the end;
passed gradcheck) measured 49-55 ms fwd+bwd against this path's 50-51 ms, so it was not kept.

Hand-worked example (mLSTM, one head, dk = dv = 1): ĩ = (0, 0), log f = (0, log ½), k = v = 1,
q = 1 gives C = (1, 1.5), n = (1, 1.5), h̃ = (1/max(1, 1), 1.5/max(1.5, 1)) = (1, 1).

Used in: models/xlstm.py (the ``mlstm`` and ``slstm`` models of NE Table 3).
"""

from __future__ import annotations

import math
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor

from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["mlstm_chunkwise", "mlstm_recurrent", "slstm_fused", "slstm_sequential"]

ForgetGate = Literal["sigmoid", "exp"]


def _empty_state(like: Tensor, *shape: int) -> Tensor:
    return like.new_zeros(*shape)


def _den_floor(dtype: torch.dtype) -> float:
    """√(smallest normal number): den ≥ this keeps den² > 0 in the quotient's backward."""
    return math.sqrt(torch.finfo(dtype).tiny)


# ---------------------------------------------------------------------------------------------------------
# mLSTM
# ---------------------------------------------------------------------------------------------------------


def mlstm_recurrent(
    q: Tensor, k: Tensor, v: Tensor, i_gate: Tensor, log_f: Tensor,
    C0: Tensor | None = None, n0: Tensor | None = None, m0: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """C_t = f_t C_{t-1} + i_t v_t k_tᵀ, n_t = f_t n_{t-1} + i_t k_t, h̃_t = C_t q_t / max(|n_tᵀ q_t|, 1) (xLSTM Eqs. 19-21).

    The reference: the stabilized recurrence (module docstring) as a loop over ``unbind(dim=2)``
    that autograd differentiates, one rank-one update per step.

    Args:
        q, k: (B, H, T, dk) queries and keys (the caller scales k by 1/√dk, as xLSTM does).
        v: (B, H, T, dv) values.
        i_gate: (B, H, T) input-gate pre-activations ĩ_t (i_t = exp ĩ_t).
        log_f: (B, H, T) log forget gates, logsigmoid(f̃_t) (sigmoid gate) or f̃_t (exponential gate).
        C0: (B, H, dv, dk), n0: (B, H, dk), m0: (B, H) the stabilized initial state; None for the
            empty state (C = 0, n = 0, m = −∞).

    Returns:
        h: (B, H, T, dv) the normalized outputs h̃_t (before the output gate).
        C, n, m: (B, H, dv, dk), (B, H, dk), (B, H) the final stabilized state.

    Used in: tests (ground truth for ``mlstm_chunkwise``), the ``mlstm`` model's reference backend and step().
    """
    B, H, _, dk = k.shape
    dv = v.shape[-1]
    C = _empty_state(q, B, H, dv, dk) if C0 is None else C0  # (B, H, dv, dk)
    n = _empty_state(q, B, H, dk) if n0 is None else n0  # (B, H, dk)
    m = torch.full((B, H), -math.inf, dtype=q.dtype, device=q.device) if m0 is None else m0  # (B, H)
    floor = _den_floor(q.dtype)  # module docstring, "Denominator floor"
    outputs = []
    steps = zip(q.unbind(dim=2), k.unbind(dim=2), v.unbind(dim=2), i_gate.unbind(dim=2), log_f.unbind(dim=2))
    for q_t, k_t, v_t, i_t, lf_t in steps:  # (B, H, dk), (B, H, dk), (B, H, dv), (B, H), (B, H)
        m_new = torch.maximum(lf_t + m, i_t)  # (B, H) m_t
        f_s = torch.exp(lf_t + m - m_new)  # (B, H) f'_t ≤ 1
        i_s = torch.exp(i_t - m_new)  # (B, H) i'_t ≤ 1
        C = f_s[..., None, None] * C + i_s[..., None, None] * (v_t.unsqueeze(-1) * k_t.unsqueeze(-2))  # (B, H, dv, dk)
        n = f_s.unsqueeze(-1) * n + i_s.unsqueeze(-1) * k_t  # (B, H, dk)
        num = (C @ q_t.unsqueeze(-1)).squeeze(-1)  # (B, H, dv) C'_t q_t
        den = torch.maximum((n * q_t).sum(-1).abs(), torch.exp(-m_new))  # (B, H) max(|n'_tᵀ q_t|, e^{-m_t})
        outputs.append(num / den.clamp_min(floor).unsqueeze(-1))  # (B, H, dv)
        m = m_new
    return torch.stack(outputs, dim=2), C, n, m  # (B, H, T, dv), (B, H, dv, dk), (B, H, dk), (B, H)


def mlstm_chunkwise(
    q: Tensor, k: Tensor, v: Tensor, i_gate: Tensor, log_f: Tensor,
    C0: Tensor | None = None, n0: Tensor | None = None, m0: Tensor | None = None, chunk_size: int = 64,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """C_t = f_t C_{t-1} + i_t v_t k_tᵀ, n_t = f_t n_{t-1} + i_t k_t, h̃_t = C_t q_t / max(|n_tᵀ q_t|, 1); chunkwise-parallel.

    Same contract as ``mlstm_recurrent``. Within a chunk of L steps it is xLSTM's stabilized parallel
    form (Beck et al. 2024, App. B.3); across chunks the stabilized state is carried, so memory is
    O(T·L) instead of O(T²). ``chunk_size >= T`` is the fully parallel (quadratic) form. With
    b_t = Σ_{s≤t} log f_s (cumulative within the chunk) and (C', n', m) the state entering the chunk:

    - log weight of step s in row t: ``log D_ts = b_t − b_s + ĩ_s`` (s ≤ t, else −∞); of the carried
      state: ``g_t = b_t + m``. Row stabilizer ``m_t = max(g_t, max_s log D_ts)`` — exactly the m_t of
      the recurrence, unrolled.
    - ``h̃_t = (Σ_s e^{log D_ts − m_t} (k_sᵀ q_t) v_s + e^{g_t − m_t} C' q_t) / max(|den_t|, e^{−m_t})``
      with ``den_t`` the same sums with v replaced by 1 and C' by n'ᵀ.
    - The state leaving the chunk is row L of the same sums; only this T/L-step carry is sequential.
      Its weights e^{a_s − max a} (a_s = b_L − b_s + ĩ_s) are formed for all chunks at once, so each
      carry step is a handful of elementwise ops.

    T is padded to a multiple of L with log f = 0 and ĩ = −∞ (steps that change nothing), so the final
    state is the state after step T. Autograd differentiates everything (no detached stabilizer; the
    outputs are invariant to it, so its gradient contributions cancel).

    Args:
        q, k: (B, H, T, dk); v: (B, H, T, dv); i_gate, log_f: (B, H, T);
        C0: (B, H, dv, dk), n0: (B, H, dk), m0: (B, H) or None (the empty state).
        chunk_size: L. Forward+backward on 2 CPU threads at B16 H4 d64: T=40: 6.5 ms with L=64 (one
            chunk) vs 11 ms with L=16; T=128: 21-22 ms with L=32 or 64 vs 28-29 ms with 16 or 128;
            T=500: 85 ms with L=32 or 64 vs 118-123 ms. Larger L wastes work on the masked half of
            each (L, L) block, smaller L adds carry steps.

    Returns:
        h: (B, H, T, dv); C, n, m: the final stabilized state.

    Used in: the ``mlstm`` model's fast backend.
    """
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    L = min(chunk_size, T)
    NC = -(-T // L)  # number of chunks, ceil(T / L)
    pad = NC * L - T
    if pad:
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))  # (B, H, NC·L, d) each
        log_f = F.pad(log_f, (0, pad))  # (B, H, NC·L) f = 1 on padding
        i_gate = F.pad(i_gate, (0, pad), value=-math.inf)  # (B, H, NC·L) i = 0 on padding
    q = q.reshape(B, H, NC, L, dk)  # (B, H, NC, L, dk)
    k = k.reshape(B, H, NC, L, dk)  # (B, H, NC, L, dk)
    v = v.reshape(B, H, NC, L, dv)  # (B, H, NC, L, dv)
    i_gate = i_gate.reshape(B, H, NC, L)  # (B, H, NC, L)
    b = log_f.reshape(B, H, NC, L).cumsum(dim=-1)  # (B, H, NC, L) b_t = Σ_{s≤t} log f_s in the chunk

    causal = torch.ones(L, L, dtype=torch.bool, device=q.device).tril()  # (L, L) s ≤ t
    log_D = b.unsqueeze(-1) - b.unsqueeze(-2) + i_gate.unsqueeze(-2)  # (B, H, NC, L, L) b_t − b_s + ĩ_s
    log_D = log_D.masked_fill(~causal, -math.inf)  # (B, H, NC, L, L) −∞ above the diagonal (s > t)

    # What each chunk adds to the state, scaled by its own max (no dependence on the carried m yet).
    a = log_D[..., -1, :]  # (B, H, NC, L) a_s = b_L − b_s + ĩ_s
    a_max = a.amax(dim=-1)  # (B, H, NC)
    w = torch.exp(a - a_max.unsqueeze(-1))  # (B, H, NC, L) ≤ 1
    C_add = (v * w.unsqueeze(-1)).transpose(-1, -2) @ k  # (B, H, NC, dv, dk) Σ_s w_s v_s k_sᵀ
    n_add = (k * w.unsqueeze(-1)).sum(dim=-2)  # (B, H, NC, dk) Σ_s w_s k_s

    # Sequential carry across chunks: T/L steps of elementwise ops.
    C = _empty_state(q, B, H, dv, dk) if C0 is None else C0  # (B, H, dv, dk)
    n = _empty_state(q, B, H, dk) if n0 is None else n0  # (B, H, dk)
    m = torch.full((B, H), -math.inf, dtype=q.dtype, device=q.device) if m0 is None else m0  # (B, H)
    C_starts, n_starts, m_starts = [], [], []
    for C_c, n_c, a_max_c, b_last in zip(C_add.unbind(2), n_add.unbind(2), a_max.unbind(2), b[..., -1].unbind(2)):
        C_starts.append(C)
        n_starts.append(n)
        m_starts.append(m)
        g = b_last + m  # (B, H) log weight of the carried state at the chunk end
        m_new = torch.maximum(g, a_max_c)  # (B, H)
        s_old, s_add = torch.exp(g - m_new), torch.exp(a_max_c - m_new)  # (B, H) each, ≤ 1
        C = s_old[..., None, None] * C + s_add[..., None, None] * C_c  # (B, H, dv, dk)
        n = s_old.unsqueeze(-1) * n + s_add.unsqueeze(-1) * n_c  # (B, H, dk)
        m = m_new
    C_start = torch.stack(C_starts, dim=2)  # (B, H, NC, dv, dk)
    n_start = torch.stack(n_starts, dim=2)  # (B, H, NC, dk)
    m_start = torch.stack(m_starts, dim=2)  # (B, H, NC)

    # Outputs of every chunk at once.
    g = b + m_start.unsqueeze(-1)  # (B, H, NC, L) g_t = b_t + m
    m_row = torch.maximum(g, log_D.amax(dim=-1))  # (B, H, NC, L) m_t
    scores = (q @ k.transpose(-1, -2)) * torch.exp(log_D - m_row.unsqueeze(-1))  # (B, H, NC, L, L)
    alpha = torch.exp(g - m_row)  # (B, H, NC, L) weight of the carried state
    num = scores @ v + alpha.unsqueeze(-1) * (q @ C_start.transpose(-1, -2))  # (B, H, NC, L, dv)
    den = scores.sum(dim=-1) + alpha * (q @ n_start.unsqueeze(-1)).squeeze(-1)  # (B, H, NC, L)
    den = torch.maximum(den.abs(), torch.exp(-m_row)).clamp_min(_den_floor(q.dtype))  # (B, H, NC, L)
    h = num / den.unsqueeze(-1)  # (B, H, NC, L, dv)
    return h.reshape(B, H, NC * L, dv)[:, :, :T], C, n, m  # (B, H, T, dv), (B, H, dv, dk), (B, H, dk), (B, H)


# ---------------------------------------------------------------------------------------------------------
# sLSTM
# ---------------------------------------------------------------------------------------------------------


def _log_forget(f_pre: Tensor, forget_gate: str) -> Tensor:
    if forget_gate == "sigmoid":
        return F.logsigmoid(f_pre)
    if forget_gate == "exp":
        return f_pre
    raise ValueError(f"forget_gate={forget_gate!r} is not allowed; allowed: 'sigmoid', 'exp'")


def slstm_sequential(
    u: Tensor, R: Tensor, h0: Tensor | None = None, c0: Tensor | None = None, n0: Tensor | None = None,
    m0: Tensor | None = None, forget_gate: ForgetGate = "sigmoid",
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """c_t = f_t c_{t-1} + i_t z_t, n_t = f_t n_{t-1} + i_t, h_t = o_t ⊙ c_t / n_t (xLSTM Eqs. 8-17, stabilized).

    Per head, with the gate pre-activations ``g̃_t = u_{g,t} + R_gᵀ h_{t−1}`` for g ∈ (i, f, z, o):

        i_t = exp(ĩ_t), f_t = σ(f̃_t) or exp(f̃_t), z_t = tanh(z̃_t), o_t = σ(õ_t)

    stabilized with m_t as in the module docstring. The recurrent matrices are block-diagonal: each
    head h mixes only its own dh units (xLSTM's sLSTM heads). The reference: a loop over
    ``unbind(dim=1)``, gate by gate, that autograd differentiates.

    Args:
        u: (B, T, 4, H, dh) the input part of the pre-activations, W_g x_t + b_g, gates in the order
            (i, f, z, o) of the official xLSTM code.
        R: (4, H, dh, dh) recurrent weights; gate g of head h adds ``h_{t−1}[h] @ R[g, h]``.
        h0, c0, n0: (B, H, dh), m0: (B, H, dh) the initial state (c, n stabilized); None for the empty
            state (zeros, m = −∞).
        forget_gate: "sigmoid" (log f = logsigmoid f̃) or "exp" (log f = f̃).

    Returns:
        h: (B, T, H, dh) every hidden state; h_last, c_last, n_last, m_last: (B, H, dh) the final state.

    Used in: tests (ground truth for ``slstm_fused``), the ``slstm`` model's reference backend and step().
    """
    B, _, _, H, dh = u.shape
    h = _empty_state(u, B, H, dh) if h0 is None else h0  # (B, H, dh)
    c = _empty_state(u, B, H, dh) if c0 is None else c0  # (B, H, dh)
    n = _empty_state(u, B, H, dh) if n0 is None else n0  # (B, H, dh)
    m = torch.full((B, H, dh), -math.inf, dtype=u.dtype, device=u.device) if m0 is None else m0  # (B, H, dh)
    states = []
    for u_t in u.unbind(dim=1):  # (B, 4, H, dh)
        u_i, u_f, u_z, u_o = u_t.unbind(dim=1)  # (B, H, dh) each
        R_i, R_f, R_z, R_o = R.unbind(dim=0)  # (H, dh, dh) each
        i_pre = u_i + torch.einsum("bhd,hde->bhe", h, R_i)  # (B, H, dh) ĩ_t
        f_pre = u_f + torch.einsum("bhd,hde->bhe", h, R_f)  # (B, H, dh) f̃_t
        z_pre = u_z + torch.einsum("bhd,hde->bhe", h, R_z)  # (B, H, dh) z̃_t
        o_pre = u_o + torch.einsum("bhd,hde->bhe", h, R_o)  # (B, H, dh) õ_t
        log_f = _log_forget(f_pre, forget_gate)  # (B, H, dh)
        m_new = torch.maximum(log_f + m, i_pre)  # (B, H, dh) m_t
        i_s = torch.exp(i_pre - m_new)  # (B, H, dh) i'_t ≤ 1
        f_s = torch.exp(log_f + m - m_new)  # (B, H, dh) f'_t ≤ 1
        c = f_s * c + i_s * torch.tanh(z_pre)  # (B, H, dh) c'_t
        n = f_s * n + i_s  # (B, H, dh) n'_t ≥ 1 after the first step
        h = torch.sigmoid(o_pre) * (c / n)  # (B, H, dh)
        m = m_new
        states.append(h)
    return torch.stack(states, dim=1), h, c, n, m  # (B, T, H, dh), 4 × (B, H, dh)


def slstm_fused(
    u: Tensor, R: Tensor, h0: Tensor | None = None, c0: Tensor | None = None, n0: Tensor | None = None,
    m0: Tensor | None = None, forget_gate: ForgetGate = "sigmoid",
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """c_t = f_t c_{t-1} + i_t z_t, n_t = f_t n_{t-1} + i_t, h_t = o_t ⊙ c_t / n_t; one fused matmul per step.

    Same contract and arithmetic as ``slstm_sequential``, with fewer, larger ops per step: the inputs
    are laid out once as (T, H, B, 4·dh) and R as (H, dh, 4·dh), so the four gates' recurrent terms
    of all heads are one ``baddbmm`` (u_t + h_{t−1} R) per step, followed by the pointwise cell on
    contiguous slices. Autograd still differentiates the loop.

    Returns:
        h: (B, T, H, dh); h_last, c_last, n_last, m_last: (B, H, dh).

    Used in: the ``slstm`` model's fast backend.
    """
    B, T, _, H, dh = u.shape
    u_steps = u.permute(1, 3, 0, 2, 4).reshape(T, H, B, 4 * dh)  # (T, H, B, 4·dh), one copy
    R_all = R.permute(1, 2, 0, 3).reshape(H, dh, 4 * dh)  # (H, dh, 4·dh)
    h = _empty_state(u, H, B, dh) if h0 is None else h0.transpose(0, 1)  # (H, B, dh)
    c = _empty_state(u, H, B, dh) if c0 is None else c0.transpose(0, 1)  # (H, B, dh)
    n = _empty_state(u, H, B, dh) if n0 is None else n0.transpose(0, 1)  # (H, B, dh)
    m = torch.full((H, B, dh), -math.inf, dtype=u.dtype, device=u.device) if m0 is None else m0.transpose(0, 1)
    states = []
    for u_t in u_steps.unbind(dim=0):  # (H, B, 4·dh)
        pre = torch.baddbmm(u_t, h, R_all)  # (H, B, 4·dh) u_t + h_{t-1} R
        i_pre, f_pre, z_pre, o_pre = pre.split(dh, dim=-1)  # (H, B, dh) each
        log_f_m = _log_forget(f_pre, forget_gate) + m  # (H, B, dh) log f_t + m_{t-1}
        m = torch.maximum(log_f_m, i_pre)  # (H, B, dh) m_t
        i_s = torch.exp(i_pre - m)  # (H, B, dh)
        f_s = torch.exp(log_f_m - m)  # (H, B, dh)
        c = torch.addcmul(f_s * c, i_s, torch.tanh(z_pre))  # (H, B, dh)
        n = f_s * n + i_s  # (H, B, dh)
        h = torch.sigmoid(o_pre) * c / n  # (H, B, dh)
        states.append(h)
    h_all = torch.stack(states, dim=0).permute(2, 0, 1, 3)  # (B, T, H, dh)
    return h_all, h.transpose(0, 1), c.transpose(0, 1), n.transpose(0, 1), m.transpose(0, 1)  # 4 × (B, H, dh)


# ---------------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------------


def _mlstm_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """k scaled by 1/√dk; ĩ ~ N(0, 2²) and f̃ ~ N(3, 1.5²) (xLSTM's forget bias init is 3..6); a nonzero state."""
    B, H, d = size["B"], size["H"], size["d"]
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    q = torch.randn(B, H, T, d, **f64)  # (B, H, T, dk)
    k = torch.randn(B, H, T, d, **f64) / math.sqrt(d)  # (B, H, T, dk)
    v = torch.randn(B, H, T, d, **f64)  # (B, H, T, dv)
    i_gate = 2 * torch.randn(B, H, T, **f64)  # (B, H, T)
    log_f = F.logsigmoid(3 + 1.5 * torch.randn(B, H, T, **f64))  # (B, H, T)
    C0 = 0.3 * torch.randn(B, H, d, d, **f64)  # (B, H, dv, dk)
    n0 = 0.3 * torch.randn(B, H, d, **f64)  # (B, H, dk)
    m0 = torch.randn(B, H, **f64)  # (B, H)
    return tuple(x.to(dtype) for x in (q, k, v, i_gate, log_f, C0, n0, m0))


def _slstm_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """u ~ N(0, 1) with the forget gate shifted by +3; R ~ N(0, 1/dh); a valid state (n ≥ 1)."""
    B, H, d = size["B"], size["H"], size["d"]
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    u = torch.randn(B, T, 4, H, d, **f64)  # (B, T, 4, H, dh)
    u[:, :, 1] += 3.0  # forget-gate bias, as initialised by the model
    R = torch.randn(4, H, d, d, **f64) / math.sqrt(d)  # (4, H, dh, dh)
    h0 = 0.5 * torch.randn(B, H, d, **f64)  # (B, H, dh)
    n0 = 1 + torch.rand(B, H, d, **f64)  # (B, H, dh)
    c0 = n0 * (2 * torch.rand(B, H, d, **f64) - 1)  # (B, H, dh) |c/n| ≤ 1 like tanh(z)
    m0 = torch.randn(B, H, d, **f64)  # (B, H, dh)
    return tuple(x.to(dtype) for x in (u, R, h0, c0, n0, m0))


register_pair(OpPair(
    name="mlstm", reference=mlstm_recurrent, fast=mlstm_chunkwise, make_inputs=_mlstm_inputs,
    sizes={"cpu": {"B": 16, "H": 4, "d": 64, "T": 128}, "gpu": {"B": 256, "H": 4, "d": 64, "T": 500}},
    why="chunkwise-parallel stabilized form: T/L elementwise carry steps plus batched matmuls",
))
register_pair(OpPair(
    name="slstm", reference=slstm_sequential, fast=slstm_fused, make_inputs=_slstm_inputs, state_output=2,
    sizes={"cpu": {"B": 32, "H": 4, "d": 32, "T": 128}, "gpu": {"B": 256, "H": 4, "d": 32, "T": 500}},
    why="one baddbmm for all gates and heads per step, pointwise cell on contiguous slices",
))
