"""BL additive-terms ablation on the frozen random diagonal network: h_t = diag(w_{x_t}) h_{t−1} + u_{x_t} (affine) against h_t = diag(w_{x_t}) h_{t−1} (pure), parity at length 400.

The pure network is BL Prop. 3's (``theory.frozen_diagonal``, reused here, not copied): unit i after
a word with n_0 zeros and n_1 ones holds w_0[i]^{n_0} w_1[i]^{n_1}, a function of the *counts* only,
and a unit whose two weights have opposite signs holds the parity in its sign. The affine network
adds a frozen random input term u_v ~ N(0, 1)^H per bit v:

    h_T = Σ_{s=1..T} (Π_{t>s} w_{x_t}) ⊙ u_{x_s} + (Π_{t≤T} w_{x_t}) ⊙ h_0,

a sum over *positions*. Its sign now depends on where the bits are, not only on how many: if
|w_v| < 1 the last few terms dominate (the unit remembers a short window), if |w_v| > 1 the first
few do. Either way the sign no longer carries the parity of the whole word, and a readout fitted
on two examples fails. BL's ablation (secondary source, unverified; book/papers.md): removing the
additive terms helps the frozen random multiplicative RNN on parity at test length 400.

Hand-worked example, H = 1, w_0 = 0.5, w_1 = −0.5, u_0 = u_1 = 1, h_0 = 1: the pure unit is
(−0.5)^{n_1}·0.5^{n_0}, negative exactly for an odd number of ones. The affine unit on "1 0" is
0.5·(−0.5·1 + 1) + 1 = 1.25 and on "0 1" is −0.5·(0.5·1 + 1) + 1 = 0.25: both positive although
each holds one 1, because the last additive term (+1) outweighs everything before it.

The affine state at T = 400 overflows fp64 for large |w| (|w|^400), so every unit is kept as g·e^L
(``affine_sign``): each step forms g ← w·g + u·e^{−L}, and every ``RESCALE_EVERY`` steps g is
divided by max(|g|, 1) and L grows by its log. Rescaling by a positive number never changes a
sign, and the additive term is carried at the matching scale, so the sign is exact up to fp64
rounding of the sums (checked against exact rational arithmetic in the tests).

Used in: bl6 (claims/bl6/claim.py, notebooks/bl6_additive_terms.md), tests/test_theory_additive_terms.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from statetrack.tasks import make_task, task_config
from statetrack.theory import frozen_diagonal as fd

RESCALE_EVERY = 32  # steps between rescalings of the affine state (module docstring)


def draw_additive(num_draws: int, H: int, seed: int) -> torch.Tensor:
    """Frozen input terms u[n, v] ~ N(0, 1)^H for the bits v = 0, 1 of every draw n: (N, 2, H) fp64.

    Drawn from its own generator (seed + 1), so the transitions w of ``frozen_diagonal.draw_weights(N, H,
    seed)`` are the same with and without additive terms: the ablation changes one thing.
    """
    if num_draws < 1 or H < 1:
        raise ValueError(f"num_draws={num_draws!r}, H={H!r}: both must be >= 1")
    return torch.randn(num_draws, 2, H, generator=torch.Generator().manual_seed(seed + 1), dtype=torch.float64)


def affine_sign(w: torch.Tensor, u: torch.Tensor, bits: torch.Tensor) -> torch.Tensor:
    """sign(h_T) of h_t = w_{x_t} ⊙ h_{t−1} + u_{x_t} from h_0 = 1, for every draw and word: (N, S, H) fp64.

    Args:
        w: (N, 2, H) frozen transitions.
        u: (N, 2, H) frozen additive terms.
        bits: (S, T) words of 0/1.
    """
    fd._check_bits(bits)
    if w.shape != u.shape or w.dim() != 3 or w.shape[1] != 2:
        raise ValueError(f"w {tuple(w.shape)} and u {tuple(u.shape)} are not allowed: expected two (N, 2, H) tensors")
    N, _, H = w.shape
    S = bits.shape[0]
    g = torch.ones(N, S, H, dtype=w.dtype)  # (N, S, H) h = g·e^L
    L = torch.zeros(N, S, H, dtype=w.dtype)  # (N, S, H) L >= 0
    inv = torch.ones(N, S, H, dtype=w.dtype)  # (N, S, H) e^{−L}
    w0, w1, u0, u1 = w[:, None, 0], w[:, None, 1], u[:, None, 0], u[:, None, 1]  # (N, 1, H) each
    for t in range(bits.shape[1]):
        one = bits[None, :, t, None].bool()  # (1, S, 1)
        g = torch.where(one, w1, w0) * g + torch.where(one, u1, u0) * inv  # (N, S, H)
        if (t + 1) % RESCALE_EVERY == 0:  # |w|^32 stays far inside fp64's range for any N(0, 1) draw
            scale = g.abs().clamp_min(1.0)  # (N, S, H) only shrink, so e^{−L} <= 1 never overflows
            g, L = g / scale, L + scale.log()
            inv = torch.exp(-L)
    return torch.sign(g)


def pure_sign(w: torch.Tensor, bits: torch.Tensor) -> torch.Tensor:
    """sign(h_T) of the pure network (``frozen_diagonal.log_state``): (N, S, H) fp64."""
    return fd.log_state(w, bits)[0]


@dataclass
class AblationRow:
    """One hidden size: success over ``num_draws`` draws of the pure and the affine frozen network."""

    H: int
    num_draws: int
    test_len: int
    pure: float  # fraction of draws whose test accuracy is >= the threshold
    affine: float
    pure_acc: float  # mean test accuracy over draws
    affine_acc: float
    predicted_pure: float  # 1 − 2^{−H} (frozen_diagonal.predicted_rate)

    def row(self) -> dict:
        return {"H": self.H, "draws": self.num_draws, "test length": self.test_len, "pure success": self.pure,
                "affine success": self.affine, "pure mean acc": self.pure_acc, "affine mean acc": self.affine_acc,
                "predicted (pure)": self.predicted_pure}


def ablation(hs: Sequence[int], num_draws: int, test_len: int = 400, train_words: Sequence[str] = ("00", "01"),
             num_test: int = 256, seed: int = 0, threshold: float = 0.99) -> list[AblationRow]:
    """Pure versus affine frozen diagonal network on parity: a sign readout fitted on two words, tested at ``test_len``.

    The same w for both (``frozen_diagonal.draw_weights``), u from ``draw_additive``; the readout is
    ``frozen_diagonal.fit_readout`` on sign(h_T) of the two training words; test labels come from the
    parity task's own generator.
    """
    if len(train_words) != 2 or len({len(x) for x in train_words}) != 1 or any(set(x) - {"0", "1"}
                                                                                for x in train_words):
        raise ValueError(f"train_words={train_words!r} is not allowed: two bit strings of one length")
    if test_len < 1:
        raise ValueError(f"test_len={test_len!r} is not allowed: it must be >= 1")
    train = torch.tensor([[int(c) for c in x] for x in train_words])  # (2, L)
    labels = train.sum(1) % 2  # (2,)
    if set(labels.tolist()) != {0, 1}:
        raise ValueError(f"train_words={train_words!r} is not allowed: one must be even and one odd")
    task = make_task(task_config("parity"))
    test = task.sample(torch.Generator().manual_seed(seed + 1), num_test, test_len)
    truth = test.targets[:, -1]  # (S,)
    rows = []
    for H in hs:
        w = fd.draw_weights(num_draws, H, seed=seed * 10_007 + H)  # (N, 2, H)
        u = draw_additive(num_draws, H, seed=seed * 10_007 + H)  # (N, 2, H)
        out = {}
        for name, sign in (("pure", lambda b: pure_sign(w, b)), ("affine", lambda b: affine_sign(w, u, b))):
            weights, bias = fd.fit_readout(sign(train), labels)
            acc = (fd.predict(sign(test.inputs), weights, bias) == truth).double().mean(1)  # (N,)
            out[name] = ((acc >= threshold).double().mean().item(), acc.mean().item())
        rows.append(AblationRow(H, num_draws, test_len, out["pure"][0], out["affine"][0], out["pure"][1],
                                out["affine"][1], fd.predicted_rate(H, train_words, test_len)))
    return rows


__all__ = ["AblationRow", "ablation", "affine_sign", "draw_additive", "pure_sign"]
