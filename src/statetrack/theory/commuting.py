"""BL Prop 2: if A_x = P D_x P⁻¹ with P independent of x, every A_a A_b = A_b A_a, so a state sees only token counts.

A shared eigenbasis (the bilinear variants "rotation", a complex diagonal, and "diagonal", a real
one) makes all transitions commute: A_a A_b − A_b A_a = P (D_a D_b − D_b D_a) P⁻¹ = 0. Then the
state after a word is (Π_t A_{x_t}) h_0 in any order, so it depends only on how often each token
occurs (normalizing each step rescales, which commutes too). A word problem whose group does not
commute asks for more than the counts.

Worked example in S3 (the ids of ``tasks.groups``: 1 = (0,2,1), 2 = (1,0,2), 3 = (1,2,0), 4 = (2,0,1))::

    word "1 2":  (0,2,1)·(1,0,2) = (1,2,0)  → answer 3
    word "2 1":  (1,0,2)·(0,2,1) = (2,0,1)  → answer 4      same counts, same state, different answers

At length 2 the 36 words fall into 6 groups {a, a} (one word each) and 15 groups {a, b}; 6 of
those hold a commuting pair (one answer for both words), 9 a non-commuting one (two answers, so a
count-only model gets one of the two words right). The best count-only accuracy is
(6 + 6·2 + 9·1)/36 = 27/36 = 0.75, and ``count_only_ceiling`` computes this ceiling at every length
L exactly: group the words by their token counts, guess each group's most frequent answer. It can
only fall with L: a model that knows the counts of L + 1 tokens knows less than one that knows the
counts of the first L and the last token, and that one can do no better than the length-L ceiling.

Used in: bl7 (and tests/test_bilinear.py's Prop 2 test).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import torch

from statetrack.config import ConfigError


# ----------------------------------------------------------------------------- transitions


def transitions_fp64(model: torch.nn.Module) -> torch.Tensor:
    """A(x_v) of every token of a bilinear model as dense fp64 matrices (V, H, H); the model is left as it is."""
    twin = copy.deepcopy(model).double()
    with torch.no_grad():
        return twin.transition_matrices().detach()  # (V, H, H)


def commutator_norms(A: torch.Tensor) -> torch.Tensor:
    """‖A_a A_b − A_b A_a‖_F for every pair of matrices (BL Prop 2's commutators).

    Args:
        A: (V, H, H) one transition per token.
    Returns:
        (V, V) Frobenius norms, zero on the diagonal.
    """
    if A.dim() != 3 or A.shape[-1] != A.shape[-2]:
        raise ConfigError(f"commutator_norms needs (V, H, H) square matrices, got shape {tuple(A.shape)}")
    ab = torch.einsum("aij,bjk->abik", A, A)  # (V, V, H, H): A_a A_b
    return torch.linalg.matrix_norm(ab - ab.transpose(0, 1))  # (V, V)


def swapped_word_gap(model: torch.nn.Module, a: int, b: int) -> float:
    """‖h("a b") − h("b a")‖: the distance between the states the words ab and ba reach, in fp64."""
    V = model.vocab_size
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, int) or not 0 <= t < V:
            raise ConfigError(f"token {name}={t!r} is not allowed: the model reads ids 0..{V - 1}")
    twin = copy.deepcopy(model).double()
    with torch.no_grad():
        final = twin.states(torch.tensor([[a, b], [b, a]]))[:, -1]  # (2, H)
    return float(torch.linalg.vector_norm(final[0] - final[1]))


# ----------------------------------------------------------------------------- groups


def identity_of(mul_table: torch.Tensor) -> int:
    """The id e with e·x = x for every x of a (G, G) multiplication table."""
    G = mul_table.shape[0]
    for e in range(G):
        if torch.equal(mul_table[e], torch.arange(G)):
            return e
    raise ConfigError("the multiplication table has no identity element (no row equals 0..G−1)")


def commuting_pairs(mul_table: torch.Tensor) -> torch.Tensor:
    """(G, G) bool: entry [a, b] is True when a·b = b·a."""
    return mul_table == mul_table.T  # (G, G)


def count_only_ceiling(mul_table: torch.Tensor, max_len: int, drawn: Sequence[int] | None = None) -> list[float]:
    """The best accuracy, at each length L = 1..max_len, of any predictor that sees only the token counts.

    Words of length L are drawn uniformly from ``drawn`` (default: every element); the answer is
    their product x_1·…·x_L. Dynamic programming over count vectors: for each count vector, the
    probability of each product; the ceiling sums, over count vectors, the largest of these. Exact
    up to float64 rounding; the work grows as the number of count vectors, C(L + E − 1, E − 1).

    Args:
        mul_table: (G, G) ``mul_table[a, b]`` = id of a·b.
        max_len: the longest length, >= 1.
        drawn: the element ids that words draw from (E of them).
    Returns:
        [c(1), …, c(max_len)], each the probability of a correct answer (1.0 for an abelian group).
    """
    if not isinstance(max_len, int) or isinstance(max_len, bool) or max_len < 1:
        raise ConfigError(f"max_len={max_len!r} is not allowed: it must be an integer >= 1")
    table = mul_table.numpy()
    G = table.shape[0]
    drawn = list(range(G)) if drawn is None else list(drawn)
    if not drawn or any(not 0 <= d < G for d in drawn):
        raise ConfigError(f"drawn={drawn!r} is not allowed: expected a non-empty list of ids in 0..{G - 1}")
    E, base = len(drawn), max_len + 1
    if base ** E >= 2**62:
        raise ConfigError(f"max_len={max_len} with {E} drawn elements is too large for the int64 count keys")
    keys = np.zeros(1, dtype=np.int64)  # (C,) count vector n encoded as Σ_j n_j · base^j
    probs = np.zeros((1, G))  # (C, G) P(counts, product)
    probs[0, identity_of(mul_table)] = 1.0
    out = []
    for _ in range(max_len):
        new_keys, new_probs = [], []
        for j, x in enumerate(drawn):
            moved = np.zeros_like(probs)  # (C, G)
            moved[:, table[:, x]] = probs / E  # product g → g·x, a permutation of the columns
            new_keys.append(keys + base**j)
            new_probs.append(moved)
        uniq, inv = np.unique(np.concatenate(new_keys), return_inverse=True)  # (C',), (E·C,)
        stacked = np.concatenate(new_probs)  # (E·C, G)
        probs = np.stack([np.bincount(inv, weights=stacked[:, g], minlength=len(uniq)) for g in range(G)], 1)
        keys = uniq
        out.append(float(probs.max(1).sum()))
    return out


def product_distribution(mul_table: torch.Tensor, counts: Sequence[int]) -> torch.Tensor:
    """P(x_1·…·x_L = g) over the distinct orderings of a multiset of letters, all equally likely.

    A count-only model sees exactly this: given ``counts`` (counts[i] letters of id i), its best guess
    is the argmax and it is right with probability the max. Recursion on the last letter (letter i
    comes last with probability counts[i]/L), memoized on the remaining counts.

    Args:
        mul_table: (G, G) ``mul_table[a, b]`` = id of a·b.
        counts: (G,) non-negative letter counts, summing to L >= 0.
    Returns:
        (G,) float64 probabilities; for L = 0 the identity has probability 1.
    """
    table = mul_table.tolist()
    G = len(table)
    counts = tuple(int(c) for c in counts)
    if len(counts) != G or any(c < 0 for c in counts):
        raise ConfigError(f"counts={list(counts)!r} is not allowed: expected {G} non-negative integers")
    e = identity_of(mul_table)
    memo: dict[tuple[int, ...], list[float]] = {}

    def dist(c: tuple[int, ...]) -> list[float]:
        if c in memo:
            return memo[c]
        total = sum(c)
        out = [0.0] * G
        if total == 0:
            out[e] = 1.0
        for x, n in enumerate(c):
            if n:
                rest = dist(c[:x] + (n - 1,) + c[x + 1:])
                for g, p in enumerate(rest):
                    out[table[g][x]] += p * n / total
        memo[c] = out
        return out

    return torch.tensor(dist(counts), dtype=torch.float64)  # (G,)
