"""h_t = P_t D_t h_{t−1} + b_t: the PD rule, a column-one-hot P_t times a complex diagonal D_t (PD-SSM).

Terzić et al. (2025), "PD-SSM", §3: the transition is A(u_t) = P(u_t) D(u_t) with P ∈ {0, 1}^{N×N}
column one-hot (each column has exactly one 1; rows may have several or none, so P can merge states)
and D = diag(|D| e^{iφ}), |D| ≤ 1. If column j of P has its 1 in row π(j), then (P D h)_{π(j)} += D_j h_j:
a scatter-add, O(N) per step instead of a dense O(N²) matrix–vector product, and the composition of
two such maps is again one (``_compose``), which is what makes PD-SSM's parallel scan cheap.

Complex tensors cross the interface as real views with a trailing axis of size 2 (re, im), like
``complex_diagonal``; P is a dense real (B, T, N, N) tensor so that a straight-through estimator can
attach a gradient to every entry (the layer passes ``hard + (soft − soft.detach())``, exactly one-hot
in value, softmax-like in gradient).

Pair:

- ``pd_sequential``: the dense loop h ← P_t (D_t ⊙ h) + b_t, differentiated by autograd (the oracle).
- ``pd_scan``: a log-depth (Hillis–Steele) scan over the monoid of (π, d, b) triples, with scatter-adds
  and gathers only. The gradient w.r.t. every entry of P (also the zeros, which the STE needs) comes
  from injecting ``(P_t − sg(P_t)) u_t`` into the inputs, with u_t = D_t h_{t−1} taken from a first,
  gradient-free pass: a zero in value whose derivative in P_t is the true ∂h_t/∂P_t.

P's support is read from its column-wise argmax and its nonzero entries are taken as exactly 1, so
``pd_scan`` assumes P is column-one-hot in value (the reference works for any P).

Hand-worked example: N = 3, P the cycle 0 → 1 → 2 → 0 (π = (1, 2, 0)), D = 1, b = 0, h_0 = e_0 gives
h = e_1, e_2, e_0, …: the one-hot state follows the automaton, PD-SSM Prop 2's construction.

Used in: the ``pd_ssm`` model (models/pd_ssm.py).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from statetrack.models.ops.complex_diagonal import as_complex, as_real
from statetrack.models.ops.registry import OpPair, register_pair

__all__ = ["pd_sequential", "pd_scan", "column_support"]


def _diag(r: Tensor, theta: Tensor) -> Tensor:
    return torch.complex(r * torch.cos(theta), r * torch.sin(theta))  # r e^{iθ}, same shape


def pd_sequential(
    P: Tensor, r: Tensor, theta: Tensor, b: Tensor, h0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """h_t = P(u_t) D(u_t) h_{t−1} + b_t, D = diag(r_t e^{iθ_t}) (PD-SSM §3, A(u) = P(u) D(u)).

    The reference: a dense matrix–vector product per step (P is cast to complex), autograd's gradient
    for every input, including every entry of P.

    Args:
        P: (B, T, N, N) real transition structure; column one-hot in PD-SSM (any matrix works here).
        r: (B, T, N) moduli |D| ∈ [0, 1].
        theta: (B, T, N) phases of D.
        b: (B, T, N, 2) inputs B u_t (complex as re, im).
        h0: (B, N, 2) initial state, or None for zeros.

    Returns:
        h: (B, T, N, 2) every state; h_last: (B, N, 2) the final state.

    Used in: tests and ``statetrack bench`` (ground truth for ``pd_scan``).
    """
    d = _diag(r, theta)  # (B, T, N) complex
    bc = as_complex(b)  # (B, T, N) complex
    h = torch.zeros_like(bc[:, 0]) if h0 is None else as_complex(h0)  # (B, N)
    Pc = P.to(d.dtype)  # (B, T, N, N) complex
    states = []
    with torch.autocast(device_type=P.device.type, enabled=False):
        for P_t, d_t, b_t in zip(Pc.unbind(1), d.unbind(1), bc.unbind(1)):  # (B, N, N), (B, N), (B, N)
            h = (P_t @ (d_t * h).unsqueeze(-1)).squeeze(-1) + b_t  # (B, N)
            states.append(h)
    return as_real(torch.stack(states, dim=1)), as_real(h)  # (B, T, N, 2), (B, N, 2)


def column_support(P: Tensor) -> Tensor:
    """π with π(j) = the row of column j's nonzero entry: (..., N, N) → (..., N) long (the argmax of each column)."""
    return P.detach().abs().argmax(dim=-2)  # (..., N)


def _compose(later, earlier):
    """(π_L, d_L, b_L) ∘ (π_E, d_E, b_E): the map x ↦ A_L (A_E x + b_E) + b_L as one (π, d, b) triple.

    A_E x scatters d_E ⊙ x to rows π_E; A_L then moves entry π_E(j) to π_L(π_E(j)) and scales it by
    d_L[π_E(j)]. So π = π_L ∘ π_E (a gather), d = d_E ⊙ d_L[π_E] and b = A_L b_E + b_L (a scatter-add).
    """
    pi_l, d_l, b_l = later  # (B, T, N) long, (B, T, N) complex, (B, T, N) complex
    pi_e, d_e, b_e = earlier
    pi = pi_l.gather(-1, pi_e)  # (B, T, N)
    d = d_e * d_l.gather(-1, pi_e)  # (B, T, N)
    b = b_l.scatter_add(-1, pi_l, d_l * b_e)  # (B, T, N)
    return pi, d, b


def _shift(x: Tensor, s: int, fill: Tensor) -> Tensor:
    """x (B, T, N) delayed by s steps along T, the first s steps filled with ``fill`` (B, s, N)."""
    return torch.cat([fill, x[:, :-s]], dim=1)  # (B, T, N)


def _scan(pi: Tensor, d: Tensor, b: Tensor):
    """Inclusive prefix compositions A_t ⋯ A_1 (and the accumulated inputs) by Hillis–Steele doubling."""
    B, T, N = d.shape
    ident_pi = torch.arange(N, device=pi.device).expand(B, T, N)  # (B, T, N) identity map
    s = 1
    while s < T:
        fill = (ident_pi[:, :s], torch.ones_like(d[:, :s]), torch.zeros_like(b[:, :s]))  # the identity triple
        earlier = tuple(_shift(x, s, f) for x, f in zip((pi, d, b), fill))  # each (B, T, N)
        pi, d, b = _compose((pi, d, b), earlier)  # (B, T, N) each
        s *= 2
    return pi, d, b


def _states(pi: Tensor, d: Tensor, b: Tensor, h0: Tensor | None) -> Tensor:
    cum_pi, cum_d, cum_b = _scan(pi, d, b)  # (B, T, N) each: the map from h_0 to h_t
    if h0 is None:
        return cum_b  # (B, T, N)
    start = (cum_d * h0.unsqueeze(1))  # (B, T, N) d ⊙ h_0
    return cum_b.scatter_add(-1, cum_pi, start)  # (B, T, N) A_{1..t} h_0 + b_{1..t}


def pd_scan(
    P: Tensor, r: Tensor, theta: Tensor, b: Tensor, h0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """h_t = P(u_t) D(u_t) h_{t−1} + b_t by a log-depth scan of (π, d, b) triples (PD-SSM's parallel scan).

    Same contract as ``pd_sequential`` for a column-one-hot P (its support is read by ``column_support``
    and its nonzero entries are taken as 1). ⌈log₂ T⌉ levels, each a gather, a multiply and a
    scatter-add over (B, T, N): O(T N log T) work instead of the reference's O(T N²).

    Gradients: D, b and h_0 by autograd through the scan; P through the injection
    ``b_t + (P_t − sg(P_t)) sg(D_t ⊙ h_{t−1})`` (zero in value, with the dense ∂h_t/∂P_t), where the
    h_{t−1} come from a first pass without gradients. Both passes run the same scan.

    Args:
        P: (B, T, N, N); r, theta: (B, T, N); b: (B, T, N, 2); h0: (B, N, 2) or None.

    Returns:
        h: (B, T, N, 2) every state; h_last: (B, N, 2).

    Used in: the ``pd_ssm`` model's fast path.
    """
    pi = column_support(P)  # (B, T, N) long
    d = _diag(r, theta)  # (B, T, N) complex
    bc = as_complex(b)  # (B, T, N) complex
    h0c = None if h0 is None else as_complex(h0)  # (B, N) or None
    with torch.autocast(device_type=P.device.type, enabled=False):
        if P.requires_grad:
            with torch.no_grad():
                h = _states(pi, d, bc, h0c)  # (B, T, N) the states, first pass
                first = torch.zeros_like(h[:, :1]) if h0c is None else h0c.unsqueeze(1)  # (B, 1, N) h_0
                u = d * torch.cat([first, h[:, :-1]], dim=1)  # (B, T, N) D_t ⊙ h_{t−1}
            zero = P - P.detach()  # (B, T, N, N) 0 in value, the identity in gradient
            inject = torch.complex(zero @ u.real.unsqueeze(-1), zero @ u.imag.unsqueeze(-1)).squeeze(-1)  # (B, T, N)
            bc = bc + inject  # (B, T, N)
        h = _states(pi, d, bc, h0c)  # (B, T, N)
    return as_real(h), as_real(h[:, -1])  # (B, T, N, 2), (B, N, 2)


def _inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """Random column-one-hot P (non-injective maps included), |D| ∈ [0.9, 1], phases in [0, 2π), a nonzero h_0."""
    B, N = size["B"], size["d"]
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    rows = torch.randint(0, N, (B, T, N), device=device, generator=gen)  # (B, T, N) π(j) per column
    P = F.one_hot(rows, N).transpose(-1, -2).to(torch.float64)  # (B, T, N, N) P[π(j), j] = 1
    r = 1 - 0.1 * torch.rand(B, T, N, **f64)  # (B, T, N)
    theta = 2 * math.pi * torch.rand(B, T, N, **f64)  # (B, T, N)
    b = 0.1 * torch.randn(B, T, N, 2, **f64)  # (B, T, N, 2)
    h0 = torch.randn(B, N, 2, **f64)  # (B, N, 2)
    return tuple(x.to(dtype) for x in (P, r, theta, b, h0))


register_pair(OpPair(
    name="pd", reference=pd_sequential, fast=pd_scan, make_inputs=_inputs,
    sizes={"cpu": {"B": 8, "T": 256, "d": 32}, "gpu": {"B": 64, "T": 500, "d": 64}},
    why="log-depth scan of column-one-hot × diagonal maps: gathers and scatter-adds, O(N) per combine",
))
