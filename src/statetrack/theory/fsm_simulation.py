"""BL Prop. 1: a full bilinear RNN with W[:, :, σ] = T_σ (one-hot transitions) and h_0 = e_{q0} simulates any FSM.

The construction, run through the package's own ``bilinear`` model (variant "full", one-hot input):
letter σ's matrix A(e_σ) = W[:, :, σ] is the machine's transition matrix T_σ, a 0/1 matrix with one
1 per column, ``(T_σ)[q', q] = 1 iff δ(q, σ) = q'``. Then T_σ e_q = e_{δ(q, σ)}, so from h_0 = e_{q0}
every state is the one-hot code of the machine's state, and an identity head reads it out.

Hand-worked example (the fsm task's docstring machine: 3 states, letters 0 and 1)::

    δ        state:     0  1  2          T_0 = [[0 0 1]     T_1 = [[1 1 0]
             letter 0:  1  2  0                 [1 0 0]            [0 0 0]
             letter 1:  0  0  2                 [0 1 0]]           [0 0 1]]

    letters    0        0        1        0        0
    h_t      e_1      e_2      e_2      e_0      e_1        (h_0 = e_0; argmax = the state 1 2 2 0 1)

Every entry of every state is 0 or 1, so the fp32 recurrence is exact at any length: nothing
drifts. Normalizing ("every_step") divides a one-hot vector by 1, so it changes nothing either.

**Scale invariance.** Without additive terms the update is linear in h, so h_0 → c·h_0 (c > 0)
scales every later state by c and a bias-free head's argmax is unchanged: normalizing the state
(any positive rescaling at any step) changes no prediction. The additive variant
h_t = A(x_t) h_{t−1} + B x_t + b is affine, not linear, and scaling the state *does* change
predictions. Smallest case: 2 states, one letter with A = I, B = 0, b = (0, 1), h_0 = c·e_0: then
h_1 = (c, 1), whose argmax is state 0 if c > 1 and state 1 if c < 1 (``additive_scale_example``).

Ground truth is always the fsm task's own labels (``tasks.fsm.walk`` through ``Task.sample``), never
the model's output.

Used in: bl1 (claims/bl1/claim.py, notebooks/bl1_bilinear_simulates_any_fsm.md), tests/test_bilinear.py,
tests/test_theory_fsm_simulation.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.tasks.base import Task


def transition_matrices(table: torch.Tensor) -> torch.Tensor:
    """T_σ for every letter σ, stacked as the model's ``transition`` (letter first): (k, m, m).

    Args:
        table: (m, k) next-state table, ``table[q, σ] = δ(q, σ)`` (as ``tasks.fsm.random_table`` draws it).
    Returns:
        (k, m, m) float tensor with ``T[σ, δ(q, σ), q] = 1`` and 0 elsewhere.
    """
    if table.dim() != 2 or table.dtype != torch.long:
        raise ValueError(f"table of shape {tuple(table.shape)} and dtype {table.dtype} is not allowed: "
                         "expected an (m, k) LongTensor of next states")
    m, k = table.shape
    if table.numel() and (int(table.min()) < 0 or int(table.max()) >= m):
        raise ValueError(f"table entries must lie in [0, {m - 1}] (the states); found "
                         f"{int(table.min())}..{int(table.max())}")
    T = torch.zeros(k, m, m)  # (k, m, m)
    cols = torch.arange(m).repeat(k)  # (k·m,) q
    letters = torch.arange(k).repeat_interleave(m)  # (k·m,) σ
    T[letters, table.T.reshape(-1), cols] = 1.0  # (T_σ)[δ(q, σ), q] = 1
    return T


def fsm_bilinear(table: torch.Tensor, start: int = 0, normalize: str = "every_step", backend: str = "fast",
                 additive: bool = False) -> nn.Module:
    """The package's ``bilinear`` model (full, one-hot input, H = m) set by hand to simulate the machine.

    ``transition[σ] = T_σ`` for the letters, the identity for the padding token (id k); ``h0 = e_start``;
    ``head = I`` (class q ↔ state q). With ``additive=True`` the model's B x + b is present and zero
    (set it by hand to probe the affine case).

    Args:
        table: (m, k) next-state table.
        start: q0.
        normalize, backend: the model's fields ("every_step" / "none" / "inference"; "fast" / "reference").
    Returns:
        A ``BilinearRNN`` in eval mode, vocab k + 1, K = m classes.
    """
    T = transition_matrices(table)  # (k, m, m)
    k, m, _ = T.shape
    if not 0 <= start < m:
        raise ValueError(f"start={start!r} is not allowed: it must be a state in [0, {m - 1}]")
    cfg = model_config("bilinear", d_model=m, variant="full", input="onehot", normalize=normalize,
                       backend=backend, additive=additive)
    model = make_model(cfg, k + 1, m)
    with torch.no_grad():
        model.transition.copy_(torch.cat([T, torch.eye(m)[None]]))  # (k+1, m, m): the padding token keeps h
        model.h0.copy_(torch.eye(m)[start])  # (m,) e_{q0}; the model uses h0/‖h0‖ = h0
        model.head.weight.copy_(torch.eye(m))  # (K, H) = I
        if additive:
            model.in_proj.weight.zero_()
            model.in_proj.bias.zero_()
    return model.eval()


@dataclass
class Tracking:
    """One machine's construction checked against the task's labels."""

    num_states: int
    alphabet_size: int
    num_permutation_letters: int
    table_seed: int
    num_seqs: int
    length: int
    acc: dict[str, float]  # normalize mode → fraction of (sequence, step) predictions equal to the label
    one_hot: dict[str, bool]  # normalize mode → every state is exactly the one-hot code of the label
    identical: bool  # the modes' predictions are identical at every position

    def row(self) -> dict:
        return {"states": self.num_states, "letters": self.alphabet_size, "permutation letters":
                self.num_permutation_letters, "table seed": self.table_seed, "sequences": self.num_seqs,
                "length": self.length, **{f"acc ({k})": v for k, v in self.acc.items()},
                **{f"one-hot ({k})": v for k, v in self.one_hot.items()}, "identical predictions": self.identical}


def track(task: Task, num_seqs: int, length: int, seed: int,
          modes: tuple[str, ...] = ("every_step", "none")) -> Tracking:
    """Run the construction for the fsm ``task`` on ``num_seqs`` random words of ``length`` letters.

    The words and their labels come from ``task.sample`` (labels = ``tasks.fsm.walk`` from state 0).
    """
    if length < 1 or num_seqs < 1:
        raise ValueError(f"num_seqs={num_seqs!r}, length={length!r}: both must be >= 1")
    batch = task.sample(torch.Generator().manual_seed(seed), num_seqs, length)
    truth = batch.targets  # (B, T)
    m = task.num_classes
    acc, one_hot, preds = {}, {}, {}
    for mode in modes:
        model = fsm_bilinear(task.table, normalize=mode)
        with torch.no_grad():
            h = model.states(batch.inputs)  # (B, T, H)
            preds[mode] = model.head(h).argmax(-1)  # (B, T)
        acc[mode] = (preds[mode] == truth).float().mean().item()
        one_hot[mode] = bool(torch.equal(h, nn.functional.one_hot(truth, m).to(h.dtype)))
    first = preds[modes[0]]
    identical = all(torch.equal(first, p) for p in preds.values())
    c = task.cfg
    return Tracking(c.num_states, c.alphabet_size, c.num_permutation_letters, c.table_seed, num_seqs, length, acc,
                    one_hot, identical)


def random_machines(count: int, seed: int, states: tuple[int, int] = (5, 50),
                    letters: tuple[int, int] = (2, 10)) -> list[Task]:
    """``count`` fsm tasks with sizes drawn uniformly: |Q| in ``states``, |Σ| in ``letters`` (inclusive).

    Every other machine (odd index) has permutation letters, 1..k of them drawn uniformly; the
    even-indexed ones are uniform random tables (no permutation letter).
    """
    if count < 1:
        raise ValueError(f"count={count!r} is not allowed: it must be >= 1")
    gen = torch.Generator().manual_seed(seed)
    out = []
    for i in range(count):
        m = int(torch.randint(states[0], states[1] + 1, (1,), generator=gen))
        k = int(torch.randint(letters[0], letters[1] + 1, (1,), generator=gen))
        p = int(torch.randint(1, k + 1, (1,), generator=gen)) if i % 2 else 0
        out.append(make_task(task_config("fsm", num_states=m, alphabet_size=k, num_permutation_letters=p,
                                         table_seed=seed * 1000 + i)))
    return out


def scale_changes(model: nn.Module, tokens: torch.Tensor, scales: list[float]) -> list[float]:
    """Fraction of positions whose prediction changes when h_0 is multiplied by c, for each c in ``scales``.

    Args:
        model: a ``bilinear`` model (its learned h_0, as a unit vector, is the reference start).
        tokens: (B, T) token ids.
    Returns:
        One fraction per scale, in [0, 1]; 0 means scaling the state changes no prediction.
    """
    h0 = model.start(1)[0].detach()  # (H,) unit norm
    with torch.no_grad():
        base = model.head(model.states(tokens, h0)).argmax(-1)  # (B, T)
        return [(model.head(model.states(tokens, c * h0)).argmax(-1) != base).float().mean().item()
                for c in scales]


def additive_scale_example(c: float) -> int:
    """The module docstring's smallest affine case: the state predicted after one letter from h_0 = c·e_0.

    2 states, one letter with A = I, B = 0, b = (0, 1), normalize "none": h_1 = (c, 1), so the answer is
    0 for c > 1 and 1 for c < 1. The pure model (b = 0) answers 0 for every c > 0.
    """
    table = torch.tensor([[0], [1]])  # (m=2, k=1): the letter keeps the state
    model = fsm_bilinear(table, normalize="none", additive=True)
    with torch.no_grad():
        model.in_proj.bias.copy_(torch.tensor([0.0, 1.0]))
        h = model.states(torch.zeros(1, 1, dtype=torch.long), c * torch.eye(2)[0])  # (1, 1, H)
        return int(model.head(h).argmax(-1))


def perturbed_additive(model: nn.Module, seed: int, scale: float = 0.3) -> nn.Module:
    """A copy of an additive ``fsm_bilinear`` model with B and b drawn N(0, scale²) (a concrete affine case)."""
    import copy

    out = copy.deepcopy(model)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        out.in_proj.weight.copy_(scale * torch.randn(out.in_proj.weight.shape, generator=gen))  # (H, D)
        out.in_proj.bias.copy_(scale * torch.randn(out.in_proj.bias.shape, generator=gen))  # (H,)
    return out


def synchronised_fraction(table: torch.Tensor, words: torch.Tensor, windows: list[int]) -> list[float]:
    """Fraction of ``words`` whose last w letters send every start state to one state, for each w.

    A machine that synchronises forgets its past: a model with roughly right local dynamics
    re-synchronises and its errors do not persist. A machine whose letters are
    all permutations never synchronises (every fraction 0), so errors cannot wash out.

    Args:
        table: (m, k) next-state table.
        words: (B, T) letters.
        windows: window lengths w, each in [1, T].
    Returns:
        One fraction per window.
    """
    m = table.shape[0]
    T = words.shape[1]
    out = []
    for w in windows:
        if not 1 <= w <= T:
            raise ValueError(f"window w={w!r} is not allowed: it must lie in [1, T={T}]")
        state = torch.arange(m).expand(words.shape[0], m).clone()  # (B, m): every start state at once
        for t in range(T - w, T):
            state = table[state, words[:, t, None].expand(-1, m)]  # (B, m)
        out.append((state == state[:, :1]).all(1).float().mean().item())
    return out


__all__ = ["Tracking", "additive_scale_example", "fsm_bilinear", "perturbed_additive", "random_machines",
           "scale_changes", "synchronised_fraction", "track", "transition_matrices"]
