"""Bilinear rules h_t = A(x_t) h_{t−1} (+ u(x_t)), optionally h_t ← h_t/‖h_t‖ (BL §2).

The BL paper's recurrence is ``h_t[i] = Σ_jk W[i,j,k] h_{t−1}[j] x_t[k]``, i.e. ``h_t = A(x_t) h_{t−1}``
with ``A(x) = Σ_k W_k x_k``. Every input here is a token id, so every rule takes a per-token *table*
(one-hot x: the table is W itself; a learned embedding: the model contracts W with it first) and
the op picks row ``tokens[b, t]`` at each step. Five structures of A, each a registered pair of the
fast path ``<name>`` and its reference ``<name>_sequential``:

| pair                 | A_v (v = token)                             | tables                       |
|----------------------|---------------------------------------------|------------------------------|
| ``bilinear_dense``   | a full H×H matrix                           | A (V, H, H)                  |
| ``bilinear_block``   | block-diagonal, blocks b×b                  | A (V, H/b, b, b)             |
| ``bilinear_cp``      | L diag(s_v) Rᵀ (CP / factored, rank R)      | L (H, R), s (V, R), R (H, R) |
| ``bilinear_diagonal``| diag(w_v), real, any sign (b = 1)           | w (V, H)                     |
| ``bilinear_rotation``| H/2 rotations R(θ_v) (unit-modulus complex) | θ (V, H/2)                   |

Every op has the same optional extras: ``u`` (V, H), a per-token additive term (the BL ablation
``A(x) h + B x + b``; for a token table ``u_v = B x_v + b``), and ``normalize`` (h ← h/‖h‖ after every
step, the additive term included). All return ``(h (B, T, H), h_last (B, H))``.

Hand-worked example: H = 2, one token whose A is the swap [[0, 1], [1, 0]], h_0 = (1, 0): h = (0, 1),
(1, 0), (0, 1), ... With the rotation θ = π/2: h = (0, 1), (−1, 0), (0, −1), (1, 0).

Fast paths (never build (B, T, H, H); loops over ``unbind`` beat scans on a
CPU for dense matrices):

- dense, block, CP, diagonal, and rotation with an additive term: one custom autograd Function
  (``_BilinearRecurrence``) with a graph-free forward loop and a backward loop ``g ← A_tᵀ dz_t``.
  The parameter gradients are accumulated once at the end from all B·T steps together: dense and
  block as ``Σ_{n: token=v} dz_n h_{n−1}ᵀ`` by one batched GEMM over tokens (rows sorted by token and
  padded), CP as two (H, B·T)·(B·T, R) GEMMs, diagonal and rotation by ``index_add``.
  A dense step with few tokens (V ≤ 32) multiplies h by all V matrices in one GEMM (V× the FLOPs,
  but one large GEMM) and picks each row's token; otherwise it gathers each row's matrix
  (``index_select``; 2–4× faster than ``A[tok]`` here) and runs ``bmm``. Measured on 2 threads:
  0.22 vs 0.36 ms per forward step at B128 H64 V26, fwd+bwd 66 vs 93 ms at B8 T500; a tie at B32–128
  while the cores were shared; gather + bmm wins at V51. Batches below 8 always gather: on an
  oversubscribed 2-core box a tiny GEMM (M = 2) on 2 threads stalled for seconds at a time
  (observed here; bmm did not).
- rotation without an additive term: angles add, so ``h_t = R(Θ_t) h_0`` with ``Θ_t = Σ_{s≤t} θ_s``,
  one cumulative sum (in fp64, reduced mod 2π) instead of a loop. Exact, gradients included, with
  or without normalization: a rotation keeps ‖h‖, so per-step normalization only divides by ‖h_0‖
  once and projects nothing else out (the gradient through a rotated unit vector is tangential).

No function holds parameters; all run on CPU or CUDA in fp32 or fp64 and switch autocast off
inside. Zero-norm states are not guarded: normalizing h = 0 gives NaN, in the
reference as in the fast path.

Used in: models/bilinear.py (the ``bilinear`` model); bl1–bl8.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from statetrack.models.ops.registry import OpPair, register_pair

__all__ = [
    "bilinear_dense_sequential", "bilinear_dense",
    "bilinear_block_sequential", "bilinear_block",
    "bilinear_cp_sequential", "bilinear_cp",
    "bilinear_diagonal_sequential", "bilinear_diagonal",
    "bilinear_rotation_sequential", "bilinear_rotation",
]

# A dense step multiplies h by all V matrices at once (one GEMM) when V <= 32 and B >= 8 (see above).
_ALL_TOKENS_MAX_V = 32
_ALL_TOKENS_MAX_VH = 1024  # block-diagonal rules: the all-token GEMM costs V·H² per row against gather's H·b
_ALL_TOKENS_MIN_B = 8


# ----------------------------------------------------------------------------------------------------------
# References: literal loops over unbind(dim=1), differentiated by autograd
# ----------------------------------------------------------------------------------------------------------


def _finish_step(z: Tensor, u: Tensor | None, tok_t: Tensor, normalize: bool) -> Tensor:
    """z + u[tok_t], then z/‖z‖ if ``normalize``: the part every reference step shares."""
    if u is not None:
        z = z + u[tok_t]  # (B, H)
    if normalize:
        z = z / torch.linalg.vector_norm(z, dim=-1, keepdim=True)  # (B, H)
    return z


def bilinear_dense_sequential(
    A: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = A_{x_t} h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize (BL full bilinear).

    The reference: a loop that gathers each row's matrix and multiplies.

    Args:
        A: (V, H, H) one transition matrix per token, ``A[v] = Σ_k W_k x_k`` for x the input of token v.
        tokens: (B, T) token ids in [0, V).
        h0: (B, H) initial state.
        u: (V, H) per-token additive term ``B x_v + b``, or None (the pure bilinear form).
        normalize: divide the state by its L2 norm after every step.

    Returns:
        h: (B, T, H) the state after every step; h_last: (B, H) the final state.

    Used in: tests (ground truth for ``bilinear_dense``); the ``bilinear`` model's step() and
    ``backend="reference"``.
    """
    with torch.autocast(device_type=h0.device.type, enabled=False):
        h, states = h0, []  # (B, H)
        for tok_t in tokens.unbind(dim=1):  # (B,)
            z = (A[tok_t] @ h.unsqueeze(-1)).squeeze(-1)  # (B, H) A_{x_t} h_{t−1}
            h = _finish_step(z, u, tok_t, normalize)  # (B, H)
            states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, H), (B, H)


def bilinear_block_sequential(
    A: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = blockdiag(A_{x_t,1}, …, A_{x_t,H/b}) h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize (BL block-diag).

    The norm is taken over the whole state, not per block. Args as ``bilinear_dense_sequential``
    except ``A``: (V, H/b, b, b), block k of token v acting on h[k·b:(k+1)·b].

    Returns:
        h: (B, T, H); h_last: (B, H).

    Used in: tests (ground truth for ``bilinear_block``); the ``bilinear`` model (variant "block").
    """
    nb, b = A.shape[1], A.shape[2]
    with torch.autocast(device_type=h0.device.type, enabled=False):
        h, states = h0, []  # (B, H)
        for tok_t in tokens.unbind(dim=1):  # (B,)
            z = torch.einsum("bkij,bkj->bki", A[tok_t], h.unflatten(-1, (nb, b)))  # (B, H/b, b)
            h = _finish_step(z.flatten(-2), u, tok_t, normalize)  # (B, H)
            states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, H), (B, H)


def bilinear_cp_sequential(
    left: Tensor, scale: Tensor, right: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None,
    normalize: bool = True,
) -> tuple[Tensor, Tensor]:
    """h_t = L diag(s_{x_t}) Rᵀ h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize (BL CP-factored, rank R).

    BL writes ``A_x = W^{(h1)} diag(W^{(x)ᵀ} x) W^{(h2)ᵀ}``: L = W^{(h1)}, R = W^{(h2)}, s_v = W^{(x)ᵀ} x_v.

    Args:
        left: (H, R) L; scale: (V, R) s_v per token; right: (H, R) R.
        tokens, h0, u, normalize: as ``bilinear_dense_sequential``.

    Returns:
        h: (B, T, H); h_last: (B, H).

    Used in: tests (ground truth for ``bilinear_cp``); the ``bilinear`` model (variant "cp").
    """
    with torch.autocast(device_type=h0.device.type, enabled=False):
        h, states = h0, []  # (B, H)
        for tok_t in tokens.unbind(dim=1):  # (B,)
            z = ((h @ right) * scale[tok_t]) @ left.T  # (B, H) L diag(s) Rᵀ h
            h = _finish_step(z, u, tok_t, normalize)  # (B, H)
            states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, H), (B, H)


def bilinear_diagonal_sequential(
    w: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = w_{x_t} ⊙ h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize (BL real diagonal, block size 1).

    Args:
        w: (V, H) the diagonal of A per token; any sign (a negative entry flips its unit: parity).
        tokens, h0, u, normalize: as ``bilinear_dense_sequential``.

    Returns:
        h: (B, T, H); h_last: (B, H).

    Used in: tests (ground truth for ``bilinear_diagonal``); the ``bilinear`` model (variant "diagonal").
    """
    with torch.autocast(device_type=h0.device.type, enabled=False):
        h, states = h0, []  # (B, H)
        for tok_t in tokens.unbind(dim=1):  # (B,)
            h = _finish_step(w[tok_t] * h, u, tok_t, normalize)  # (B, H)
            states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, H), (B, H)


def bilinear_rotation_sequential(
    theta: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t[2k:2k+2] = R(θ_{x_t,k}) h_{t−1}[2k:2k+2] (+ u_{x_t}), then h_t/‖h_t‖ if normalize (BL R2).

    ``R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]``: with z_k = h[2k] + i h[2k+1] this is the complex
    diagonal z_k ← e^{iθ_k} z_k, unit modulus, the same eigenbasis for every token (BL Prop. 2).

    Args:
        theta: (V, H/2) rotation angle of each 2×2 block per token.
        tokens, h0, u, normalize: as ``bilinear_dense_sequential``; H must be even.

    Returns:
        h: (B, T, H); h_last: (B, H).

    Used in: tests (ground truth for ``bilinear_rotation``); the ``bilinear`` model (variant "rotation").
    """
    with torch.autocast(device_type=h0.device.type, enabled=False):
        h, states = h0, []  # (B, H)
        for tok_t in tokens.unbind(dim=1):  # (B,)
            c, s = torch.cos(theta[tok_t]), torch.sin(theta[tok_t])  # (B, H/2) each
            x, y = h.unflatten(-1, (-1, 2)).unbind(-1)  # (B, H/2) each
            z = torch.stack((c * x - s * y, s * x + c * y), dim=-1).flatten(-2)  # (B, H)
            h = _finish_step(z, u, tok_t, normalize)  # (B, H)
            states.append(h)
    return torch.stack(states, dim=1), h  # (B, T, H), (B, H)


# ----------------------------------------------------------------------------------------------------------
# Fast paths: one graph-free loop with a hand-written backward, parameterised by a transition rule
# ----------------------------------------------------------------------------------------------------------


def _per_token_outer(tok: Tensor, left: Tensor, right: Tensor, V: int) -> Tensor:
    """Σ_{n: tok_n = v} left_n right_nᵀ for every token v, per block: one batched GEMM over tokens.

    Rows are sorted by token and padded to the largest count, so the sum is a (V·K)-batched
    (b, C)·(C, b) product; this never forms the (N, K, b, b) outer products (N·H·b floats).

    Args:
        tok: (N,) token ids; left, right: (N, K, b) per-row blocks.

    Returns:
        (V, K, b, b).
    """
    N, K, b = left.shape
    counts = torch.bincount(tok, minlength=V)  # (V,)
    order = torch.argsort(tok, stable=True)  # (N,)
    tok_sorted = tok[order]  # (N,)
    slot = torch.arange(N, device=tok.device) - (torch.cumsum(counts, 0) - counts)[tok_sorted]  # (N,)
    C = int(counts.max())  # one host sync per backward
    padded_left = left.new_zeros(V, C, K * b)  # (V, C, K·b)
    padded_right = right.new_zeros(V, C, K * b)  # (V, C, K·b)
    padded_left[tok_sorted, slot] = left[order].flatten(1)
    padded_right[tok_sorted, slot] = right[order].flatten(1)
    padded_left = padded_left.view(V, C, K, b).permute(0, 2, 3, 1)  # (V, K, b, C)
    padded_right = padded_right.view(V, C, K, b).transpose(1, 2)  # (V, K, C, b)
    return padded_left @ padded_right  # (V, K, b, b)


def _block_diagonal(A: Tensor) -> Tensor:
    """blockdiag(A_v[0], ..., A_v[K−1]) for every token: (V, K, b, b) → (V, K·b, K·b), zeros off the blocks."""
    V, K, b, _ = A.shape
    k = torch.arange(K, device=A.device)  # (K,)
    out = A.new_zeros(V, K, b, K, b)  # (V, K, b, K, b)
    out[:, k, :, k, :] = A.transpose(0, 1)  # the indexed axes lead: (K, V, b, b)
    return out.view(V, K * b, K * b)  # (V, H, H)


def _take(table: Tensor, idx: Tensor) -> Tensor:
    """table[idx] for an index tensor of any shape; ``index_select`` is 2–4× faster than ``table[idx]`` on a CPU."""
    return table.index_select(0, idx.reshape(-1)).view(*idx.shape, *table.shape[1:])


class _BlockRule:
    """z = blockdiag(A_v) h with A (V, K, b, b); K = 1 is the dense rule.

    With V ≤ ``_ALL_TOKENS_MAX_V``, B ≥ ``_ALL_TOKENS_MIN_B`` and (blocks only) V·H ≤ ``_ALL_TOKENS_MAX_VH`` a step
    multiplies h by all V (block-diagonal) matrices in one GEMM and picks each row's token; otherwise it
    gathers each row's blocks and runs a batched matmul.
    """

    def __init__(self, A: Tensor, *, batch: int):
        self.A = A  # (V, K, b, b)
        V, K, b, _ = A.shape
        self.V, self.K, self.b, self.H = V, K, b, K * b
        self.all_tokens = V <= _ALL_TOKENS_MAX_V and batch >= _ALL_TOKENS_MIN_B and (K == 1 or V * self.H <= _ALL_TOKENS_MAX_VH)
        if self.all_tokens:
            dense = A[:, 0] if K == 1 else _block_diagonal(A)  # (V, H, H)
            # h @ fwd gives every token's A_v h at once: fwd[j, v·H + i] = A_v[i, j]; bwd likewise A_vᵀ g.
            self.fwd = dense.permute(2, 0, 1).reshape(self.H, V * self.H)  # (H, V·H)
            self.bwd = dense.permute(1, 0, 2).reshape(self.H, V * self.H)  # (H, V·H)

    def steps(self, tok: Tensor) -> list:
        if self.all_tokens:  # row index of (b, v) in the (B·V, H) result of one all-token GEMM
            rows = torch.arange(tok.shape[1], device=tok.device) * self.V  # (B,)
            return list((tok + rows).unbind(0))  # T × (B,)
        return list(tok.unbind(0))  # T × (B,)

    def step(self, idx: Tensor, h: Tensor) -> Tensor:
        if self.all_tokens:
            return (h @ self.fwd).view(-1, self.H).index_select(0, idx)  # (B, H)
        return (self.A.index_select(0, idx) @ h.view(-1, self.K, self.b, 1)).flatten(1)  # (B, H)

    def step_T(self, idx: Tensor, g: Tensor) -> Tensor:
        if self.all_tokens:
            return (g @ self.bwd).view(-1, self.H).index_select(0, idx)  # (B, H)
        return (self.A.index_select(0, idx).transpose(-1, -2) @ g.view(-1, self.K, self.b, 1)).flatten(1)  # (B, H)

    def grads(self, tok: Tensor, h_prev: Tensor, dz: Tensor, needs: tuple[bool, ...]) -> tuple:
        if not needs[0]:
            return (None,)
        N = tok.shape[0]
        dA = _per_token_outer(tok, dz.view(N, self.K, self.b), h_prev.view(N, self.K, self.b), self.V)
        return (dA,)  # (V, K, b, b)


class _CPRule:
    """z = L diag(s_v) Rᵀ h with L, R (H, r) and s (V, r)."""

    def __init__(self, left: Tensor, scale: Tensor, right: Tensor, *, batch: int):
        self.left, self.scale, self.right = left, scale, right  # (H, r), (V, r), (H, r)

    def steps(self, tok: Tensor) -> list:
        return list(_take(self.scale, tok).unbind(0))  # T × (B, r)

    def step(self, s_t: Tensor, h: Tensor) -> Tensor:
        return ((h @ self.right) * s_t) @ self.left.T  # (B, H)

    def step_T(self, s_t: Tensor, g: Tensor) -> Tensor:
        return ((g @ self.left) * s_t) @ self.right.T  # (B, H)

    def grads(self, tok: Tensor, h_prev: Tensor, dz: Tensor, needs: tuple[bool, ...]) -> tuple:
        p = h_prev @ self.right  # (N, r) Rᵀ h_{t−1}
        q = dz @ self.left  # (N, r) Lᵀ dz_t
        s = _take(self.scale, tok)  # (N, r)
        d_left = dz.T @ (p * s) if needs[0] else None  # (H, r)
        d_scale = torch.zeros_like(self.scale).index_add_(0, tok, p * q) if needs[1] else None  # (V, r)
        d_right = h_prev.T @ (q * s) if needs[2] else None  # (H, r)
        return d_left, d_scale, d_right


class _DiagonalRule:
    """z = w_v ⊙ h with w (V, H)."""

    def __init__(self, w: Tensor, *, batch: int):
        self.w = w  # (V, H)

    def steps(self, tok: Tensor) -> list:
        return list(_take(self.w, tok).unbind(0))  # T × (B, H)

    def step(self, w_t: Tensor, h: Tensor) -> Tensor:
        return w_t * h  # (B, H)

    step_T = step  # a diagonal matrix is its own transpose

    def grads(self, tok: Tensor, h_prev: Tensor, dz: Tensor, needs: tuple[bool, ...]) -> tuple:
        if not needs[0]:
            return (None,)
        return (torch.zeros_like(self.w).index_add_(0, tok, dz * h_prev),)  # (V, H)


class _RotationRule:
    """z = R(θ_v) h per 2×2 block with θ (V, H/2)."""

    def __init__(self, theta: Tensor, *, batch: int):
        self.theta = theta  # (V, H/2)
        self.cos, self.sin = torch.cos(theta), torch.sin(theta)  # (V, H/2) each, once per call

    @staticmethod
    def _rotate(c: Tensor, s: Tensor, h: Tensor) -> Tensor:
        x, y = h.unflatten(-1, (-1, 2)).unbind(-1)  # (..., H/2) each
        return torch.stack((c * x - s * y, s * x + c * y), dim=-1).flatten(-2)  # (..., H)

    def steps(self, tok: Tensor) -> list:
        return list(zip(_take(self.cos, tok).unbind(0), _take(self.sin, tok).unbind(0)))  # T × ((B, H/2) × 2)

    def step(self, cs: tuple[Tensor, Tensor], h: Tensor) -> Tensor:
        return self._rotate(cs[0], cs[1], h)  # (B, H)

    def step_T(self, cs: tuple[Tensor, Tensor], g: Tensor) -> Tensor:
        return self._rotate(cs[0], -cs[1], g)  # (B, H) R(θ)ᵀ = R(−θ)

    def grads(self, tok: Tensor, h_prev: Tensor, dz: Tensor, needs: tuple[bool, ...]) -> tuple:
        if not needs[0]:
            return (None,)
        rotated = self._rotate(_take(self.cos, tok), _take(self.sin, tok), h_prev)  # (N, H)
        rx, ry = rotated.unflatten(-1, (-1, 2)).unbind(-1)  # (N, H/2) each
        gx, gy = dz.unflatten(-1, (-1, 2)).unbind(-1)  # (N, H/2) each
        # d(R(θ) h)/dθ = (−(Rh)_y, (Rh)_x): the rotated vector turned by another 90°.
        return (torch.zeros_like(self.theta).index_add_(0, tok, gy * rx - gx * ry),)  # (V, H/2)


class _BilinearRecurrence(torch.autograd.Function):
    """h_t = normalize?(rule(x_t) h_{t−1} + u_{x_t}) as a graph-free loop with a hand-written backward.

    Forward stores every state (time-major, (T, B, H)) and, when normalizing, every pre-norm length
    ‖z_t‖. Backward runs ``dz_t = (g_t − h_t (h_tᵀ g_t)) / ‖z_t‖`` (the Jacobian of z ↦ z/‖z‖; just
    ``g_t`` without normalization) and ``g_{t−1} = dL/dh_{t−1} + A_tᵀ dz_t`` in reverse. The rule's
    parameter gradients and ``du`` then come from all (h_{t−1}, dz_t) pairs at once. Per-token
    tables that are cheap to gather (diagonal, rotation, CP scales, u) are gathered for all steps
    at once, outside the loop.
    """

    @staticmethod
    def forward(ctx, rule_cls, normalize: bool, tokens: Tensor, h0: Tensor, u: Tensor | None, *params: Tensor):
        tok = tokens.t().contiguous()  # (T, B)
        T, B = tok.shape
        rule = rule_cls(*params, batch=B)
        steps = rule.steps(tok)  # T per-step operands
        u_steps = _take(u, tok).unbind(0) if u is not None else [None] * T  # T × (B, H)
        h = h0.new_empty(T, B, h0.shape[-1])  # (T, B, H)
        norms = h0.new_empty(T, B, 1) if normalize else None  # (T, B, 1)
        h_prev = h0  # (B, H)
        for t, (op_t, u_t) in enumerate(zip(steps, u_steps)):
            z = rule.step(op_t, h_prev)  # (B, H) a fresh tensor
            if u_t is not None:
                z += u_t  # (B, H)
            if normalize:
                torch.linalg.vector_norm(z, dim=-1, keepdim=True, out=norms[t])  # (B, 1)
                torch.div(z, norms[t], out=h[t])  # (B, H)
            else:
                h[t].copy_(z)  # (B, H)
            h_prev = h[t]  # (B, H)
        ctx.rule_cls, ctx.normalize = rule_cls, normalize
        ctx.save_for_backward(tok, h0, u, h, norms, *params)
        # h_last is a copy, not a view of h, so its gradient does not pass through a full-size zero tensor.
        return h.transpose(0, 1), h_prev.clone()  # (B, T, H), (B, H)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_h: Tensor, grad_last: Tensor):
        tok, h0, u, h, norms, *params = ctx.saved_tensors
        _, _, _, need_h0, need_u, *need_params = ctx.needs_input_grad
        T, B, H = h.shape
        rule = ctx.rule_cls(*params, batch=B)
        steps = rule.steps(tok)  # T per-step operands
        grad_h = grad_h.transpose(0, 1)  # (T, B, H)
        dz = torch.empty_like(h)  # (T, B, H) dL/dz_t, z_t the pre-norm state
        g = grad_h[T - 1] + grad_last  # (B, H) dL/dh_T
        for t in range(T - 1, -1, -1):
            if ctx.normalize:
                radial = (h[t] * g).sum(-1, keepdim=True)  # (B, 1) h_tᵀ g
                torch.div(torch.addcmul(g, h[t], radial, value=-1), norms[t], out=dz[t])  # (B, H)
            else:
                dz[t].copy_(g)  # (B, H)
            g = rule.step_T(steps[t], dz[t])  # (B, H) A_tᵀ dz_t
            if t > 0:
                g += grad_h[t - 1]  # (B, H) dL/dh_{t−1}
        tok_flat = tok.view(T * B)  # (T·B,)
        dz_flat = dz.view(T * B, H)  # (T·B, H)
        if any(need_params):
            h_prev = torch.cat((h0.unsqueeze(0), h[:-1]), dim=0).view(T * B, H)  # (T·B, H)
            grad_params = rule.grads(tok_flat, h_prev, dz_flat, tuple(need_params))
        else:
            grad_params = (None,) * len(params)
        grad_u = torch.zeros_like(u).index_add_(0, tok_flat, dz_flat) if need_u else None  # (V, H)
        return (None, None, None, g if need_h0 else None, grad_u, *grad_params)


def _check(tokens: Tensor, h0: Tensor) -> None:
    if tokens.dim() != 2 or h0.dim() != 2 or tokens.shape[0] != h0.shape[0]:
        raise ValueError(f"expected tokens (B, T) and h0 (B, H), got {tuple(tokens.shape)} and {tuple(h0.shape)}")
    if tokens.shape[1] == 0:
        raise ValueError("expected at least one step (T >= 1)")


def _run(rule_cls, params: tuple[Tensor, ...], tokens: Tensor, h0: Tensor, u: Tensor | None, normalize: bool):
    _check(tokens, h0)
    with torch.autocast(device_type=h0.device.type, enabled=False):
        return _BilinearRecurrence.apply(rule_cls, bool(normalize), tokens, h0, u, *params)


def bilinear_dense(
    A: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = A_{x_t} h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize; fast path of ``bilinear_dense_sequential``.

    Same contract. A graph-free loop with a hand-written backward (``_BilinearRecurrence``); dA is
    one batched GEMM over all B·T steps at the end. Not twice differentiable.

    Used in: the ``bilinear`` model (variant "full"), bl1–bl8.
    """
    # dA comes back as (V, 1, H, H) through the unsqueeze, which autograd folds into (V, H, H).
    return _run(_BlockRule, (A.unsqueeze(1),), tokens, h0, u, normalize)


def bilinear_block(
    A: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = blockdiag(A_{x_t,k}) h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize; fast ``bilinear_block_sequential``.

    Same contract (A: (V, H/b, b, b)). Gather + batched matmul per step, graph-free, hand-written
    backward; dA is one batched GEMM at the end. Not twice differentiable.

    Why it exists though its forward is not faster on a CPU: each step is a batch of tiny b×b
    matmuls whatever the implementation (2 threads, B128 T10 H64 b4: forward 1.15 vs 0.99 ms, but
    forward+backward 3.4 vs 4.2 ms, and training always runs both); on a GPU the graph-free loop is
    the part that a CUDA graph can capture.

    Used in: the ``bilinear`` model (variant "block").
    """
    return _run(_BlockRule, (A,), tokens, h0, u, normalize)


def bilinear_cp(
    left: Tensor, scale: Tensor, right: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None,
    normalize: bool = True,
) -> tuple[Tensor, Tensor]:
    """h_t = L diag(s_{x_t}) Rᵀ h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize; fast ``bilinear_cp_sequential``.

    Same contract. Two thin GEMMs per step, graph-free, hand-written backward;
    dL and dR are one (H, B·T)·(B·T, R) GEMM each at the end. Not twice differentiable. The forward
    costs what the reference's does (the same two GEMMs); the gain is in the backward (2 threads, B128
    T10 H64 R16: forward+backward 1.2 vs 1.6 ms).

    Used in: the ``bilinear`` model (variant "cp").
    """
    return _run(_CPRule, (left, scale, right), tokens, h0, u, normalize)


def bilinear_diagonal(
    w: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = w_{x_t} ⊙ h_{t−1} (+ u_{x_t}), then h_t/‖h_t‖ if normalize; fast ``bilinear_diagonal_sequential``.

    Same contract; a graph-free loop with a hand-written backward. Not twice differentiable. The forward
    is the reference's loop (one multiply per step); the gain is in the backward (2 threads, B128 T10
    H64: forward+backward 0.68 vs 0.96 ms).

    Used in: the ``bilinear`` model (variant "diagonal").
    """
    return _run(_DiagonalRule, (w,), tokens, h0, u, normalize)


def bilinear_rotation(
    theta: Tensor, tokens: Tensor, h0: Tensor, u: Tensor | None = None, normalize: bool = True
) -> tuple[Tensor, Tensor]:
    """h_t = R(θ_{x_t}) h_{t−1} (+ u_{x_t}) per 2×2 block, then h_t/‖h_t‖ if normalize; fast rotation rule.

    Same contract. Without ``u``, angles add: ``h_t = R(Θ_t) h_0`` (divided by ‖h_0‖ when
    normalizing) with ``Θ_t = Σ_{s≤t} θ_{x_s}``. The cumulative sum runs in fp64 and is reduced mod
    2π before the cos/sin, so the fp32 state error does not grow with t (an fp32 cumsum of angles
    would lose ~1e-3 rad by t = 10⁴); autograd differentiates it. With ``u`` the closed form does not
    hold, and the graph-free loop runs instead.

    Used in: the ``bilinear`` model (variant "rotation").
    """
    if u is not None:
        return _run(_RotationRule, (theta,), tokens, h0, u, normalize)
    _check(tokens, h0)
    with torch.autocast(device_type=h0.device.type, enabled=False):
        angles = theta.to(torch.float64)[tokens].cumsum(dim=1)  # (B, T, H/2) Θ_t, fp64
        angles = torch.remainder(angles, 2 * math.pi).to(theta.dtype)  # (B, T, H/2)
        start = h0 / torch.linalg.vector_norm(h0, dim=-1, keepdim=True) if normalize else h0  # (B, H)
        x0, y0 = start.unflatten(-1, (-1, 2)).unsqueeze(1).unbind(-1)  # (B, 1, H/2) each
        c, s = torch.cos(angles), torch.sin(angles)  # (B, T, H/2) each
        h = torch.stack((c * x0 - s * y0, s * x0 + c * y0), dim=-1).flatten(-2)  # (B, T, H)
    return h, h[:, -1]  # (B, T, H), (B, H)


# ----------------------------------------------------------------------------------------------------------
# Registered pairs: input makers with values in the range the model produces
# ----------------------------------------------------------------------------------------------------------


def _common(size: dict, T: int, device, gen: torch.Generator) -> tuple[Tensor, Tensor]:
    """Tokens (B, T) and a random unit-norm h0 (B, H) in fp64."""
    B, V, H = size["B"], size["V"], size["H"]
    tokens = torch.randint(0, V, (B, T), generator=gen, device=device)  # (B, T)
    h0 = torch.randn(B, H, generator=gen, device=device, dtype=torch.float64)  # (B, H)
    return tokens, h0 / h0.norm(dim=-1, keepdim=True)


def _orthogonal(n: int, *lead: int, device, gen: torch.Generator) -> Tensor:
    """(*lead, n, n) Haar-random orthogonal matrices, fp64 (QR of a Gaussian with the sign fix)."""
    q, r = torch.linalg.qr(torch.randn(*lead, n, n, generator=gen, device=device, dtype=torch.float64))
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)  # (*lead, n, n)


# The input makers keep every transition norm-preserving (up to 1e-3), as the trained models' are on
# group tasks: rounding errors then accumulate instead of being damped, so the benchmark's precision
# table measures something (a contracting map would pull every dtype onto the same dominant direction).


def _near_unit(*shape: int, device, gen: torch.Generator) -> Tensor:
    """±(1 − 1e-3·u), u ~ U(0, 1): random signs, modulus just below 1."""
    sign = torch.randint(0, 2, shape, generator=gen, device=device).to(torch.float64) * 2 - 1
    return sign * (1 - 1e-3 * torch.rand(*shape, generator=gen, device=device, dtype=torch.float64))


def _dense_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """Haar-random orthogonal matrices per token (the ``bilinear`` model's init)."""
    V, H = size["V"], size["H"]
    A = _orthogonal(H, V, device=device, gen=gen)  # (V, H, H)
    tokens, h0 = _common(size, T, device, gen)
    return A.to(dtype), tokens, h0.to(dtype)


def _block_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    V, H, b = size["V"], size["H"], size["b"]
    A = _orthogonal(b, V, H // b, device=device, gen=gen)  # (V, H/b, b, b)
    tokens, h0 = _common(size, T, device, gen)
    return A.to(dtype), tokens, h0.to(dtype)


def _cp_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """L = R semi-orthogonal and s = ±(1 − 1e-3·u): norm-preserving on span(L) (the model's init draws
    L and R independently with s = ±U(0.5, 1); timing does not depend on the values)."""
    V, H, R = size["V"], size["H"], size["R"]
    f64 = dict(generator=gen, device=device, dtype=torch.float64)

    def semi_orthogonal() -> Tensor:  # (H, R) orthonormal columns if R <= H, else orthonormal rows
        if R <= H:
            return torch.linalg.qr(torch.randn(H, R, **f64)).Q  # (H, R)
        return torch.linalg.qr(torch.randn(R, H, **f64)).Q.T  # (H, R)

    left = semi_orthogonal()  # (H, R)
    right = left  # (H, R)
    scale = _near_unit(V, R, device=device, gen=gen)  # (V, R)
    tokens, h0 = _common(size, T, device, gen)
    return left.to(dtype), scale.to(dtype), right.to(dtype), tokens, h0.to(dtype)


def _diagonal_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    """w = ±(1 − 1e-3·u): both signs, as for parity."""
    w = _near_unit(size["V"], size["H"], device=device, gen=gen)  # (V, H)
    tokens, h0 = _common(size, T, device, gen)
    return w.to(dtype), tokens, h0.to(dtype)


def _rotation_inputs(size: dict, T: int, dtype: torch.dtype, device, gen: torch.Generator) -> tuple:
    theta = (2 * torch.rand(size["V"], size["H"] // 2, generator=gen, device=device, dtype=torch.float64) - 1) * math.pi
    tokens, h0 = _common(size, T, device, gen)
    return theta.to(dtype), tokens, h0.to(dtype)


# Sizes: "cpu" is the quick BL training step (B128, T10, H64, V = m + 1 = 26 for m = 25), "cpu_long" a
# longer sequence; "gpu" the paper's H = 256 at T = 500 with m = 50.
_SIZES = {"cpu": {"B": 128, "T": 10, "V": 26, "H": 64}, "cpu_long": {"B": 32, "T": 128, "V": 26, "H": 64},
          "gpu": {"B": 256, "T": 500, "V": 51, "H": 256}}

register_pair(OpPair(
    name="bilinear_dense", reference=bilinear_dense_sequential, fast=bilinear_dense, make_inputs=_dense_inputs,
    sizes=_SIZES,
    why="graph-free loop; all-token GEMM per step for small V; hand-written backward with one dA GEMM",
))
register_pair(OpPair(
    name="bilinear_block", reference=bilinear_block_sequential, fast=bilinear_block, make_inputs=_block_inputs,
    sizes={k: {**v, "b": 4} for k, v in _SIZES.items()},
    why="graph-free loop; hand-written backward with one batched dA GEMM",
))
register_pair(OpPair(
    name="bilinear_cp", reference=bilinear_cp_sequential, fast=bilinear_cp, make_inputs=_cp_inputs,
    sizes={k: {**v, "R": 16} for k, v in _SIZES.items()}, state_output=1,
    why="graph-free loop of two thin GEMMs; dL, dR as one GEMM each",
))
register_pair(OpPair(
    name="bilinear_diagonal", reference=bilinear_diagonal_sequential, fast=bilinear_diagonal,
    make_inputs=_diagonal_inputs, sizes=_SIZES,
    why="graph-free loop; hand-written backward; dw by one index_add",
))
register_pair(OpPair(
    name="bilinear_rotation", reference=bilinear_rotation_sequential, fast=bilinear_rotation,
    make_inputs=_rotation_inputs, sizes=_SIZES,
    why="angles add: one fp64 cumsum instead of a loop (no additive term)",
))
