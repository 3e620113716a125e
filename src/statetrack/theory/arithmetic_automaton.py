"""Modular arithmetic without brackets (per-step answers) is a state machine with exactly m² states; a full bilinear RNN with H = m² simulates it (BL Prop. 1 applied to BL's modular-arithmetic task).

The task (``tasks.modular.ModularArithmetic``, ``format="per_step"``): digits 0..m−1 alternate with
the operators +, −, ×; × binds first; after every digit the answer is the value mod m of the
expression so far. Keep a pair (a, c) ∈ Z_m × Z_m that means "the next digit d makes the value
a + c·d". Then every token acts on the pair by a fixed map:

    digit d :  (a, c) → (a, c·d)          the answer after it is a + c·d
    +       :  (a, c) → (a + c, 1)        close the term: the value so far becomes the new base
    −       :  (a, c) → (a + c, −1)
    ×       :  (a, c) → (a, c)            nothing to do: the next digit multiplies c
    start   :  (0, 1)

After a digit the pair is (total of the closed terms, current product term), so its answer is
a + c. Hand-worked example, m = 5, the task docstring's ``2 − 3 − 3 × 2`` (answers 2 4 1 3)::

    token    2       −       3       −       3       ×       2
    (a, c)  (0, 2)  (2, 4)  (2, 2)  (4, 4)  (4, 2)  (4, 2)  (4, 4)
    answer   2               4               1               3        (a + c mod 5)

(−1 ≡ 4 mod 5: after "− 3" the term is 4·3 ≡ 2, i.e. −3; the final × 2 doubles it to 4, i.e. −6.) So the machine has m² states, one bilinear state per pair in the
construction of ``theory.fsm_simulation`` (W[:, :, token] = the token's 0/1 transition matrix,
h_0 = e_{(0, 1)}), and the head reads a + c. Tokens the grammar never puts there (a digit after a
digit, an operator after an operator) act by the same maps; the brackets, ``=`` and padding act
as the identity.

**No machine with fewer states can do it.** After a digit every pair (t, p) is reachable (the
word "t + p" ends in (t, p)), and two different pairs are told apart by a two-token suffix: "× 0"
answers t, "+ 0" answers t + p. Any correct machine must therefore be in m² different states
after these m² words (Myhill–Nerode), so m² is the minimum: 25 at m = 5, 2,500 at m = 50. BL's
widths and grammar are unknown (book/papers.md), so whether a 64-wide bilinear model can represent
m = 50 exactly is open; a one-hot construction cannot.

Ground truth is always the task's own labels (``Task.sample``), and the tests add Python's own
evaluation of the expression string.

Used in: bl4 (claims/bl4/claim.py, notebooks/bl4_modular_arithmetic.md), tests/test_theory_arithmetic_automaton.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.tasks.base import IGNORE
from statetrack.tasks.modular import MINUS, NUM_SPECIAL, PLUS, TIMES
from statetrack.theory.fsm_simulation import transition_matrices
from statetrack.tasks.modular import _running_values


def _check_modulus(m: int) -> None:
    if not isinstance(m, int) or isinstance(m, bool) or m < 2:
        raise ValueError(f"modulus m={m!r} is not allowed: it must be an integer >= 2")


def state_id(a: int | torch.Tensor, c: int | torch.Tensor, m: int):
    """The state number of the pair (a, c): a·m + c."""
    return a * m + c


def start_state(m: int) -> int:
    """The pair (0, 1): the first digit d makes the value 0 + 1·d."""
    _check_modulus(m)
    return state_id(0, 1, m)


def arithmetic_table(m: int) -> torch.Tensor:
    """δ over the task's token ids: (m², m + 6) long, ``table[s, token]`` (module docstring's maps).

    Letters are the task's ids 0..m+5 (digits, +, −, ×, (, ), =); the padding id m + 6 is left to
    the model (identity).
    """
    _check_modulus(m)
    a = torch.arange(m).repeat_interleave(m)  # (m²,) a of state a·m + c
    c = torch.arange(m).repeat(m)  # (m²,)
    cols = [state_id(a, c * d % m, m) for d in range(m)]  # digits
    ident = state_id(a, c, m)  # (m²,)
    special = {PLUS: state_id((a + c) % m, torch.ones_like(c), m),
               MINUS: state_id((a + c) % m, torch.full_like(c, m - 1), m),
               TIMES: ident}
    cols += [special.get(i, ident) for i in range(NUM_SPECIAL - 1)]  # +, −, ×, (, ), =
    return torch.stack(cols, dim=1)  # (m², m+6)


def state_values(m: int) -> torch.Tensor:
    """The answer a + c mod m read out in each state: (m²,) long."""
    _check_modulus(m)
    return (torch.arange(m).repeat_interleave(m) + torch.arange(m).repeat(m)) % m  # (m²,)


def run_automaton(m: int, tokens: torch.Tensor) -> torch.Tensor:
    """The automaton's answer after every token: (B, T) long (read a + c after each token).

    Args:
        m: the modulus.
        tokens: (B, T) task token ids (no padding).
    """
    table = arithmetic_table(m)  # (m², m+6)
    if tokens.dim() != 2 or tokens.dtype != torch.long:
        raise ValueError(f"tokens of shape {tuple(tokens.shape)} and dtype {tokens.dtype} are not allowed: "
                         "expected a (B, T) LongTensor")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= table.shape[1]):
        raise ValueError(f"token ids must lie in [0, {table.shape[1] - 1}]; found "
                         f"{int(tokens.min())}..{int(tokens.max())}")
    state = torch.full((tokens.shape[0],), start_state(m), dtype=torch.long)  # (B,)
    out = torch.empty_like(tokens)  # (B, T)
    values = state_values(m)  # (m²,)
    for t in range(tokens.shape[1]):
        state = table[state, tokens[:, t]]  # (B,)
        out[:, t] = values[state]
    return out


def arithmetic_bilinear(m: int, normalize: str = "every_step", backend: str = "fast") -> nn.Module:
    """The package's ``bilinear`` model (full, one-hot, H = m²) set by hand to answer modular arithmetic mod m.

    ``transition[token]`` = the token's 0/1 matrix from ``fsm_simulation.transition_matrices``,
    the identity for padding; ``h0 = e_(0,1)``; ``head[v, s] = 1`` where state s answers v.

    Returns:
        A ``BilinearRNN`` in eval mode with the task's vocabulary (m + 7) and K = m classes.
    """
    table = arithmetic_table(m)  # (S, k) with S = m²
    S = table.shape[0]
    T = transition_matrices(table)  # (k, S, S)
    model = make_model(model_config("bilinear", d_model=S, variant="full", input="onehot", normalize=normalize,
                                    backend=backend), m + NUM_SPECIAL, m)
    with torch.no_grad():
        model.transition.copy_(torch.cat([T, torch.eye(S)[None]]))  # (m+7, S, S): padding keeps h
        model.h0.copy_(torch.eye(S)[start_state(m)])  # (S,)
        model.head.weight.copy_(nn.functional.one_hot(state_values(m), m).T.float())  # (K, S)
    return model.eval()


def distinguishing_answers(m: int) -> torch.Tensor:
    """For every pair (t, p), the task's answers to "t + p × 0" and "t + p + 0" at their last digit: (m², 2) long.

    Computed from the task's own label generator; m² distinct rows prove that m² states are needed
    (module docstring).
    """
    _check_modulus(m)
    task = make_task(task_config("modular_arithmetic", modulus=m, format="per_step"))
    t = torch.arange(m).repeat_interleave(m)  # (m²,)
    p = torch.arange(m).repeat(m)  # (m²,)
    out = []
    for op in (TIMES, PLUS):
        words = torch.stack([t, torch.full_like(t, m + PLUS), p, torch.full_like(t, m + op), torch.zeros_like(t)], 1)
        out.append(labels_of(task, words)[:, -1])  # (m²,)
    return torch.stack(out, dim=1)  # (m², 2)


def labels_of(task, tokens: torch.Tensor) -> torch.Tensor:
    """The task's own per-step labels for given per-step token rows (B, T), through its label generator."""

    m = task.cfg.modulus
    digits, ops = tokens[:, 0::2], tokens[:, 1::2] - m  # (B, n), (B, T//2)
    out = torch.full(tokens.shape, IGNORE, dtype=torch.long)  # (B, T)
    out[:, 0::2] = _running_values(digits, ops[:, : digits.shape[1] - 1], m)
    return out


@dataclass
class Tracking:
    """The construction on one modulus, against the task's labels."""

    modulus: int
    num_states: int
    num_seqs: int
    length: int
    automaton_acc: float  # the table walk vs the labels, at labelled positions
    acc: dict[str, float]  # normalize mode → the bilinear model's accuracy at labelled positions
    one_hot: bool  # every state of the model is exactly one-hot

    def row(self) -> dict:
        return {"m": self.modulus, "states (H)": self.num_states, "sequences": self.num_seqs, "length": self.length,
                "automaton acc": self.automaton_acc, **{f"bilinear acc ({k})": v for k, v in self.acc.items()},
                "states one-hot": self.one_hot}


def track(m: int, num_seqs: int, length: int, seed: int, modes: tuple[str, ...] = ("every_step", "none")) -> Tracking:
    """Run the automaton and its bilinear construction on ``num_seqs`` random per-step expressions of ``length`` tokens."""
    if num_seqs < 1 or length < 1:
        raise ValueError(f"num_seqs={num_seqs!r}, length={length!r}: both must be >= 1")
    task = make_task(task_config("modular_arithmetic", modulus=m, format="per_step"))
    batch = task.sample(torch.Generator().manual_seed(seed), num_seqs, length)
    labelled = batch.targets != IGNORE  # (B, T)
    truth = batch.targets[labelled]  # (N,)
    auto = (run_automaton(m, batch.inputs)[labelled] == truth).double().mean().item()
    acc, one_hot = {}, True
    for mode in modes:
        model = arithmetic_bilinear(m, normalize=mode)
        with torch.no_grad():
            h = model.states(batch.inputs)  # (B, T, S)
            pred = model.head(h).argmax(-1)  # (B, T)
        acc[mode] = (pred[labelled] == truth).double().mean().item()
        one_hot &= bool(((h == 0) | (h == 1)).all() and (h.sum(-1) == 1).all())
    return Tracking(m, m * m, num_seqs, length, auto, acc, one_hot)


__all__ = ["Tracking", "arithmetic_bilinear", "arithmetic_table", "distinguishing_answers", "labels_of",
           "run_automaton", "start_state", "state_id", "state_values", "track"]
