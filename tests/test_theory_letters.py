"""``theory.letters`` against brute force: cycles by following each state until it returns, commutation by composing
words letter by letter, the count-only ceiling by enumerating every word of a length, the sampling margin by hand."""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict

import pytest
import torch

from statetrack.tasks import make_task, task_config
from statetrack.theory import letters as L


def _table(*letters):
    """A next-state table (m, k) from k permutations given as lists: letter a sends q to letters[a][q]."""
    return torch.tensor(list(zip(*letters)))


def _brute_cycles(perm):
    """The multiset of cycle lengths of a permutation: the length of q's orbit, counted once per orbit."""
    orbit = []
    for q in range(len(perm)):
        n, p = 1, perm[q]
        while p != q:
            p, n = perm[p], n + 1
        orbit.append(n)
    counts = Counter(orbit)
    return sorted((n for n, c in counts.items() for _ in range(c // n)), reverse=True)


def test_the_worked_example_of_the_docstring():
    t = _table([1, 2, 0], [1, 0, 2])  # a = the 3-cycle 0→1→2→0, b = the swap 0↔1
    assert L.cycle_lengths(t) == [[3], [2, 1]]
    assert not L.letters_commute(t)
    assert L.facts(t) == {"states": 3, "letters": 2, "cycles": [[3], [2, 1]], "commute": False}


def test_cycles_and_commutation_of_random_machines_against_brute_force():
    gen = torch.Generator().manual_seed(0)
    for m, k in ((2, 1), (5, 3), (25, 4), (9, 2)):
        perms = [torch.randperm(m, generator=gen).tolist() for _ in range(k)]
        t = _table(*perms)
        assert L.cycle_lengths(t) == [_brute_cycles(p) for p in perms]
        brute = all(perms[b][perms[a][q]] == perms[a][perms[b][q]] for q in range(m) for a in range(k) for b in range(k))
        assert L.letters_commute(t) is brute
    powers = _table([1, 2, 3, 4, 0], [2, 3, 4, 0, 1])  # two powers of one 5-cycle commute
    assert L.letters_commute(powers) and L.cycle_lengths(powers) == [[5], [5]]


def test_the_package_machine_of_x1():
    task = make_task(task_config("fsm", num_states=25, alphabet_size=4, table_seed=0, num_permutation_letters=4))
    perms = [task.table[:, a].tolist() for a in range(4)]
    assert L.cycle_lengths(task.table) == [_brute_cycles(p) for p in perms]
    assert all(sum(c) == 25 for c in L.cycle_lengths(task.table))


def _compose(p, q):
    return tuple(q[i] for i in p)  # first p, then q, on positions


def test_tokens_commute_against_permutations_built_by_hand():
    s3 = make_task(task_config("word_problem", group="S3"))
    assert not L.tokens_commute(s3.mul_table, s3.elements_drawn)
    perms = list(itertools.permutations(range(3)))
    assert any(_compose(a, b) != _compose(b, a) for a in perms for b in perms)  # S3 is not abelian, by hand
    swaps = make_task(task_config("word_problem", group="S5", elements="swaps"))
    assert not L.tokens_commute(swaps.mul_table, swaps.elements_drawn)
    e = next(g for g in range(6) if all(int(s3.mul_table[g, h]) == h for h in range(6)))
    assert L.tokens_commute(s3.mul_table, [e, 3])  # the identity commutes with everything


def _brute_ceiling_group(task, length):
    """Every word of ``length`` tokens: group by token counts, guess each group's most frequent product."""
    drawn = [int(x) for x in task.elements_drawn]
    table = task.mul_table
    groups = defaultdict(Counter)
    identity = next(e for e in range(table.shape[0]) if all(int(table[e, g]) == g for g in range(table.shape[0])))
    for word in itertools.product(drawn, repeat=length):
        g = identity
        for x in word:
            g = int(table[g, x])
        groups[tuple(sorted(word))][g] += 1
    return sum(max(c.values()) for c in groups.values()) / len(drawn) ** length


def _brute_ceiling_table(table, length):
    m, k = table.shape
    groups = defaultdict(Counter)
    for word in itertools.product(range(k), repeat=length):
        q = 0
        for a in word:
            q = int(table[q, a])
        groups[tuple(sorted(word))][q] += 1
    return sum(max(c.values()) for c in groups.values()) / k ** length


def test_count_only_ceiling_against_every_word():
    s3 = make_task(task_config("word_problem", group="S3"))
    dp = L.count_only_ceiling(s3, 4)
    assert dp[1] == pytest.approx(27 / 36)  # theory.commuting's worked example at length 2
    for n in (1, 2, 3, 4):
        assert dp[n - 1] == pytest.approx(_brute_ceiling_group(s3, n), abs=1e-12)
    fsm = make_task(task_config("fsm", num_states=5, alphabet_size=3, table_seed=0, num_permutation_letters=3))
    dp = L.count_only_ceiling(fsm, 5)
    for n in (1, 3, 5):
        assert dp[n - 1] == pytest.approx(_brute_ceiling_table(fsm.table, n), abs=1e-12)


def test_the_ceiling_of_permutation_letters_never_rises():
    for cfg, n in ((task_config("word_problem", group="S3"), 12),
                   (task_config("fsm", num_states=25, alphabet_size=4, table_seed=0, num_permutation_letters=4), 10)):
        c = L.count_only_ceiling(make_task(cfg), n)
        assert all(b <= a + 1e-12 for a, b in zip(c, c[1:])), c


def test_sampling_margin_and_bound_by_hand():
    z = 3.090232306167813  # the normal's 0.999 quantile
    assert L.sampling_margin(0.04, 256) == pytest.approx(z * math.sqrt(0.04 * 0.96 / 256))
    assert L.sampling_margin(0.9, 100) == pytest.approx(z * 0.5 / 10)  # variance 1/4 above p = 1/2
    s3 = make_task(task_config("word_problem", group="S3"))
    c = _brute_ceiling_group(s3, 3)  # 0.634 > 1/2: the margin takes the variance 1/4
    assert c > 0.5 and L.ceiling_bound(s3, 3, 512) == pytest.approx((c + z * 0.5 / math.sqrt(512) - 1 / 6) / (5 / 6))
    c = L.count_only_ceiling(s3, 11)[-1]  # 0.351 < 1/2: the variance c (1 − c)
    assert c < 0.5 and L.ceiling_bound(s3, 11, 512) == pytest.approx(
        (c + z * math.sqrt(c * (1 - c) / 512) - 1 / 6) / (5 / 6))
    with pytest.raises(ValueError, match="n=0"):
        L.sampling_margin(0.5, 0)
