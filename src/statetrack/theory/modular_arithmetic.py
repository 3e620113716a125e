"""NE Table 3, "mod. arithmetic w/o brackets": the task is a finite automaton, run exactly by a bilinear RNN.

An expression ``d_0 op_1 d_1 ... op_n d_n =`` over the digits 0..m−1 with op ∈ {+, −, ×} (× first) is
read left to right by a finite machine whose state after a digit is the pair (total, term): ``total``
is the sum of the finished terms and ``term`` the current signed product, both mod m. After an
operator the machine also remembers that operator; ``=`` moves to the answer (total + term) mod m.
States (m = 5: 107 in all)::

    start                 1        expecting the first digit
    D(total, term)        m²       just read a digit
    O(total, term, op)    3m²      just read an operator
    A(value)              m        just read '='; value is the answer
    dead                  1        anything the grammar does not allow (brackets, two digits in a row)

Transitions: ``start -d-> D(0, d)``; ``D(t, s) -op-> O(t, s, op)``; ``O(t, s, +) -d-> D(t+s, d)``;
``O(t, s, −) -d-> D(t+s, −d)``; ``O(t, s, ×) -d-> D(t, s·d)``; ``D(t, s) -=-> A(t+s)``.

Hand-worked example, the paper's ``2 − 3 − 3 × 2 = 3`` (m = 5)::

    token   2        −           3         −           3         ×           2         =
    state   D(0,2)   O(0,2,−)    D(2,2)    O(2,2,−)    D(4,2)    O(4,2,×)    D(4,4)    A(3)

(2 − 3 = −1: total 2, term −3 ≡ 2; then total 4, term −3 ≡ 2; × 2 gives term 4; 4 + 4 = 8 ≡ 3.)

**Through the package's model.** ``arithmetic_bilinear`` is the package's ``bilinear`` model (variant
"full", one-hot input) with the machine's 0/1 transition matrices ``T_σ`` (``fsm_simulation``: BL Prop. 1)
and a head that maps each answer state A(v) to class v. Every state is exactly one-hot, so fp32 is
exact at any length. ``track`` checks it against the task's own labels.

**Why negative and complex eigenvalues (NE Thms 1 and 2 applied to words).** Repeating one word
drives the machine around a cycle. The word ``× (m−1)`` maps D(t, s) to D(t, −s): the answers of
``3 × 4 × 4 × 4 ... =`` are 3, 2, 3, 2, ... (period 2) and the word's matrix on the D states is a
permutation with eigenvalue −1. The word ``+ 1`` maps D(t, s) to D(t+s, 1): the answers of
``1 + 1 + 1 ... =`` count mod m (period m) and the word's matrix has the m-th roots of unity as
eigenvalues, non-real for m ≥ 3. A linear RNN whose matrices have eigenvalues in [0, 1]
(Mamba [0,1]: positive diagonal; DeltaNet [0,1]: symmetric I − βkkᵀ with β ∈ [0, 1]) has word
matrices whose eigenvalues lie in [0, 1] too (a product of two positive semidefinite matrices has a
real non-negative spectrum), so in finite precision its state on a repeated word freezes (NE Thm 1's
argument) and cannot alternate; a real diagonal one (Mamba [-1,1]) can flip signs but not count
mod 5 (NE Thm 2). That the argument carries from one token to a repeated word is our reading [I],
not a statement of the paper; the periods and spectra below are computed, not assumed.

Ground truth is always the task's own label function (``tasks.modular._running_values``, which
``ModularArithmetic.sample`` calls), never the construction's output.

Used in: ne4 (claims/ne4/claim.py, notebooks/ne4_chomsky_tasks.md), tests/test_theory_modular_arithmetic.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.tasks.modular import EQUALS, MINUS, PLUS, TIMES, _running_values
from statetrack.theory.fsm_simulation import transition_matrices
from statetrack.theory.threads import single_thread

OPS = {"+": PLUS, "-": MINUS, "−": MINUS, "*": TIMES, "×": TIMES}
SYMBOLS = {PLUS: "+", MINUS: "−", TIMES: "×"}


def _check_modulus(m: int) -> None:
    if not isinstance(m, int) or isinstance(m, bool) or m < 2:
        raise ValueError(f"modulus m={m!r} is not allowed: it must be an integer >= 2")


@dataclass(frozen=True)
class Machine:
    """The automaton of expressions mod m without brackets (states and ids in the module docstring).

    Attributes:
        modulus: m.
        table: (S, k) next-state table over the task's k = m + 6 non-padding token ids.
        answer: (S,) the answer class of each state: v for A(v), −1 for every other state.
        names: (S,) readable state names, e.g. "D(4,2)".
        start: the start state's index.
    """

    modulus: int
    table: torch.Tensor
    answer: torch.Tensor
    names: tuple[str, ...]
    start: int

    @property
    def num_states(self) -> int:
        return len(self.names)

    def digit_states(self) -> list[int]:
        """Indices of the D(total, term) states, ordered by (total, term)."""
        m = self.modulus
        return [1 + t * m + s for t in range(m) for s in range(m)]


def machine(m: int = 5) -> Machine:
    """Build the automaton of ``modular_arithmetic`` (format "ne", no brackets) for modulus ``m``.

    State indices: 0 start; 1 + t·m + s for D(t, s); 1 + m² + (t·m + s)·3 + op for O(t, s, op);
    1 + 4m² + v for A(v); the last index is dead. Token ids follow the task: digits 0..m−1, then
    + − × ( ) = at m..m+5.
    """
    _check_modulus(m)
    k = m + 6
    digit = lambda t, s: 1 + t * m + s  # noqa: E731
    oper = lambda t, s, op: 1 + m * m + (t * m + s) * 3 + op  # noqa: E731
    ans = lambda v: 1 + 4 * m * m + v  # noqa: E731
    dead = 1 + 4 * m * m + m
    S = dead + 1
    table = torch.full((S, k), dead, dtype=torch.long)  # (S, k): everything not listed goes dead
    names = ["start"] + [""] * (S - 1)
    answer = torch.full((S,), -1, dtype=torch.long)  # (S,)
    for d in range(m):
        table[0, d] = digit(0, d)
    for t in range(m):
        for s in range(m):
            names[digit(t, s)] = f"D({t},{s})"
            for op in (PLUS, MINUS, TIMES):
                table[digit(t, s), m + op] = oper(t, s, op)
                names[oper(t, s, op)] = f"O({t},{s},{SYMBOLS[op]})"
                for d in range(m):
                    nxt = {PLUS: digit((t + s) % m, d), MINUS: digit((t + s) % m, (-d) % m),
                           TIMES: digit(t, (s * d) % m)}[op]
                    table[oper(t, s, op), d] = nxt
            table[digit(t, s), m + EQUALS] = ans((t + s) % m)
    for v in range(m):
        names[ans(v)] = f"A({v})"
        answer[ans(v)] = v
    names[dead] = "dead"
    return Machine(m, table, answer, tuple(names), 0)


def arithmetic_bilinear(mach: Machine) -> nn.Module:
    """The package's ``bilinear`` model (full, one-hot input, H = S states) set by hand to run ``mach``.

    ``transition[σ] = T_σ`` for the k token ids and the identity for the padding id k (the task's PAD
    is its last id, m + 6 = k); ``h0 = e_start``; ``head[v, q] = 1`` iff q is the answer state A(v).

    Returns:
        A ``BilinearRNN`` in eval mode, vocab k + 1, K = m classes.
    """
    T = transition_matrices(mach.table)  # (k, S, S)
    k, S, _ = T.shape
    cfg = model_config("bilinear", d_model=S, variant="full", input="onehot", normalize="none")
    model = make_model(cfg, k + 1, mach.modulus)
    head = torch.zeros(mach.modulus, S)  # (K, H)
    rows = (mach.answer >= 0).nonzero().squeeze(1)  # (m,) the answer states
    head[mach.answer[rows], rows] = 1.0
    with torch.no_grad():
        model.transition.copy_(torch.cat([T, torch.eye(S)[None]]))  # (k+1, S, S): padding keeps h
        model.h0.copy_(torch.eye(S)[mach.start])  # (S,) e_start, already unit norm
        model.head.weight.copy_(head)  # (K, H)
    return model.eval()


@dataclass
class Tracking:
    """The construction against the task's labels on random expressions."""

    modulus: int
    num_states: int
    num_seqs: int
    lengths: tuple[int, int]
    acc: float  # fraction of expressions whose '=' prediction equals the task's label
    one_hot: bool  # every state at every step is exactly a 0/1 one-hot vector

    def row(self) -> dict:
        return {"modulus": self.modulus, "states": self.num_states, "expressions": self.num_seqs,
                "lengths": f"{self.lengths[0]}–{self.lengths[1]}", "acc": self.acc, "one-hot": self.one_hot}


def track(m: int, num_seqs: int, min_len: int, max_len: int, seed: int) -> Tracking:
    """Run ``arithmetic_bilinear(machine(m))`` on ``num_seqs`` random expressions with lengths in [min_len, max_len].

    The expressions and their answers come from the task's own sampler (``sample_range``; padding on
    the right). Lengths count input tokens, ``=`` included, as everywhere in the package.
    """
    _check_modulus(m)
    if num_seqs < 1 or min_len < 2 or min_len > max_len:
        raise ValueError(f"num_seqs={num_seqs!r}, lengths [{min_len!r}, {max_len!r}] are not allowed: "
                         "need num_seqs >= 1 and 2 <= min_len <= max_len")
    task = make_task(task_config("modular_arithmetic", modulus=m, brackets=False, format="ne"))
    batch = task.sample_range(torch.Generator().manual_seed(seed), num_seqs, min_len, max_len)
    mach = machine(m)
    model = arithmetic_bilinear(mach)
    with single_thread(), torch.no_grad():
        h = model.states(batch.inputs)  # (B, T, S)
        pred = model.head(h).argmax(-1)  # (B, T)
    truth = batch.targets  # (B, T), the label at '=' and IGNORE elsewhere
    at_eq = batch.mask  # (B, T): the '=' position of each expression
    acc = (pred[at_eq] == truth[at_eq]).float().mean().item()
    one_hot = bool(((h == 0) | (h == 1)).all() and (h.sum(-1) == 1).all())
    return Tracking(m, mach.num_states, num_seqs, (min_len, max_len), acc, one_hot)


def parse(expression: str, m: int) -> list[int]:
    """Token ids of an expression such as ``"2-3-3*2"`` (spaces ignored; ``=`` appended if missing).

    Raises ``ValueError`` naming a character that is neither a digit below m nor + − × * ( ) =.
    """
    _check_modulus(m)
    ids = []
    for ch in expression.replace(" ", ""):
        if ch.isdigit() and int(ch) < m:
            ids.append(int(ch))
        elif ch in OPS:
            ids.append(m + OPS[ch])
        elif ch in "()=":
            ids.append(m + {"(": 3, ")": 4, "=": EQUALS}[ch])
        else:
            raise ValueError(f"character {ch!r} in {expression!r} is not allowed: use digits 0..{m - 1}, "
                             "+ − × (or * and -), ( ) and =")
    if not ids or ids[-1] != m + EQUALS:
        ids.append(m + EQUALS)
    return ids


def run(mach: Machine, tokens: list[int]) -> list[int]:
    """The machine's state after each token (a plain table walk, the reference for the model's states)."""
    q, out = mach.start, []
    for x in tokens:
        if not 0 <= x < mach.table.shape[1]:
            raise ValueError(f"token id {x!r} is not allowed: ids lie in [0, {mach.table.shape[1] - 1}]")
        q = int(mach.table[q, x])
        out.append(q)
    return out


def word_answers(m: int, first: int, op: str, digit: int, reps: int) -> list[int]:
    """The task's labels of ``first op digit op digit ... =`` with k = 0..reps repetitions of ``op digit``.

    Computed by the task's own label function on hand-set digits and operators, e.g. m = 5,
    ``word_answers(5, 3, "×", 4, 4)`` = [3, 2, 3, 2, 3] and ``word_answers(5, 1, "+", 1, 5)`` =
    [1, 2, 3, 4, 0, 1].
    """
    _check_modulus(m)
    if op not in OPS:
        raise ValueError(f"operator {op!r} is not allowed: use one of + − ×")
    if not (0 <= first < m and 0 <= digit < m) or reps < 1:
        raise ValueError(f"first={first!r}, digit={digit!r}, reps={reps!r}: digits lie in [0, {m - 1}], reps >= 1")
    digits = torch.tensor([[first] + [digit] * reps])  # (1, n)
    ops = torch.full((1, reps), OPS[op])  # (1, n−1)
    return _running_values(digits, ops, m)[0].tolist()


def word_matrix(mach: Machine, op: str, digit: int) -> torch.Tensor:
    """The 0/1 matrix of the word ``op digit`` on the D(total, term) states, in fp64: T_digit T_op restricted.

    Returns:
        (m², m²) matrix M with M[j, i] = 1 iff the word takes the i-th D state to the j-th
        (``Machine.digit_states`` order). It is closed on the D states: every D state goes to one.
    """
    m = mach.modulus
    T = transition_matrices(mach.table).double()  # (k, S, S)
    word = T[digit] @ T[m + OPS[op]]  # (S, S): first the operator, then the digit
    idx = torch.tensor(mach.digit_states())  # (m²,)
    return word[idx][:, idx]  # (m², m²)


def spectrum(matrix: torch.Tensor) -> torch.Tensor:
    """Eigenvalues of a square matrix in complex128 (fp64 reference), sorted by angle then modulus."""
    ev = torch.linalg.eigvals(matrix.double())  # (n,) complex128
    order = sorted(range(len(ev)), key=lambda i: (round(float(ev[i].angle()), 9), round(float(ev[i].abs()), 9)))
    return ev[order]


__all__ = ["Machine", "Tracking", "arithmetic_bilinear", "machine", "parse", "run", "spectrum", "track",
           "word_answers", "word_matrix"]
