"""The transition matrices a trained model actually uses, per token, and their spectra (claim x2).

Every linear RNN of the package updates its state as ``H_t = A(x_t) H_{t−1} + B(x_t)`` (NE Eq. 1; the
bilinear models as ``h_t = A(x_t) h_{t−1}``, BL §2). ``transitions(model, windows)`` reads A(x) out of
a model's **first layer** for given token windows (the last token of each window is x_t; earlier
tokens only matter through a short convolution), as independent square blocks. The model's config says
how (``transition_reader``):

| reader   | where A comes from                                      | models: blocks G × (n × n)                         |
|----------|---------------------------------------------------------|----------------------------------------------------|
| "mixer"  | the first block's ``mixer.transition_matrices(x)``        | ``mamba``: E·D·N blocks 1×1, the decays a_t (NE Eq. 2); ``deltanet``: H heads d×d, I − β_t k_t k_tᵀ; ``deltaproduct``: H heads d×d, the product of n_h such factors |
| "tokens" | the model's ``transition_blocks()``, one A per token      | ``bilinear``: "full"/"cp" 1 block H×H; "block" H/b blocks b×b; "rotation" H/2 blocks 2×2; "diagonal" H blocks 1×1 |

A plug-in (``statetrack.models.register_model``) may declare ``transition_reader`` too; one that does not
is read the way its model offers (``reader``): a first mixer with ``transition_matrices(x)`` → (B, T, G,
n, n), or a model with ``transition_matrices()`` → (V, H, H), one dense block per token.

A layer above the first sees a context-dependent input, so only layer 1 has a per-token transition.
For a residual-stack model the window must cover the short convolution (``context(model)`` tokens);
a bilinear model reads one token.

``eigenvalues`` solves each block in fp64; ``readout_weights`` says, for a bilinear model, how much
each eigen-direction of A(v) contributes to the logits on the input v^k (``‖R u_i‖·|w_iᵀ h_0|`` with
A = U Λ U⁻¹, rows w_i of U⁻¹): the direction the readout actually listens to.

The tests check ``transitions`` against an independent computation: one step of the model's own
recurrence (``step``) started from unit states, minus the step from the zero state.

Used in: x2 (the eigenvalue explorer).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch
from torch import Tensor, nn


@dataclass
class Transitions:
    """A(x) of one model for a set of token windows, as independent blocks.

    Attributes:
        matrices: (W, G, n, n) real; block g of the transition applied at the last token of window w.
        windows: (W, L) token ids; row w is the context whose last token the transition reads.
        kind: the model's transition class (its config's ``transition``; "plugin" for a config without one).
    """

    matrices: Tensor
    windows: Tensor
    kind: str

    @property
    def last_token(self) -> Tensor:
        return self.windows[:, -1]  # (W,)


def reader(model: nn.Module) -> str | None:
    """How A(x) of ``model`` is read: its config's ``transition_reader`` ("mixer", "tokens" or None); a config
    that declares none (a plug-in) is read the way its model offers: "mixer" when its first block's mixer has
    ``transition_matrices``, "tokens" when the model itself has ``transition_matrices`` and no blocks."""
    cfg = model.cfg
    if hasattr(type(cfg), "transition_reader"):
        return cfg.transition_reader
    blocks = getattr(model, "blocks", None)
    mixer = getattr(blocks[0], "mixer", None) if blocks is not None and len(blocks) else None
    if mixer is not None and callable(getattr(mixer, "transition_matrices", None)) and hasattr(model, "embed"):
        return "mixer"
    if callable(getattr(model, "transition_matrices", None)) and blocks is None:
        return "tokens"
    return None


def context(model: nn.Module) -> int:
    """How many tokens decide the first layer's A(x_t): the short convolution's width (1 without one, and 1 for a
    model read per token)."""
    if reader(model) == "tokens":
        return 1
    return max(getattr(model.cfg, "d_conv", 0), 1)


def all_windows(model: nn.Module, tokens: list[int] | range) -> Tensor:
    """Every window of ``context(model)`` tokens drawn from ``tokens`` (W, L), lexicographic, last token varying fastest."""
    L = context(model)
    return torch.tensor(list(itertools.product(list(tokens), repeat=L)), dtype=torch.long)  # (W, L)


@torch.no_grad()
def transitions(model: nn.Module, windows: Tensor) -> Transitions:
    """The first layer's A(x) at the last token of each window (see the module docstring).

    Args:
        model: a model whose config's ``transition_reader`` is "mixer" or "tokens" (``mamba``, ``deltanet``,
            ``deltaproduct``, ``bilinear``), or a plug-in that offers ``transition_matrices`` (``reader``);
            eval mode is not needed: none of them has dropout.
        windows: (W, L) token ids, L ≥ ``context(model)``.
    Returns:
        ``Transitions`` with matrices (W, G, n, n) in the model's dtype, ``kind`` the config's transition class.
    """
    if windows.dim() != 2 or windows.shape[1] < 1:
        raise ValueError(f"windows must be (W, L) token ids with L >= 1, got shape {tuple(windows.shape)}")
    how, name = reader(model), model.cfg.name
    kind = getattr(model.cfg, "transition", None) or "plugin"
    if how == "tokens":
        blocks = getattr(model, "transition_blocks", None)
        if callable(blocks):
            A = blocks()  # (V, G, n, n)
        else:
            A = model.transition_matrices()  # (V, H, H)
            if A.dim() != 3 or A.shape[-1] != A.shape[-2]:
                raise ValueError(f"model {name!r}: transition_matrices() gave shape {tuple(A.shape)}; "
                                 "allowed: (V, H, H)")
            A = A.unsqueeze(1)  # (V, 1, H, H)
        return Transitions(A[windows[:, -1]], windows, kind)  # (W, G, n, n)
    if how != "mixer":
        raise ValueError(f"model {name!r} has no linear transition to read; allowed: a model whose config's "
                         "transition_reader is 'mixer' or 'tokens' (mamba, deltanet, deltaproduct, bilinear), or "
                         "one that exposes transition_matrices as they do (see reader)")
    if windows.shape[1] < context(model):
        raise ValueError(f"windows of length {windows.shape[1]} are shorter than the short convolution "
                         f"({context(model)} tokens): A(x_t) would depend on tokens outside the window")
    block = model.blocks[0]
    x = block.norm1(model.embed(windows))  # (W, L, D) the first mixer's input
    A = block.mixer.transition_matrices(x)  # (W, L, G, n, n)
    if A.dim() != 5 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"model {name!r}: mixer.transition_matrices gave shape {tuple(A.shape)}; "
                         "allowed: (B, T, G, n, n)")
    return Transitions(A[:, -1], windows, kind)  # (W, G, n, n)


def eigenvalues(tr: Transitions) -> Tensor:
    """Eigenvalues of every block, solved in fp64: (W, G, n) complex128."""
    return torch.linalg.eigvals(tr.matrices.double())  # (W, G, n)


@torch.no_grad()
def readout_weights(model: nn.Module, tr: Transitions) -> tuple[Tensor, Tensor]:
    """For a bilinear model: each eigenvalue of A(v) and the weight of its direction in the logits on v^k.

    With A = U Λ U⁻¹ (the whole H×H matrix, blocks put back on the diagonal), the logits after k copies
    of v are ``R A^k h_0 = Σ_i λ_i^k (R u_i)(w_iᵀ h_0)``; direction i weighs ``‖R u_i‖ · |w_iᵀ h_0|``
    (invariant to how U's columns are scaled). Returns (eigenvalues (W, H) complex128, weights (W, H)).
    """
    if model.cfg.name != "bilinear":
        raise ValueError(f"readout_weights needs a bilinear model (a linear readout of the state), got {model.cfg.name!r}")
    blocks = tr.matrices.double()  # (W, G, n, n)
    W, G, n, _ = blocks.shape
    dense = torch.zeros(W, G * n, G * n, dtype=torch.float64)  # (W, H, H)
    for g in range(G):
        dense[:, g * n:(g + 1) * n, g * n:(g + 1) * n] = blocks[:, g]
    lam, U = torch.linalg.eig(dense)  # (W, H), (W, H, H)
    coef = torch.linalg.solve(U, model.start(1)[0].double().to(U.dtype).expand(W, -1))  # (W, H) U⁻¹ h_0
    R = model.head.weight.double().to(U.dtype)  # (K, H)
    weight = torch.linalg.vector_norm(R @ U, dim=-2) * coef.abs()  # (W, H)
    return lam, weight


def angle_to_roots(lam: Tensor, m: int) -> tuple[Tensor, Tensor]:
    """For complex ``lam``: the nearest multiple j·2π/m of its angle (j in 0..m−1) and the angular distance to it.

    Returns (j (long), distance in radians), both shaped like ``lam``.
    """
    step = 2 * torch.pi / m
    theta = torch.angle(lam) % (2 * torch.pi)
    j = torch.round(theta / step)
    return (j.long() % m), (theta - j * step).abs()


@dataclass
class Flip:
    """The state direction that best implements parity's automaton, A("1") = −1 and A("0") = +1 (NE Thm 1, 3).

    Attributes:
        group: the block g (a Mamba channel, a DeltaNet head) the direction lives in.
        flip: the eigenvalue of A_g("1") nearest −1, worst (farthest from −1) over the windows ending in "1".
        hold: uᵀ A_g("0") u for that eigenvector u (unit), worst (farthest from +1) over every pair of a
            window ending in "1" (which gives u) and one ending in "0".
        score: max(|flip + 1|, |hold − 1|); 0 for an exact parity automaton.
    """

    group: int
    flip: float
    hold: float
    score: float


def flip_direction(tr: Transitions, flip_token: int = 1, hold_token: int = 0) -> Flip:
    """Search every block for the direction that ``flip_token`` reflects (eigenvalue −1) and ``hold_token`` keeps (+1).

    For each block g and each window ending in ``flip_token``, take the real eigenvalue of A_g nearest −1
    and its unit eigenvector u; read ``hold_token``'s transition along it as uᵀ A_g u for every window
    ending in ``hold_token``. The block with the smallest worst-case ``score`` wins. (For a Mamba channel
    u = 1, so hold is simply the channel's decay on "0"; for a DeltaNet head u is the "1" key k.)
    """
    A = tr.matrices.double()  # (W, G, n, n)
    ones, zeros = A[tr.last_token == flip_token], A[tr.last_token == hold_token]  # (W1, G, n, n), (W0, G, n, n)
    if not len(ones) or not len(zeros):
        raise ValueError(f"need windows ending in {flip_token} and in {hold_token}")
    lam, vec = torch.linalg.eig(ones)  # (W1, G, n), (W1, G, n, n)
    dist = (lam - (-1)).abs()  # (W1, G, n)
    i = dist.argmin(-1)  # (W1, G)
    flip = torch.gather(lam, -1, i.unsqueeze(-1)).squeeze(-1).real  # (W1, G)
    u = torch.gather(vec, -1, i[..., None, None].expand(*i.shape, vec.shape[-2], 1)).squeeze(-1).real  # (W1, G, n)
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)  # (W1, G, n)
    hold = torch.einsum("agi,bgij,agj->abg", u, zeros, u)  # (W1, W0, G) uᵀ A("0") u
    flip_err = (flip + 1).abs().amax(0)  # (G,)
    hold_err = (hold - 1).abs().amax((0, 1))  # (G,)
    score = torch.maximum(flip_err, hold_err)  # (G,)
    g = int(score.argmin())
    worst_flip = flip[:, g][(flip[:, g] + 1).abs().argmax()]
    worst_hold = hold[..., g].flatten()[(hold[..., g].flatten() - 1).abs().argmax()]
    return Flip(g, float(worst_flip), float(worst_hold), float(score[g]))


def leading(lam: Tensor, fraction: float = 0.9) -> Tensor:
    """Which eigenvalues lead: modulus ≥ ``fraction`` × the spectral radius of their matrix (last dim).

    With a normalized state, a direction with |λ| = 0.9 ρ weighs 0.9^T of the leading one after T steps
    of that token (1e-23 at T = 500), so only leading eigenvalues shape what the readout sees on long inputs.
    """
    mod = lam.abs()
    return mod >= fraction * mod.amax(-1, keepdim=True)
