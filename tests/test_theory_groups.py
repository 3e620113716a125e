"""theory.groups: the order of the group a machine's letters generate, against an independent brute force
(every word over the letters up to a length where no new product appears) and hand-known groups."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from statetrack.tasks import make_task, task_config
from statetrack.theory.groups import group_order, letters


def _brute_force_order(table) -> int:
    """Distinct products of every word over the letters, length 0, 1, 2, ... until a length adds nothing."""
    t = torch.as_tensor(table)
    m, k = t.shape
    perms = [t[:, a].tolist() for a in range(k)]
    seen, length = {tuple(range(m))}, 0
    while True:
        length += 1
        new = set()
        for word in itertools.product(range(k), repeat=length):
            state = list(range(m))
            for a in word:
                state = [perms[a][s] for s in state]
            new.add(tuple(state))
        if new <= seen:
            return len(seen)
        seen |= new


def _table(*perms):
    """An (m, k) table whose column a is the permutation perms[a]."""
    return torch.tensor(perms).T


@pytest.mark.parametrize("perms,order", [
    pytest.param([(1, 2, 0)], 3, id="one-3-cycle"),
    pytest.param([(1, 0, 2), (0, 2, 1)], 6, id="two-transpositions-S3"),
    pytest.param([(1, 2, 3, 4, 0)], 5, id="5-cycle-Z5"),
    pytest.param([(1, 2, 3, 4, 0), (0, 4, 3, 2, 1)], 10, id="rotation-and-reflection-D5"),
    pytest.param([(1, 0, 2, 3, 4), (1, 2, 3, 4, 0)], 120, id="transposition-and-5-cycle-S5"),
    pytest.param([(1, 2, 0, 3, 4), (0, 1, 3, 4, 2)], 60, id="two-3-cycles-A5"),
    pytest.param([(0, 1, 2, 3)], 1, id="identity"),
])
def test_order_of_known_groups_and_brute_force(perms, order):
    table = _table(*perms)
    assert group_order(table) == order == _brute_force_order(table)


def test_bl5_machine_generates_s5_and_other_table_seeds_need_not():
    cfg = task_config("fsm", num_states=5, alphabet_size=2, num_permutation_letters=2, table_seed=0)
    table = make_task(cfg).table
    assert group_order(table) == _brute_force_order(table) == math.factorial(5)
    for seed in range(1, 12):
        t = make_task(task_config("fsm", num_states=5, alphabet_size=2, num_permutation_letters=2,
                                  table_seed=seed)).table
        assert group_order(t) == _brute_force_order(t)
        assert math.factorial(5) % group_order(t) == 0  # Lagrange: the order divides |S5|


def test_letters_refuse_a_non_permutation():
    with pytest.raises(ValueError, match="letter 1 is not a permutation"):
        letters(torch.tensor([[1, 0], [0, 0], [2, 2]]))
    with pytest.raises(ValueError, match=r"\(m, k\)"):
        letters(torch.tensor([0, 1, 2]))
