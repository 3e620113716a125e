"""theory.synchronization against brute force: every start state walked through the fsm task's own ``walk``."""

import itertools
from collections import Counter

import pytest
import torch

from statetrack.tasks import make_task, task_config
from statetrack.tasks.fsm import walk
from statetrack.theory import synchronization as sy

DOC_TABLE = torch.tensor([[1, 0], [2, 0], [0, 2]])  # the fsm task's docstring machine


def _machine(m, k, p, seed=0):
    return make_task(task_config("fsm", num_states=m, alphabet_size=k, num_permutation_letters=p,
                                 table_seed=seed)).table


def _end_states(table, word):
    """δ(q, word) for every q by the task's own walk, one start state at a time (the oracle)."""
    letters = torch.tensor([word])
    return [int(walk(table, letters, start=q)[0, -1]) for q in range(table.shape[0])]


def test_docstring_example():
    assert sy.permutation_letters(DOC_TABLE).tolist() == [True, False]
    assert sy.synchronizing_fraction(DOC_TABLE, 2, exact=True) == 0.0
    assert sy.synchronizing_fraction(DOC_TABLE, 3, exact=True) == 1 / 8
    assert sy.image_sizes(DOC_TABLE, torch.tensor([[1, 0, 1], [0, 1, 0]])).tolist() == [1, 2]


@pytest.mark.parametrize("m,k,p,w", [(4, 2, 0, 6), (5, 3, 1, 5), (6, 3, 3, 4), (7, 2, 0, 9)])
def test_exact_fraction_equals_brute_force(m, k, p, w):
    table = _machine(m, k, p, seed=m)
    count = sum(len(set(_end_states(table, list(u)))) == 1 for u in itertools.product(range(k), repeat=w))
    assert sy.synchronizing_fraction(table, w, exact=True) == pytest.approx(count / k ** w, abs=1e-15)


def test_sampled_fraction_is_the_fraction_of_its_own_words():
    table = _machine(8, 3, 0, seed=3)
    words = sy.random_words(3, 7, 200, seed=5)  # the words the estimate uses
    count = sum(len(set(_end_states(table, u.tolist()))) == 1 for u in words)
    assert sy.synchronizing_fraction(table, 7, num_words=200, seed=5) == pytest.approx(count / 200, abs=1e-15)


def test_permutation_machine_never_synchronises():
    table = _machine(9, 4, 4, seed=1)
    assert sy.permutation_letters(table).all()
    words = sy.random_words(4, 50, 300, seed=0)
    assert (sy.image_sizes(table, words) == 9).all()


def test_state_prior_equals_counting_all_words():
    table = _machine(5, 3, 1, seed=2)
    n = 6
    ends = Counter(int(walk(table, torch.tensor([list(u)]))[0, -1]) for u in itertools.product(range(3), repeat=n))
    brute = torch.tensor([ends[q] / 3 ** n for q in range(5)], dtype=torch.float64)
    assert torch.allclose(sy.state_prior(table, n), brute, atol=1e-14)


@pytest.mark.parametrize("m,k,p", [(4, 2, 0), (5, 3, 2), (6, 2, 2)])
def test_window_ceiling_equals_the_bayes_predictor_over_all_words(m, k, p):
    """Brute force: enumerate every word of length L, group by its last w letters, guess each group's most
    frequent true state (the best any w-letter predictor can do); compare with the exact ceiling."""
    table = _machine(m, k, p, seed=7)
    L, w = 8, 3
    groups: dict[tuple, Counter] = {}
    for u in itertools.product(range(k), repeat=L):
        groups.setdefault(u[-w:], Counter())[int(walk(table, torch.tensor([list(u)]))[0, -1])] += 1
    best = sum(c.most_common(1)[0][1] for c in groups.values()) / k ** L
    assert sy.window_ceiling(table, w, L, exact=True) == pytest.approx(best, abs=1e-12)


def test_permutation_ceiling_is_the_prior_max_for_every_window():
    table = _machine(6, 3, 3, seed=4)
    top = sy.state_prior(table, 40 - 5).max().item()
    assert sy.window_ceiling(table, 5, 40, exact=True) == pytest.approx(top, abs=1e-12)


def test_transition_probs_are_stochastic():
    M = sy.transition_probs(_machine(10, 4, 0))
    assert torch.allclose(M.sum(1), torch.ones(10, dtype=torch.float64))


@pytest.mark.parametrize("call,match", [
    (lambda: sy.synchronizing_fraction(torch.tensor([[0, 3]]), 2), "must lie in"),
    (lambda: sy.synchronizing_fraction(torch.tensor([[0.0]]), 2), "LongTensor"),
    (lambda: sy.window_ceiling(DOC_TABLE, 0, 10), "w=0"),
    (lambda: sy.window_ceiling(DOC_TABLE, 11, 10), "w=11"),
    (lambda: sy.image_sizes(DOC_TABLE, torch.tensor([[0, 2]])), "letters must lie"),
    (lambda: sy.all_words(4, 20), "k=4, w=20"),
    (lambda: sy.state_prior(DOC_TABLE, -1), "n=-1"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()
