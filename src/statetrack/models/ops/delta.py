"""The delta rule S_t = (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t (DeltaNet; NE Eq. 2); DeltaProduct.

Pairs:

- ``delta_rule_sequential`` (the autograd loop in rank-one form, the oracle) and ``delta_rule_chunked``
  (the chunkwise WY/UT form of fla's DeltaNet, pure torch, exact in fp32/fp64). With ‖k_t‖ = 1 and
  β_t ∈ [0, 2] the transition's eigenvalues 1 − β_t lie in [−1, 1].
- ``delta_product_sequential`` and ``delta_product_chunked`` (DeltaProduct, Siems et al. 2025): each
  token applies n_h delta-rule steps, so A(x_t) is a product of n_h generalized Householder matrices
  (NE Prop. 1, Thm 4). The fast path interleaves the n_h sub-steps into a sequence of length T·n_h,
  runs ``delta_rule_chunked`` on it and reads every n_h-th output, as fla's ``gated_deltaproduct`` does.

Optional GPU backend: ``delta_rule_fla`` / ``delta_product_fla`` call fla's Triton
``chunk_delta_rule`` when fla imports and the tensors are on CUDA, else fall back to the chunked op
with a one-time warning. fla's kernel refuses fp32 and keeps the state in bf16 for the ``W·S``
product, so it is a speed reference, never the default.

Hand-worked example: k = e_1, β = 2, v = 0 gives S ← (I − 2 e_1 e_1ᵀ) S: the first row of S flips sign.

Both functions switch autocast off inside, so a caller's bf16 autocast cannot turn the state
matmuls into bf16.

Used in: ne1, ne4, ne5, ne6, ne7 (the DeltaNet layer).
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch import Tensor

from statetrack.models.ops.registry import OpPair, register_pair

__all__ = [
    "delta_rule_sequential",
    "default_chunk",
    "delta_rule_chunked",
    "delta_rule_fla",
    "delta_product_sequential",
    "delta_product_chunked",
    "delta_product_fla",
    "fla_available",
]


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


def default_chunk(x: Tensor) -> int:
    """Steps per chunk of ``delta_rule_chunked``: 16 on a CPU, 32 elsewhere.

    On 2 CPU threads C = 16 and 32 tie at T=256, d=64 (~100 ms fwd+bwd at B=32, H=4), but at the quick
    presets' short sequences 16 wastes less padding: a whole DeltaNet training step at T=40 (B64, D32,
    H2) went from 19.3 to 15.7 ms (min of 40) and at T=32 (B128, D64, H4) from 31.9 to 28.8 ms. On a
    GPU, fewer and larger chunks keep the sequential part short; 32 is unchanged there (not re-measured).
    """
    return 16 if x.device.type == "cpu" else 32


def delta_rule_chunked(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None, chunk_size: int | None = None
) -> tuple[Tensor, Tensor]:
    """S_t = (I - β_t k_t k_tᵀ) S_{t-1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t; chunkwise WY/UT form (fla's DeltaNet).

    Same contract as ``delta_rule_sequential``; exact up to rounding in fp32 and fp64, for any β.
    Derivation, inside one chunk of C steps starting from state S
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
        chunk_size: C, steps per chunk; None: 16 on a CPU, 32 on a GPU (``default_chunk``).

    Returns:
        o: (B, H, T, dv) outputs; S_last: (B, H, dk, dv) final state.

    Used in: ne1, ne4, ne5, ne6, ne7 (the DeltaNet layer).
    """
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    C = chunk_size or default_chunk(q)
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
    # which is useless for state tracking. Inputs keep their own dtype.
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


# ---------------------------------------------------------------------------------------------------------
# DeltaProduct: n_h generalized Householder steps per token
# ---------------------------------------------------------------------------------------------------------


def delta_product_sequential(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """S_t = H_{t,n_h} ⋯ H_{t,1} S_{t−1} + (writes), o_t = S_tᵀ q_t (DeltaProduct; NE Prop. 1, Thm 4).

    Each token t applies n_h delta-rule sub-steps j = 1..n_h in order,
    ``S ← (I − β_{t,j} k_{t,j} k_{t,j}ᵀ) S + β_{t,j} k_{t,j} v_{t,j}ᵀ``, so the transition A(x_t) is the
    product ``H_{t,n_h} ⋯ H_{t,1}`` of n_h generalized Householder matrices; the output is read once,
    after the last sub-step. The reference: two nested Python loops (tokens via ``unbind``, sub-steps)
    in rank-one form, differentiated by autograd; it does not share code with the fast path.

    Args:
        q: (B, H, T, dk) queries (one per token).
        k: (B, H, T, n_h, dk) keys, n_h per token; unit norm for the eigenvalue range to hold.
        v: (B, H, T, n_h, dv) values, n_h per token.
        beta: (B, H, T, n_h) write strengths; [0, 1] or NE's [0, 2].
        S0: (B, H, dk, dv) initial state, or None for zeros.

    Returns:
        o: (B, H, T, dv) outputs ``o_t = S_tᵀ q_t``; S_last: (B, H, dk, dv) the final state.

    Used in: tests (ground truth for ``delta_product_chunked``).
    """
    B, H, _, n_h, dk = k.shape
    dv = v.shape[-1]
    S = q.new_zeros(B, H, dk, dv) if S0 is None else S0  # (B, H, dk, dv)
    outputs = []
    steps = zip(q.unbind(dim=2), k.unbind(dim=2), v.unbind(dim=2), beta.unbind(dim=2))
    with torch.autocast(device_type=q.device.type, enabled=False):  # state math in the inputs' dtype
        for q_t, k_t, v_t, beta_t in steps:  # (B, H, dk), (B, H, n_h, dk), (B, H, n_h, dv), (B, H, n_h)
            for k_j, v_j, beta_j in zip(k_t.unbind(dim=2), v_t.unbind(dim=2), beta_t.unbind(dim=2)):
                recalled = (k_j.unsqueeze(-2) @ S).squeeze(-2)  # (B, H, dv) Sᵀ k_j
                error = beta_j.unsqueeze(-1) * (v_j - recalled)  # (B, H, dv)
                S = S + k_j.unsqueeze(-1) * error.unsqueeze(-2)  # (B, H, dk, dv)
            outputs.append((q_t.unsqueeze(-2) @ S).squeeze(-2))  # (B, H, dv) S_tᵀ q_t
    return torch.stack(outputs, dim=2), S  # (B, H, T, dv), (B, H, dk, dv)


def _interleave(q: Tensor, k: Tensor, v: Tensor, beta: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Token-major sub-steps → one delta-rule sequence of length T·n_h (fla's '(t n)' layout).

    The query sits on the last sub-step of each token and is zero elsewhere (those outputs are dropped).
    """
    B, H, T, n_h, dk = k.shape
    q_sub = F.pad(q.unsqueeze(3), (0, 0, n_h - 1, 0))  # (B, H, T, n_h, dk) q at sub-step n_h, zeros before
    return (
        q_sub.reshape(B, H, T * n_h, dk),  # (B, H, T·n_h, dk)
        k.reshape(B, H, T * n_h, dk),  # (B, H, T·n_h, dk)
        v.reshape(B, H, T * n_h, v.shape[-1]),  # (B, H, T·n_h, dv)
        beta.reshape(B, H, T * n_h),  # (B, H, T·n_h)
    )


def _read_every_last(o: Tensor, n_h: int) -> Tensor:
    B, H, Tn, dv = o.shape
    return o.reshape(B, H, Tn // n_h, n_h, dv)[:, :, :, -1]  # (B, H, T, dv) the output after sub-step n_h


def delta_product_chunked(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None, chunk_size: int | None = None
) -> tuple[Tensor, Tensor]:
    """DeltaProduct by interleaving: the delta rule on length T·n_h, read every n_h-th step (fla's gated_deltaproduct).

    Same contract as ``delta_product_sequential``. The n_h (k, v, β) triples of token t become
    sub-steps t·n_h … t·n_h + n_h − 1 of one delta-rule sequence; the query is
    placed on the last sub-step, so the output read there is ``S_tᵀ q_t`` after all n_h writes.
    ``delta_rule_chunked`` does the rest, exactly (up to rounding) for any β. Cost ×n_h.

    Args:
        q: (B, H, T, dk); k: (B, H, T, n_h, dk); v: (B, H, T, n_h, dv); beta: (B, H, T, n_h);
        S0: (B, H, dk, dv) or None (zeros).
        chunk_size: C, sub-steps per chunk of the interleaved sequence (C/n_h tokens; None: ``default_chunk``). Chunks need not
            align with tokens: the chunked rule is exact for any split.

    Returns:
        o: (B, H, T, dv) outputs; S_last: (B, H, dk, dv) final state.

    Used in: the DeltaProduct layer (``layers.DeltaProductMixer``).
    """
    n_h = k.shape[3]
    o, S = delta_rule_chunked(*_interleave(q, k, v, beta), S0, chunk_size=chunk_size)  # (B, H, T·n_h, dv)
    return _read_every_last(o, n_h), S  # (B, H, T, dv), (B, H, dk, dv)


# ---------------------------------------------------------------------------------------------------------
# Optional fla backend (GPU, bf16): a speed reference, opt-in only
# ---------------------------------------------------------------------------------------------------------

_FLA_WARNED: set[str] = set()  # reasons already warned about (one warning per reason and process)
_FLA_KERNEL: dict[str, object] = {}  # the imported kernel, or the import error, once looked up


def _warn_once(reason: str, message: str) -> None:
    if reason not in _FLA_WARNED:
        _FLA_WARNED.add(reason)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def _fla_chunk_delta_rule():
    """fla's ``chunk_delta_rule``, or None if fla does not import (the error is kept for the warning)."""
    if "fn" not in _FLA_KERNEL:
        try:
            from fla.ops.delta_rule import chunk_delta_rule
        except Exception as err:  # ImportError, or triton failing to initialise
            _FLA_KERNEL["fn"], _FLA_KERNEL["error"] = None, f"{type(err).__name__}: {err}"
        else:
            _FLA_KERNEL["fn"], _FLA_KERNEL["error"] = chunk_delta_rule, None
    return _FLA_KERNEL["fn"]


def fla_available() -> bool:
    """True when fla's Triton ``chunk_delta_rule`` imports and a CUDA device exists."""
    return torch.cuda.is_available() and _fla_chunk_delta_rule() is not None


def _fla_kernel_for(q: Tensor):
    """The fla kernel for these tensors, or None after a one-time warning saying why not."""
    if q.device.type != "cuda":
        _warn_once(
            "device",
            f"backend='fla' needs CUDA tensors (got {q.device.type}); using the pure-torch chunked delta rule",
        )
        return None
    fn = _fla_chunk_delta_rule()
    if fn is None:
        _warn_once(
            "import",
            f"backend='fla' asked for, but fla does not import ({_FLA_KERNEL['error']}); "
            "using the pure-torch chunked delta rule",
        )
    return fn


def delta_rule_fla(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None, chunk_size: int | None = None
) -> tuple[Tensor, Tensor]:
    """The delta rule through fla's Triton ``chunk_delta_rule`` (bf16), else ``delta_rule_chunked``.

    Same contract as ``delta_rule_chunked``. On CUDA with fla importable, q, k, v and β are cast to
    bf16 (fla asserts non-fp32 inputs), laid out as fla's (B, T, H, d), and the kernel is called with
    ``scale=1`` (our o_t = S_tᵀ q_t has no 1/√d) and no in-kernel L2 norm (the layer normalises). The
    initial state stays fp32; fla keeps its running state in fp32 but rounds it to bf16 for ``W·S``
    every chunk, so expect ~1e-2 relative error growing with T/C. Outputs are cast
    back to the inputs' dtype. Anywhere else (CPU tensors, fla missing) this warns once and runs
    ``delta_rule_chunked`` with ``chunk_size``, which fla ignores (its chunk is 64).

    Used in: DeltaNet / DeltaProduct with ``backend="fla"`` (speed reference on the GPU).
    """
    fn = _fla_kernel_for(q)
    if fn is None:
        return delta_rule_chunked(q, k, v, beta, S0, chunk_size=chunk_size)
    dtype = q.dtype

    def to_fla(x: Tensor) -> Tensor:
        return x.transpose(1, 2).to(torch.bfloat16).contiguous()  # (B, T, H, ...) bf16

    h0 = None if S0 is None else S0.float().contiguous()  # (B, H, dk, dv) fp32
    with torch.autocast(device_type="cuda", enabled=False):
        o, S = fn(to_fla(q), to_fla(k), to_fla(v), to_fla(beta), scale=1.0, initial_state=h0,
                  output_final_state=True)  # (B, T, H, dv), (B, H, dk, dv)
    return o.transpose(1, 2).to(dtype), S.to(dtype)  # (B, H, T, dv), (B, H, dk, dv)


def delta_product_fla(
    q: Tensor, k: Tensor, v: Tensor, beta: Tensor, S0: Tensor | None = None, chunk_size: int | None = None
) -> tuple[Tensor, Tensor]:
    """DeltaProduct through fla's ``chunk_delta_rule`` on the interleaved sequence, else ``delta_product_chunked``.

    Same contract as ``delta_product_chunked``; same interleaving, with ``delta_rule_fla`` as the inner
    rule (fla's own ``chunk_gated_delta_product`` needs a forget gate g, which our layer has not).

    Used in: DeltaProduct with ``backend="fla"``.
    """
    n_h = k.shape[3]
    o, S = delta_rule_fla(*_interleave(q, k, v, beta), S0, chunk_size=chunk_size)  # (B, H, T·n_h, dv)
    return _read_every_last(o, n_h), S  # (B, H, T, dv), (B, H, dk, dv)


def _product_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """n_h unit-norm keys per token, β ∈ [0, 2], a nonzero initial state."""
    B, H, dk, n_h = size["B"], size["H"], size["dk"], size["n_h"]
    dv = size.get("dv", dk)
    f64 = dict(device=device, dtype=torch.float64, generator=gen)
    q = F.normalize(torch.randn(B, H, T, dk, **f64), dim=-1)  # (B, H, T, dk)
    k = F.normalize(torch.randn(B, H, T, n_h, dk, **f64), dim=-1)  # (B, H, T, n_h, dk)
    v = torch.randn(B, H, T, n_h, dv, **f64)  # (B, H, T, n_h, dv)
    beta = 2 * torch.rand(B, H, T, n_h, **f64)  # (B, H, T, n_h)
    S0 = 0.1 * torch.randn(B, H, dk, dv, **f64)  # (B, H, dk, dv)
    return tuple(x.to(dtype) for x in (q, k, v, beta, S0))


register_pair(OpPair(
    name="delta_product", reference=delta_product_sequential, fast=delta_product_chunked,
    make_inputs=_product_inputs,
    sizes={"cpu": {"B": 16, "H": 4, "dk": 32, "n_h": 2}, "cpu_nh3": {"B": 16, "H": 2, "dk": 32, "n_h": 3},
           "gpu": {"B": 64, "H": 4, "dk": 64, "n_h": 2}},
    why="interleave the n_h Householder steps to length T·n_h and reuse the chunked WY/UT delta rule",
))
