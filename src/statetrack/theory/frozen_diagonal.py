"""BL Prop. 3: a frozen random real-diagonal RNN h_t = diag(w_{x_t}) h_{t−1} with a trained linear readout learns parity from two examples.

The network: w_0, w_1 ~ N(0, 1)^H drawn once and frozen, h_0 = 1 (all ones). After a word with n_0
zeros and n_1 ones, unit i holds h_T[i] = w_0[i]^{n_0} · w_1[i]^{n_1} (diagonal transitions commute, so
only the counts matter). At T = 500 that overflows or underflows any float, so h_T is kept in log
space: sign(h_T[i]) = s_0[i]^{n_0} s_1[i]^{n_1} with s_v = sign(w_v), and log|h_T[i]| = n_0 log|w_0[i]| +
n_1 log|w_1[i]|. The readout is a logistic regression (LBFGS, L2 on the weights, free bias) on
sign(h_T), trained on two words only.

**Why it works, and the success probability.** A unit is *informative* when its two signs differ:
type A (s_0, s_1) = (+, −) holds (−1)^{n_1}, the parity itself; type B (−, +) holds (−1)^{n_0} =
(−1)^T (−1)^{n_1}, the parity up to the length's parity. A unit with equal signs holds s^T, the same
for every word of one length. Train on '00' → 0 and '01' → 1 (length 2, even) and test at an even T:
both types then show exactly the feature of '00' on even words and of '01' on odd ones, and the
uninformative units show +1 as in training, so every test word looks like one of the two training
words and is classified right as soon as the two training words differ in some unit, i.e. some unit
is informative. With independent symmetric weights P(s_0 = s_1) = 1/2 per unit, so

    P(success) = 1 − P(no informative unit) = 1 − 2^{−H},

which is the rate the secondary source states for BL (unverified). Worked example, H = 2:
w_0 = (0.7, −1.2), w_1 = (−0.4, −0.3): unit 0 is type A, unit 1 is not informative; the training
features are (+1, +1) for '00' and (−1, +1) for '01'; any even-length word with an odd number of
ones has features (−1, +1) and is called odd. Success.

**The length-parity trap.** Train on '0' → 0, '1' → 1 (length 1, odd) and test at an even T: type-B
units now show the *opposite* feature (their training values were s_0 = −1 for '0', +1 for '1';
at even T they show (−1)^{n_1}, i.e. +1 for an even word), and an uninformative unit with s = −1
shows −1 in training and +1 at even T. By symmetry the fitted readout weighs A and B units equally
and opposite, so a draw succeeds exactly when #A > #B: P(success) = Σ_{a > b} H!/(a! b! (H−a−b)!)
4^{−a−b} 2^{−(H−a−b)}, which stays below 1/2 for every H. Tested at an odd T (501) the same pair
works again with 1 − 2^{−H}. With two examples nothing can tell the parity of the ones from the
parity of the length.

**Normalized features fail.** h_T/‖h_T‖ at T = 500 is dominated by the unit with the largest
n_0 log|w_0| + n_1 log|w_1|, a single (mostly fixed) coordinate whatever H is, so the readout sees
one unit at best; its success does not grow with H.

Used in: bl8 (claims/bl8/claim.py, notebooks/bl8_frozen_random_diagonal_parity.md), tests/test_bilinear.py
(``sign_flip_parity``), tests/test_theory_frozen_diagonal.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config

FEATURES = ("sign", "normalized")


def draw_weights(num_draws: int, H: int, seed: int) -> torch.Tensor:
    """Frozen transitions: w[n, v] ~ N(0, 1)^H for the bits v = 0, 1 of every draw n; (N, 2, H) fp64."""
    if num_draws < 1 or H < 1:
        raise ValueError(f"num_draws={num_draws!r}, H={H!r}: both must be >= 1")
    return torch.randn(num_draws, 2, H, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _check_bits(bits: torch.Tensor) -> None:
    if bits.dim() != 2 or bits.dtype != torch.long or bits.numel() == 0:
        raise ValueError(f"bits of shape {tuple(bits.shape)} and dtype {bits.dtype} are not allowed: "
                         "expected a non-empty (S, T) LongTensor")
    if int(bits.min()) < 0 or int(bits.max()) > 1:
        raise ValueError(f"bits must be 0 or 1; found values {int(bits.min())}..{int(bits.max())}")


def log_state(w: torch.Tensor, bits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """h_T of every draw on every word, as (sign, log|h_T|), from h_0 = 1.

    log|h_T| = Σ_t log|w_{x_t}| and sign(h_T) = Π_t sign(w_{x_t}); the sums over t reduce to the counts
    of each bit (diagonal transitions commute), which is exact in integers for the sign.

    Args:
        w: (N, 2, H) frozen transitions.
        bits: (S, T) words of 0/1.
    Returns:
        sign (N, S, H) in {−1, +1} (fp64) and log|h_T| (N, S, H) fp64.
    """
    _check_bits(bits)
    ones = bits.sum(1)  # (S,) n_1
    counts = torch.stack([bits.shape[1] - ones, ones], dim=1).to(w.dtype)  # (S, 2) n_0, n_1
    logabs = torch.einsum("sv,nvh->nsh", counts, w.abs().log())  # (N, S, H)
    negatives = torch.einsum("sv,nvh->nsh", counts, (w < 0).to(w.dtype))  # (N, S, H) integer-valued
    sign = 1.0 - 2.0 * torch.remainder(negatives.round(), 2)  # (N, S, H)
    return sign, logabs


def features(sign: torch.Tensor, logabs: torch.Tensor, kind: str) -> torch.Tensor:
    """Readout features: "sign" → sign(h_T); "normalized" → h_T/‖h_T‖ (computed stably from log space).

    Returns:
        (N, S, H) fp64.
    """
    if kind == "sign":
        return sign
    if kind == "normalized":
        scaled = sign * torch.exp(logabs - logabs.amax(-1, keepdim=True))  # (N, S, H) largest |.| is 1
        return scaled / torch.linalg.vector_norm(scaled, dim=-1, keepdim=True)  # (N, S, H)
    raise ValueError(f"unknown feature kind {kind!r}; allowed: {', '.join(FEATURES)}")


def fit_readout(x: torch.Tensor, y: torch.Tensor, l2: float = 1e-3, max_iter: int = 200) -> tuple[torch.Tensor, torch.Tensor]:
    """Logistic regression per draw (LBFGS; L2 ``l2``·‖v‖²/2 on the weights, bias unpenalized).

    All draws are fitted at once: their losses are summed, and since the problems share no parameter
    the sum's minimiser is every draw's own minimiser.

    Args:
        x: (N, S, H) training features of every draw (S = 2 here).
        y: (S,) labels in {0, 1}.
    Returns:
        weights (N, H) and bias (N,).
    """
    if l2 <= 0:
        raise ValueError(f"l2={l2!r} is not allowed: it must be > 0 (two examples are separable)")
    N, _, H = x.shape
    params = torch.zeros(N, H + 1, dtype=x.dtype, requires_grad=True)  # (N, H+1): weights, bias
    target = y.to(x.dtype).expand(N, -1)  # (N, S)
    opt = torch.optim.LBFGS([params], lr=1.0, max_iter=max_iter, tolerance_grad=1e-12, tolerance_change=1e-15,
                            history_size=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        logits = torch.einsum("nsh,nh->ns", x, params[:, :H]) + params[:, H:]  # (N, S)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none").mean(1).sum()
        loss = loss + 0.5 * l2 * params[:, :H].square().sum()
        loss.backward()
        return loss

    opt.step(closure)
    return params[:, :H].detach(), params[:, H].detach()


def predict(x: torch.Tensor, weights: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Class 1 (odd) where the logit is > 0: x (N, S, H) → (N, S) long."""
    return ((torch.einsum("nsh,nh->ns", x, weights) + bias[:, None]) > 0).long()


def unit_types(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per draw, the number of type-A units (w_0 > 0 > w_1) and type-B units (w_0 < 0 < w_1): (N,), (N,)."""
    a = ((w[:, 0] > 0) & (w[:, 1] < 0)).sum(-1)  # (N,)
    b = ((w[:, 0] < 0) & (w[:, 1] > 0)).sum(-1)  # (N,)
    return a, b


def matched(train_words: Sequence[str], test_len: int) -> bool:
    """Whether the training words' length has the parity of the test length (where 1 − 2^{−H} holds)."""
    return len(train_words[0]) % 2 == test_len % 2


def predicted_rate(H: int, train_words: Sequence[str], test_len: int) -> float:
    """The success probability the proof gives for sign features (module docstring).

    Matched length parity: 1 − 2^{−H}. Mismatched: P(#A > #B) with (#A, #B, rest) ~ Multinomial(H; ¼, ¼, ½).
    """
    if matched(train_words, test_len):
        return 1.0 - 2.0 ** -H
    return sum(math.comb(H, a) * math.comb(H - a, b) * 0.25 ** (a + b) * 0.5 ** (H - a - b)
               for a in range(H + 1) for b in range(min(a, H - a + 1)))


def predicted_success(w: torch.Tensor, train_words: Sequence[str], test_len: int) -> torch.Tensor:
    """Per draw, whether the proof says the readout succeeds: #A + #B > 0 (matched), #A > #B (mismatched); (N,) bool."""
    a, b = unit_types(w)
    return (a + b > 0) if matched(train_words, test_len) else (a > b)


def binomial_interval(n: int, p: float, level: float = 0.999) -> tuple[int, int]:
    """The central ``level`` interval [lo, hi] of Binomial(n, p) counts (each tail ≤ (1 − level)/2)."""
    if not 0.0 <= p <= 1.0 or n < 1:
        raise ValueError(f"n={n!r}, p={p!r}: need n >= 1 and p in [0, 1]")
    if p in (0.0, 1.0):
        return (int(n * p), int(n * p))
    pmf = [math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
                    + (n - k) * math.log1p(-p)) for k in range(n + 1)]
    tail = (1.0 - level) / 2
    lo, acc = 0, 0.0
    while acc + pmf[lo] <= tail:
        acc += pmf[lo]
        lo += 1
    hi, acc = n, 0.0
    while acc + pmf[hi] <= tail:
        acc += pmf[hi]
        hi -= 1
    return lo, hi


@dataclass
class SweepRow:
    """One hidden size of one setting: measured and predicted success over ``num_draws`` draws."""

    H: int
    train_words: tuple[str, ...]
    test_len: int
    feature: str
    num_draws: int
    rate: float  # fraction of draws whose test accuracy is >= ``threshold``
    predicted: float | None  # the proof's probability (sign features only)
    interval: tuple[int, int] | None  # central 99.9% interval of the success count under ``predicted``
    agreement: float | None  # fraction of draws whose success equals the proof's per-draw predicate
    mean_acc: float  # mean test accuracy over draws

    @property
    def within(self) -> bool | None:
        if self.interval is None:
            return None
        return self.interval[0] <= round(self.rate * self.num_draws) <= self.interval[1]

    def row(self) -> dict:
        return {"H": self.H, "train": " ".join(f"'{w}'" for w in self.train_words), "test length": self.test_len,
                "features": self.feature, "draws": self.num_draws, "success": self.rate,
                "predicted": self.predicted,
                "interval": None if self.interval is None else f"{self.interval[0]}–{self.interval[1]}",
                "within": self.within, "agreement": self.agreement, "mean acc": self.mean_acc}


def sweep(hs: Sequence[int], num_draws: int, train_words: Sequence[str] = ("00", "01"), test_len: int = 500,
          feature: str = "sign", num_test: int = 256, seed: int = 0, threshold: float = 0.99,
          l2: float = 1e-3) -> list[SweepRow]:
    """Success rate of the frozen network with a two-example readout, per hidden size H.

    A draw succeeds when its test accuracy on ``num_test`` random words of ``test_len`` bits is at
    least ``threshold``. Test labels come from the parity task's own generator.

    Args:
        hs: hidden sizes.
        num_draws: independent draws of (w_0, w_1) per H.
        train_words: the two training words, labelled by their parity (one even, one odd).
        test_len: T of the test words.
        feature: "sign" or "normalized".
    """
    if len(train_words) != 2 or len({len(w) for w in train_words}) != 1 or any(set(w) - {"0", "1"}
                                                                             for w in train_words):
        raise ValueError(f"train_words={train_words!r} is not allowed: two bit strings of one length")
    train = torch.tensor([[int(c) for c in w] for w in train_words])  # (2, L)
    labels = train.sum(1) % 2  # (2,)
    if set(labels.tolist()) != {0, 1}:
        raise ValueError(f"train_words={train_words!r} is not allowed: one must be even and one odd")
    if feature not in FEATURES:
        raise ValueError(f"unknown feature kind {feature!r}; allowed: {', '.join(FEATURES)}")
    task = make_task(task_config("parity"))
    test = task.sample(torch.Generator().manual_seed(seed + 1), num_test, test_len)
    truth = test.targets[:, -1]  # (S,) the parity after the last bit
    rows = []
    for H in hs:
        w = draw_weights(num_draws, H, seed=seed * 10_007 + H)  # (N, 2, H)
        weights, bias = fit_readout(features(*log_state(w, train), feature), labels, l2=l2)
        acc = (predict(features(*log_state(w, test.inputs), feature), weights, bias) == truth).double().mean(1)  # (N,)
        ok = acc >= threshold  # (N,)
        pred = interval = agree = None
        if feature == "sign":
            pred = predicted_rate(H, train_words, test_len)
            interval = binomial_interval(num_draws, pred)
            agree = (ok == predicted_success(w, train_words, test_len)).double().mean().item()
        rows.append(SweepRow(H, tuple(train_words), test_len, feature, num_draws, ok.double().mean().item(), pred,
                             interval, agree, acc.mean().item()))
    return rows


def sign_flip_parity(H: int = 2, backend: str = "fast") -> nn.Module:
    """The deterministic cousin of the frozen net: the package's diagonal ``bilinear`` model set to solve parity.

    Unit 0 has w_0 = +1, w_1 = −1 (a type-A unit with |w| = 1, so it neither grows nor decays);
    the other units have w = 0.5 and decay away. h_0 = 1, and the head reads the sign of unit 0:
    even ↔ h[0] > 0. Exact at any length (every value is ±1 times a power of 2).

    Returns:
        A ``BilinearRNN`` (variant "diagonal", vocab 3 = bits and padding, K = 2) in eval mode.
    """
    if H < 1:
        raise ValueError(f"H={H!r} is not allowed: it must be >= 1")
    task = make_task(task_config("parity"))
    model = make_model(model_config("bilinear", d_model=H, variant="diagonal", backend=backend), task.vocab_size, 2)
    with torch.no_grad():
        rest = torch.full((H - 1,), 0.5)  # (H−1,)
        model.transition.copy_(torch.stack([torch.cat([torch.ones(1), rest]),  # bit 0
                                            torch.cat([-torch.ones(1), rest]),  # bit 1
                                            torch.ones(H)]))  # (3, H); padding keeps h
        model.h0.copy_(torch.ones(H))
        head = torch.zeros(2, H)  # (K, H)
        head[0, 0], head[1, 0] = 1.0, -1.0
        model.head.weight.copy_(head)
    return model.eval()


__all__ = ["FEATURES", "SweepRow", "binomial_interval", "draw_weights", "features", "fit_readout", "log_state",
           "matched", "predict", "predicted_rate", "predicted_success", "sign_flip_parity", "sweep", "unit_types"]
