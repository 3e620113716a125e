"""BL Prop 2 constructions (``statetrack.theory.commuting``) against independent computations.

Ground truth: explicit matrix products in a Python loop for the commutators; permutation tuples
composed by hand for S3 (never the task's table); brute-force enumeration of every word for the
count-only ceiling; the hand-worked 27/36 of the module docstring.

Runtime: about 3 s on 2 CPU threads.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
import torch

from statetrack.config import ConfigError
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory.commuting import (commutator_norms, commuting_pairs, count_only_ceiling, identity_of,
                                         swapped_word_gap, transitions_fp64)

S3 = list(itertools.permutations(range(3)))  # the task's element order (its docstring's table)


def compose(p, q):
    """p·q: apply p first, then q."""
    return tuple(q[i] for i in p)


def brute_force_ceiling(elements: list[tuple[int, ...]], length: int) -> float:
    """Enumerate every word; per multiset of letters, count the most frequent product."""
    groups: dict[tuple[int, ...], Counter] = {}
    for word in itertools.product(range(len(elements)), repeat=length):
        product = tuple(range(len(elements[0])))
        for letter in word:
            product = compose(product, elements[letter])
        groups.setdefault(tuple(sorted(word)), Counter())[product] += 1
    return sum(c.most_common(1)[0][1] for c in groups.values()) / len(elements) ** length


@pytest.fixture(scope="module")
def s3():
    return make_task(task_config("word_problem", group="S3"))


def test_s3_has_18_commuting_ordered_pairs(s3):
    """|G| × (number of conjugacy classes) = 6 × 3 ordered pairs commute; the other 18 do not."""
    by_hand = torch.tensor([[compose(p, q) == compose(q, p) for q in S3] for p in S3])
    assert torch.equal(commuting_pairs(s3.mul_table), by_hand)
    assert int(by_hand.sum()) == 18
    assert identity_of(s3.mul_table) == S3.index((0, 1, 2)) == 0


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5, 6])
def test_count_only_ceiling_equals_brute_force(s3, length):
    ceiling = count_only_ceiling(s3.mul_table, length)
    assert ceiling[-1] == pytest.approx(brute_force_ceiling(S3, length), abs=1e-12)


def test_count_only_ceiling_hand_worked_and_its_shape(s3):
    c = count_only_ceiling(s3.mul_table, 16)
    assert c[0] == pytest.approx(1.0, abs=1e-15)
    assert c[1] == pytest.approx(27 / 36, abs=1e-15)  # the docstring's example
    assert all(x >= y - 1e-12 for x, y in zip(c, c[1:]))  # never rises with the length
    assert all(x > 1 / 3 for x in c)  # the counts always give the sign (the coset of A3)
    swaps = [i for i, p in enumerate(S3) if sum(a != b for a, b in enumerate(p)) == 2]
    assert count_only_ceiling(s3.mul_table, 3, drawn=swaps)[-1] == pytest.approx(
        brute_force_ceiling([S3[i] for i in swaps], 3), abs=1e-12)


def test_abelian_group_has_ceiling_one():
    z4 = torch.tensor([[(a + b) % 4 for b in range(4)] for a in range(4)])
    assert count_only_ceiling(z4, 8) == pytest.approx([1.0] * 8)


@pytest.mark.parametrize("variant", ["rotation", "diagonal", "full"])
def test_commutators_equal_explicit_products(variant):
    torch.manual_seed(0)
    model = make_model(model_config("bilinear", variant=variant, d_model=6), 5, 3)
    A = transitions_fp64(model)  # (V, H, H)
    assert A.dtype == torch.float64 and A.shape == (5, 6, 6)
    norms = commutator_norms(A)  # (V, V)
    for a in range(5):
        for b in range(5):
            explicit = A[a] @ A[b] - A[b] @ A[a]
            assert norms[a, b].item() == pytest.approx(float(explicit.pow(2).sum().sqrt()), abs=1e-12)
    gap = swapped_word_gap(model, 1, 2)
    if variant == "full":
        assert norms.max() > 0.1 and gap > 1e-3
    else:  # a shared eigenbasis: every pair commutes, and "ab", "ba" end in the same state
        assert norms.max() < 1e-12 and gap < 1e-12
    assert next(model.parameters()).dtype == torch.float32  # the model itself is untouched


def test_bad_input_names_the_value(s3):
    with pytest.raises(ConfigError, match="max_len=0"):
        count_only_ceiling(s3.mul_table, 0)
    with pytest.raises(ConfigError, match=r"drawn=\[7\]"):
        count_only_ceiling(s3.mul_table, 2, drawn=[7])
    with pytest.raises(ConfigError, match=r"shape \(2, 3\)"):
        commutator_norms(torch.zeros(2, 3))
    model = make_model(model_config("bilinear", variant="rotation", d_model=2), 4, 3)
    with pytest.raises(ConfigError, match="b=9"):
        swapped_word_gap(model, 0, 9)
    with pytest.raises(ConfigError, match="no identity"):
        identity_of(torch.zeros(3, 3, dtype=torch.long))


@pytest.mark.parametrize("word", [[1, 2], [3, 1, 1, 5], [0, 1, 2, 3, 4, 5], [2, 2, 2]])
def test_product_distribution_equals_enumerated_orderings(s3, word):
    from statetrack.theory.commuting import product_distribution

    orderings = set(itertools.permutations(word))
    want = torch.zeros(6, dtype=torch.float64)
    for order in orderings:
        product = (0, 1, 2)
        for letter in order:
            product = compose(product, S3[letter])
        want[S3.index(product)] += 1 / len(orderings)
    counts = [word.count(i) for i in range(6)]
    assert torch.allclose(product_distribution(s3.mul_table, counts), want, atol=1e-12)
    with pytest.raises(ConfigError, match=r"counts=\[1, -1\]"):
        product_distribution(s3.mul_table, [1, -1])
