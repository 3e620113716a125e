"""Group word problems: the running product of group elements in S3, S5 (and subsets), A5 and Z60.

Worked example (S3; ids 0..5 are the elements, 6 is padding). Elements are permutations of
{0, 1, 2} written as tuples p = (p[0], p[1], p[2]), numbered in ``itertools.permutations`` order::

    id    0        1        2        3        4        5
    p     (0,1,2)  (0,2,1)  (1,0,2)  (1,2,0)  (2,0,1)  (2,1,0)

The answer after token i is the product x_0·x_1·…·x_i, where p·q means "apply p first, then q":
(p·q)[j] = q[p[j]]. For the inputs 2 1 5::

    (1,0,2)·(0,2,1) = (2,0,1)       j=0: p[0]=1, q[1]=2;  j=1: p[1]=0, q[0]=0;  j=2: p[2]=2, q[2]=1
    (2,0,1)·(2,1,0) = (0,2,1)

    inputs   2 1 5
    answers  2 4 1

The order matters: the inputs 1 2 give the answers 1 3, since (0,2,1)·(1,0,2) = (1,2,0).

With ``tokens_per_element = k`` > 1 (NE's "4 tokens per transition", NE App. E.2), positions
p ≡ 0 (mod k) hold a drawn element and the others a blank token (id |G|, the identity); the answer
at position p is the product of the elements at positions q with q + k − 1 <= p, so each element
enters the answer k − 1 tokens late, at the last blank of its block, and positions 0..k−2 answer
the identity 0. This is our reading of NE's "y_{i+3} is the product of the real elements so far;
y_1..y_3 = 0". With k = 2 (blank id 6 in S3, padding 7)::

    inputs   2 6 1 6
    answers  0 2 2 4

Groups, all as permutation tuples with id 0 the identity:

- S_n (n = 3, 5): ``itertools.permutations(range(n))`` order (the identity comes first).
- A5: the even permutations of 5 points, in the S5 order.
- Z60: id r is the rotation j ↦ j + r (mod 60) of 60 points, so the product of ids is their sum
  mod 60.

The element ids are ours; NE's S5 ids come from the ``abstract_algebra`` package and differ, which
changes nothing for a learned embedding and head.

Implements NE App. E.2 (S5, swaps only, swaps + 3-cycles, 4 tokens per transition,
Z60) and the S3 word problem of a demonstration of BL Prop. 2.

Used in: ne5, ne6, bl7.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch

from statetrack.config import ConfigError, TaskConfig, positive
from statetrack.tasks import register
from statetrack.tasks.base import Task

Permutation = tuple[int, ...]


@dataclass(frozen=True)
class WordProblemConfig(TaskConfig):
    """The word problem of a finite group G (K = |G|, chance 1/|G|).

    Fields:
        group: "S3" (6), "S5" (120), "A5" (60, the even permutations), "Z60" (60, cyclic).
        elements: which elements are drawn, uniformly. "all"; "swaps": the identity and the
            transpositions; "swaps_3cycles": the identity and every element moving at most 3 points
            (transpositions and 3-cycles). Subsets exist only for S3 and S5 (NE Fig. 4).
        tokens_per_element: k; each drawn element is followed by k − 1 blank tokens and enters the
            answer k − 1 tokens late (NE: k = 4 for S5, 2 for Z60).
    """

    name: ClassVar[str] = "word_problem"
    group: Literal["S3", "S5", "A5", "Z60"] = "S5"
    elements: Literal["all", "swaps", "swaps_3cycles"] = "all"
    tokens_per_element: int = 1

    def check(self) -> None:
        positive(self, "tokens_per_element")
        if self.group not in ("S3", "S5") and self.elements != "all":
            raise ConfigError(
                f"{self._prefix()}elements={self.elements!r} is not allowed for group={self.group!r}; "
                "allowed: ['all'] (the subsets 'swaps' and 'swaps_3cycles' exist only for S3 and S5)"
            )


@register
class WordProblem(Task):
    """Running product x_0·…·x_t of group elements. Input ids: elements 0..|G|−1, the blank |G|
    when ``tokens_per_element`` > 1, then PAD. Every position has an answer in 0..|G|−1.

    Used in: ne5, ne6, bl7.
    """

    Config = WordProblemConfig
    cfg: WordProblemConfig

    def __init__(self, cfg: WordProblemConfig):
        super().__init__(cfg)
        self._permutations, self._mul_table = _group(cfg.group)
        most = {"all": len(self._permutations[0]), "swaps": 2, "swaps_3cycles": 3}[cfg.elements]
        drawn = [i for i, p in enumerate(self._permutations) if _moved(p) <= most]
        self._elements_drawn = torch.tensor(drawn)  # (E,)

    # -- the group --------------------------------------------------------------------------------
    @property
    def group_order(self) -> int:
        """|G|."""
        return len(self._permutations)

    @property
    def permutations(self) -> tuple[Permutation, ...]:
        """The element with id i as a permutation tuple (see the module docstring for the order)."""
        return self._permutations

    @property
    def mul_table(self) -> torch.Tensor:
        """(|G|, |G|) LongTensor: ``mul_table[a, b]`` is the id of a·b (apply a first, then b)."""
        return self._mul_table

    @property
    def elements_drawn(self) -> torch.Tensor:
        """(E,) the ids that inputs draw from, uniformly."""
        return self._elements_drawn

    # -- sizes --------------------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        blank = 1 if self.cfg.tokens_per_element > 1 else 0
        return self.group_order + blank + 1  # elements, the blank (id |G|) and the padding token

    @property
    def num_classes(self) -> int:
        return self.group_order

    def _generate(self, gen, batch, length):
        k = self.cfg.tokens_per_element
        n = len(range(0, length, k))  # drawn elements, at positions 0, k, 2k, ...
        pick = torch.randint(0, len(self._elements_drawn), (batch, n), generator=gen)  # (B, n)
        elements = self._elements_drawn[pick]  # (B, n)
        inputs = torch.full((batch, length), self.group_order, dtype=torch.long)  # (B, T) blanks
        inputs[:, ::k] = elements
        # products[:, j] = x_0·…·x_{j−1}, with products[:, 0] the identity.
        products = torch.zeros((batch, n + 1), dtype=torch.long)  # (B, n+1)
        for j in range(n):
            products[:, j + 1] = self._mul_table[products[:, j], elements[:, j]]
        # Position p has seen the elements j with j·k + k − 1 <= p, i.e. the first (p + 1) // k.
        seen = (torch.arange(length) + 1) // k  # (T,)
        return inputs, products[:, seen]  # (B, T), (B, T)


# ----------------------------------------------------------------------------- building the groups


@functools.lru_cache(maxsize=None)
def _group(name: str) -> tuple[tuple[Permutation, ...], torch.Tensor]:
    """The elements of group ``name`` (id 0 the identity) and its (|G|, |G|) multiplication table."""
    if name in ("S3", "S5"):
        perms = list(itertools.permutations(range(int(name[1]))))
    elif name == "A5":
        perms = [p for p in itertools.permutations(range(5)) if _is_even(p)]
    elif name == "Z60":
        perms = [tuple((j + r) % 60 for j in range(60)) for r in range(60)]
    else:  # unreachable through the config's Literal
        raise ConfigError(f"unknown group {name!r}; allowed: ['S3', 'S5', 'A5', 'Z60']")
    index = {p: i for i, p in enumerate(perms)}
    table = torch.tensor([[index[_compose(p, q)] for q in perms] for p in perms])  # (|G|, |G|)
    return tuple(perms), table


def _compose(p: Permutation, q: Permutation) -> Permutation:
    """p·q: apply p first, then q, i.e. (p·q)[j] = q[p[j]]."""
    return tuple(q[i] for i in p)


def _moved(p: Permutation) -> int:
    """How many points p moves (0 for the identity, 2 for a transposition, 3 for a 3-cycle)."""
    return sum(i != j for i, j in enumerate(p))


def _is_even(p: Permutation) -> bool:
    """True if p has an even number of inversions."""
    inversions = sum(p[i] > p[j] for i in range(len(p)) for j in range(i + 1, len(p)))
    return inversions % 2 == 0
