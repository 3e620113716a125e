"""BL block-diagonal bilinear RNN, h_t = blockdiag(A_1(x_t), …, A_{H/b}(x_t)) h_{t−1}: which block size b a task needs.

A block of size b is a b-dimensional bilinear RNN of its own; the head reads all blocks at once. A
task is tracked exactly by blocks of size b as soon as its transitions have a b-dimensional
*representation* whose state vectors a linear head can tell apart: token v ↦ a b×b matrix ρ(v),
state after a word = ρ(x_T)⋯ρ(x_1) c_{q0}, and the code vectors c_q (one per state) distinct and of
equal length, so that the head whose row q is c_q puts the largest logit on the true state
(⟨c_q, c_q⟩ > ⟨c_q, c_p⟩ for p ≠ q). Every block holds the same copy; more blocks change nothing.

The constructions here, each run through the package's own ``bilinear`` model (variant "block",
"cp", "rotation" or "full") and checked against the task's own labels:

| task                               | smallest b here | construction                                       |
|------------------------------------|-----------------|----------------------------------------------------|
| Z_2 (parity)                       | 1               | token v ↦ (−1)^v, the sign flip                     |
| Z_m, m ≥ 3                         | 2               | token v ↦ the rotation R(2πv/m)                     |
| FSM whose letters are permutations | m − 1           | the standard representation of the permutations    |
| any FSM with m states              | m               | the one-hot transition matrices (BL Prop. 1)        |

Why not smaller (the limits the trained runs then meet):

- **b = 1 and Z_m, m ≥ 3.** A real 1×1 block is a real diagonal: on the word 1^k the logits are
  Σ_i c_i w_i^k, a sum of real exponentials, so for large k the argmax is constant on even k and on
  odd k: the prediction is eventually 2-periodic and cannot follow k mod m (NE Thm 2 in exact
  arithmetic; ``constant_word_predictions``).
- **b = 1 and an FSM.** Diagonal transitions commute, so the state depends only on how often each
  letter occurred; ``count_only_ceiling`` is the best accuracy any function of the counts reaches.
- **b < m − 1 and a machine whose letters generate S_m or A_m (m ≥ 5).** A block that tracks such a
  machine exactly is a representation of the group, and every representation of S5 (or A5) of
  dimension below 4 either sees only the sign of the permutation or cannot single out a point
  (the irreducible representations of S5 have dimensions 1, 1, 4, 4, 5, 5, 6; those of A5 1, 3, 3,
  4, 5, and the two 3-dimensional ones fix no vector of the point stabiliser A4). This is the
  character table, not computed here; the trained runs of bl5 probe it.

So "b ≥ the number of states" (BL's hierarchy as secondary sources state it) is sufficient, not necessary: Z_m needs only b = 2,
and a 5-state machine whose letters are permutations needs 4, not 5.

Hand-worked example (Z_3, b = 2): ρ(v) = R(2πv/3), c_0 = (1, 0), c_1 = (−½, √3/2), c_2 = (−½, −√3/2)::

    inputs   1          2          2
    h_t      c_1        c_0        c_2          (sums 1, 3, 5 ≡ 1, 0, 2 mod 3)
    logits   (−½, 1, −½) (1, −½, −½) (−½, −½, 1)   head rows c_0, c_1, c_2: argmax = the sum mod 3

Standard representation (m states): Q (m, m−1) has orthonormal columns spanning the vectors whose
entries sum to 0; a permutation matrix P (P e_q = e_{p(q)}) fixes the all-ones vector, so it maps
that subspace to itself, and ρ(p) = Qᵀ P Q is an (m−1)×(m−1) orthogonal matrix with
ρ(p) c_q = c_{p(q)} for the codes c_q = Qᵀ e_q (the corners of a regular simplex).

Used in: bl2, bl5 (claims/bl2/claim.py, claims/bl5/claim.py and their notebooks), tests/test_theory_block_size.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from statetrack.models import make_model, model_config
from statetrack.tasks.base import Task


@dataclass(frozen=True)
class Representation:
    """Token matrices, start code and head codes of an exact tracker in b' dimensions.

    Fields:
        mats: (V, b', b') the matrix of every token that has one (tokens beyond V keep the state).
        h0: (b',) the start state c_{q0}.
        codes: (K, b') the code c_q of every class (the head's rows).
        name: what it is ("sign", "rotation", "standard", "one-hot").
    """

    mats: torch.Tensor
    h0: torch.Tensor
    codes: torch.Tensor
    name: str

    @property
    def dim(self) -> int:
        return self.mats.shape[-1]


def _check_int(name: str, value: int, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name}={value!r} is not allowed: it must be an integer >= {least}")


# ----------------------------------------------------------------------------- representations


def rotation(theta: float) -> torch.Tensor:
    """R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]] in fp64: (2, 2)."""
    c, s = math.cos(theta), math.sin(theta)
    return torch.tensor([[c, -s], [s, c]], dtype=torch.float64)  # (2, 2)


def sign_rep() -> Representation:
    """Z_2 in one dimension: token v ↦ (−1)^v, c_0 = 1, c_1 = −1 (b = 1)."""
    mats = torch.tensor([[[1.0]], [[-1.0]]], dtype=torch.float64)  # (2, 1, 1)
    codes = torch.tensor([[1.0], [-1.0]], dtype=torch.float64)  # (2, 1)
    return Representation(mats, codes[0].clone(), codes, "sign")


def rotation_rep(m: int) -> Representation:
    """Z_m in two dimensions: token v ↦ R(2πv/m), c_q = R(2πq/m) e_1 (b = 2)."""
    _check_int("m", m, 2)
    mats = torch.stack([rotation(2 * math.pi * v / m) for v in range(m)])  # (m, 2, 2)
    codes = mats[:, :, 0].clone()  # (m, 2) R(2πq/m) e_1
    return Representation(mats, codes[0].clone(), codes, "rotation")


def sum_zero_basis(m: int) -> torch.Tensor:
    """Q (m, m−1) in fp64: orthonormal columns spanning {x : Σ x_i = 0} (the Helmert basis)."""
    _check_int("m", m, 2)
    Q = torch.zeros(m, m - 1, dtype=torch.float64)  # (m, m−1)
    for j in range(1, m):  # column j−1: (1, …, 1, −j, 0, …)/√(j(j+1)) with j ones
        Q[:j, j - 1] = 1.0
        Q[j, j - 1] = -float(j)
        Q[:, j - 1] /= math.sqrt(j * (j + 1))
    return Q


def permutation_matrices(table: torch.Tensor) -> torch.Tensor:
    """P_σ with P_σ e_q = e_{δ(q, σ)} for every letter σ of an (m, k) table: (k, m, m) fp64."""
    if table.dim() != 2 or table.dtype != torch.long:
        raise ValueError(f"table of shape {tuple(table.shape)} and dtype {table.dtype} is not allowed: "
                         "expected an (m, k) LongTensor of next states")
    m, k = table.shape
    P = torch.zeros(k, m, m, dtype=torch.float64)  # (k, m, m)
    for a in range(k):
        P[a, table[:, a], torch.arange(m)] = 1.0
    return P


def is_permutation_table(table: torch.Tensor) -> bool:
    """Whether every letter (column) of an (m, k) next-state table is a permutation of the states."""
    m = table.shape[0]
    return all(sorted(table[:, a].tolist()) == list(range(m)) for a in range(table.shape[1]))


def standard_rep(table: torch.Tensor, start: int = 0) -> Representation:
    """A machine whose letters are permutations, in m − 1 dimensions: ρ(σ) = Qᵀ P_σ Q, c_q = Qᵀ e_q.

    Args:
        table: (m, k) next-state table; every column must be a permutation.
        start: q0.
    """
    if not is_permutation_table(table):
        raise ValueError("the standard representation needs permutation letters; this table has a letter "
                         "that is not a permutation (use the one-hot representation, b = m)")
    m = table.shape[0]
    Q = sum_zero_basis(m)  # (m, m−1)
    mats = Q.T @ permutation_matrices(table) @ Q  # (k, m−1, m−1)
    codes = Q.clone()  # (m, m−1): row q is Qᵀ e_q
    return Representation(mats, codes[start].clone(), codes, "standard")


def one_hot_rep(table: torch.Tensor, start: int = 0) -> Representation:
    """Any machine in m dimensions (BL Prop. 1): ρ(σ) = T_σ, the 0/1 transition matrix; c_q = e_q."""
    m = table.shape[0]
    mats = permutation_matrices(table)  # (k, m, m): for a non-permutation letter still T_σ e_q = e_δ(q,σ)
    codes = torch.eye(m, dtype=torch.float64)  # (m, m)
    return Representation(mats, codes[start].clone(), codes, "one-hot")


def smallest_rep(task: Task) -> Representation:
    """The smallest construction of this module for a ``modular_addition`` or ``fsm`` task (see the table above)."""
    name = task.cfg.name
    if name == "modular_addition":
        return sign_rep() if task.cfg.modulus == 2 else rotation_rep(task.cfg.modulus)
    if name == "fsm":
        return standard_rep(task.table) if is_permutation_table(task.table) else one_hot_rep(task.table)
    raise ValueError(f"task {name!r} is not allowed: expected modular_addition or fsm")


def smallest_block(task: Task) -> int:
    """The smallest block size b at which this module's constructions track ``task`` exactly."""
    return smallest_rep(task).dim


# ----------------------------------------------------------------------------- through the package's models


def block_model(task: Task, block_size: int, d_model: int, rep: Representation | None = None) -> nn.Module:
    """The package's ``bilinear`` model (variant "block") with every block set to ``rep`` (default: ``smallest_rep``).

    A representation of dimension b' < b sits in each block's top-left corner; the rest of the block
    is the identity and starts at 0, so it stays 0. The padding token (and any token beyond ``rep``)
    keeps the state.

    Args:
        task: the task whose tokens and classes the model reads and predicts.
        block_size: b; must be at least ``rep.dim`` and divide ``d_model``.
        d_model: H.
    Returns:
        A ``BilinearRNN`` in eval mode (fp32; call ``.double()`` for fp64).
    """
    rep = smallest_rep(task) if rep is None else rep
    _check_int("block_size", block_size, 1)
    if block_size < rep.dim:
        raise ValueError(f"block_size={block_size!r} is not allowed for the {rep.name} representation: "
                         f"it needs b >= {rep.dim}")
    cfg = model_config("bilinear", variant="block", block_size=block_size, d_model=d_model)
    model = make_model(cfg, task.vocab_size, task.num_classes)
    b, nb, V = block_size, d_model // block_size, task.vocab_size
    mats = torch.eye(b, dtype=torch.float64).repeat(V, 1, 1)  # (V, b, b)
    mats[: rep.mats.shape[0], : rep.dim, : rep.dim] = rep.mats
    h0 = torch.zeros(b, dtype=torch.float64)  # (b,)
    h0[: rep.dim] = rep.h0
    codes = torch.zeros(task.num_classes, b, dtype=torch.float64)  # (K, b)
    codes[:, : rep.dim] = rep.codes
    with torch.no_grad():
        model.transition.copy_(mats[:, None].expand(V, nb, b, b))  # (V, H/b, b, b): the same copy in every block
        model.h0.copy_(h0.repeat(nb))  # (H,)
        model.head.weight.copy_(codes.repeat(1, nb))  # (K, H): every block votes alike
    return model.eval()


def cp_rotation_model(task: Task) -> nn.Module:
    """The package's ``bilinear`` model (variant "cp", H = 2, rank 4) set to rotate by 2πv/m: Z_m exactly.

    R(θ) = cos θ (e_1e_1ᵀ + e_2e_2ᵀ) + sin θ (e_2e_1ᵀ − e_1e_2ᵀ), four rank-one terms U diag(s_v) Vᵀ with
    U = [e_1, e_2, e_2, e_1], V = [e_1, e_2, e_1, e_2] and s_v = (cos θ_v, cos θ_v, sin θ_v, −sin θ_v).
    With rank R = H the CP form is U S_v Vᵀ with U, V invertible and S_0 ≈ identity-like, i.e. (nearly)
    real-diagonalizable: a rotation needs R > H.
    """
    if task.cfg.name != "modular_addition":
        raise ValueError(f"task {task.cfg.name!r} is not allowed: cp_rotation_model tracks modular_addition")
    m = task.cfg.modulus
    cfg = model_config("bilinear", variant="cp", d_model=2, rank=4)
    model = make_model(cfg, task.vocab_size, m)
    theta = torch.tensor([2 * math.pi * v / m if v < m else 0.0 for v in range(task.vocab_size)])  # (V,)
    e1, e2 = torch.eye(2)
    with torch.no_grad():
        model.left.copy_(torch.stack([e1, e2, e2, e1], 1))  # (H, R)
        model.right.copy_(torch.stack([e1, e2, e1, e2], 1))  # (H, R)
        model.transition.copy_(torch.stack([theta.cos(), theta.cos(), theta.sin(), -theta.sin()], 1))  # (V, R)
        model.h0.copy_(e1)
        model.head.weight.copy_(rotation_rep(m).codes.float())  # (m, 2)
    return model.eval()


@dataclass
class Tracking:
    """A hand-set model run on the task's own random sequences and labels."""

    model: str
    b: int
    num_seqs: int
    length: int
    acc: float  # fraction of (sequence, position) predictions equal to the label
    all_correct: bool  # every prediction of every sequence right

    def row(self) -> dict:
        return {"model": self.model, "b": self.b, "sequences": self.num_seqs, "length": self.length, "acc": self.acc,
                "all correct": self.all_correct}


def track(model: nn.Module, task: Task, num_seqs: int, length: int, seed: int, name: str = "",
          dtype: torch.dtype = torch.float64) -> Tracking:
    """Run ``model`` on ``num_seqs`` sequences of ``length`` tokens drawn by ``task.sample``; compare with its labels."""
    _check_int("num_seqs", num_seqs, 1)
    _check_int("length", length, 1)
    batch = task.sample(torch.Generator().manual_seed(seed), num_seqs, length)
    model = model.to(dtype)
    with torch.no_grad():
        pred = model(batch.inputs).argmax(-1)  # (B, T)
    correct = pred == batch.targets  # (B, T)
    cfg = model.cfg
    b = {"block": getattr(cfg, "block_size", 0), "full": cfg.d_model, "rotation": 2, "diagonal": 1,
         "cp": cfg.d_model}[cfg.variant]
    return Tracking(name or cfg.label, b, num_seqs, length, correct.float().mean().item(), bool(correct.all()))


# ----------------------------------------------------------------------------- limits


def constant_word_predictions(model: nn.Module, token: int, length: int) -> torch.Tensor:
    """Predictions (length,) of ``model`` on the word token^length, in fp64 (exact arithmetic up to 1e-16)."""
    _check_int("length", length, 1)
    model = model.double()
    with torch.no_grad():
        return model(torch.full((1, length), token, dtype=torch.long))[0].argmax(-1)  # (T,)


def count_only_ceiling(table: torch.Tensor, max_len: int, start: int = 0) -> list[float]:
    """Best accuracy of any predictor that sees only the letter counts, at lengths 1..max_len (letters uniform).

    A model whose transitions commute (the real diagonal, b = 1) is such a predictor. Dynamic
    programming over count vectors: N[c][q] = number of words with counts c that end in state q;
    the best guess for counts c is argmax_q N[c][q], so the ceiling at length L is
    Σ_{|c| = L} max_q N[c][q] / k^L.

    Args:
        table: (m, k) next-state table.
        max_len: the longest length.
    Returns:
        A list of max_len accuracies (raw, chance 1/m).
    """
    _check_int("max_len", max_len, 1)
    m, k = table.shape
    layer = {(0,) * k: torch.zeros(m, dtype=torch.float64)}
    layer[(0,) * k][start] = 1.0
    out = []
    for L in range(1, max_len + 1):
        nxt: dict[tuple[int, ...], torch.Tensor] = {}
        for counts, n in layer.items():
            for a in range(k):
                c = counts[:a] + (counts[a] + 1,) + counts[a + 1:]
                moved = torch.zeros(m, dtype=torch.float64).index_add_(0, table[:, a], n)  # (m,)
                nxt[c] = nxt[c] + moved if c in nxt else moved
        layer = nxt
        out.append(sum(float(n.max()) for n in layer.values()) / k**L)
    return out


__all__ = ["Representation", "Tracking", "block_model", "constant_word_predictions", "count_only_ceiling",
           "cp_rotation_model", "is_permutation_table", "one_hot_rep", "permutation_matrices",
           "rotation", "rotation_rep", "sign_rep", "smallest_block", "smallest_rep", "standard_rep",
           "sum_zero_basis", "track"]
