"""theory.word_problems: representations, the delay line, hand-set trackers (S5 variants, Z60) against the task's
labels, reflection counts against a breadth-first search, and the Z60 reflection pairs."""

import itertools
import math

import pytest
import torch

from statetrack.config import ConfigError
from statetrack.tasks import make_task, task_config
from statetrack.theory import word_problems as wp

VARIANTS = [
    pytest.param(dict(group="S5", elements="swaps"), id="S5-swaps"),
    pytest.param(dict(group="S5", elements="swaps_3cycles"), id="S5-swaps_3cycles"),
    pytest.param(dict(group="S5"), id="S5-all"),
    pytest.param(dict(group="S5", tokens_per_element=4), id="S5-4tokens"),
    pytest.param(dict(group="Z60"), id="Z60"),
    pytest.param(dict(group="Z60", tokens_per_element=2), id="Z60-2tokens"),
]


@pytest.mark.parametrize("group", ["S5", "Z60"])
def test_representation_multiplies_like_the_tasks_table_and_h0_has_a_free_orbit(group):
    task = make_task(task_config("word_problem", group=group))
    rho, h0 = wp.representation(task)
    table = task.mul_table
    products = torch.einsum("bij,ajk->abik", rho, rho)  # (|G|, |G|, r, r) [a, b] = ρ(b)ρ(a): apply a first
    assert torch.allclose(products, rho[table], atol=1e-12)  # = ρ(a·b), the task's table
    orbit = rho @ h0  # (|G|, r)
    gaps = torch.cdist(orbit, orbit) + torch.eye(len(orbit)) * 10
    assert float(gaps.min()) > 0.05  # no two elements move h_0 to the same point
    assert torch.allclose(orbit.norm(dim=-1), torch.ones(len(orbit), dtype=torch.float64))


def test_delay_line_lands_the_change_on_the_last_blank():
    rho = torch.tensor([[[0.0, -1.0], [1.0, 0.0]]], dtype=torch.float64)  # one element: a quarter turn
    el, blank = wp.delay_line(rho, 4)
    h = torch.zeros(8, dtype=torch.float64)
    h[:2] = torch.tensor([1.0, 0.0])
    readouts = []
    for A in (el[0], blank, blank, blank):
        h = A @ h
        readouts.append(h[:2].tolist())
    assert readouts == [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]  # (1, 0) turned by 90° after 3 blanks
    el1, blank1 = wp.delay_line(rho, 1)
    assert torch.equal(el1, rho) and torch.equal(blank1, torch.eye(2, dtype=torch.float64))


@pytest.mark.parametrize("fields", VARIANTS)
def test_full_matrix_tracker_matches_the_tasks_labels(fields):
    cfg = task_config("word_problem", **fields)
    res = wp.track(wp.full_matrix_tracker(cfg), cfg, num_seqs=1000, length=500, seed=3)
    assert res.acc == 1.0 and res.seq_acc == 1.0


def test_tracker_for_one_token_fails_when_elements_take_four():
    """The delay line matters: the k = 1 weights answer three tokens early on the 4-token task."""
    one = wp.full_matrix_tracker(task_config("word_problem", group="S5"))
    res = wp.track(one, task_config("word_problem", group="S5", tokens_per_element=4), num_seqs=200, length=40)
    assert res.seq_acc == 0.0 and res.acc < 0.5


def test_tracker_weights_are_the_permutation_matrices():
    cfg = task_config("word_problem", group="S5")
    model = wp.full_matrix_tracker(cfg)
    task = make_task(cfg)
    p = task.permutations[7]
    A = model.transition_matrices()[7].double()  # (32, 32)
    for j in range(5):
        assert A[p[j], j] == 1 and A[:5, j].sum() == 1  # column j has its one 1 in row p[j]
    assert torch.equal(A[5:, 5:], torch.eye(27, dtype=torch.float64))


def _swap_distance() -> dict[tuple[int, ...], int]:
    """Breadth-first search over S5 from the identity, one transposition per edge."""
    dist = {tuple(range(5)): 0}
    frontier = [tuple(range(5))]
    while frontier:
        nxt = []
        for p in frontier:
            for i, j in itertools.combinations(range(5), 2):
                q = list(p)
                q[i], q[j] = q[j], q[i]
                if tuple(q) not in dist:
                    dist[tuple(q)] = dist[p] + 1
                    nxt.append(tuple(q))
        frontier = nxt
    return dist


@pytest.mark.parametrize("elements,most", [("swaps", 1), ("swaps_3cycles", 2), ("all", 4)])
def test_factors_needed_equals_search_and_rank(elements, most):
    task = make_task(task_config("word_problem", group="S5", elements=elements))
    got = wp.factors_needed(task)
    dist = _swap_distance()
    rho, _ = wp.representation(task)
    for e, f in zip(task.elements_drawn.tolist(), got.tolist()):
        assert f == dist[task.permutations[e]]
        assert f == int(torch.linalg.matrix_rank(rho[e] - torch.eye(5, dtype=torch.float64)))
    assert int(got.max()) == most


def test_every_swap_has_eigenvalue_minus_one():
    task = make_task(task_config("word_problem", group="S5", elements="swaps"))
    low = wp.lowest_eigenvalue(task)
    assert low[0] == pytest.approx(1.0) and torch.allclose(low[1:], torch.full((10,), -1.0, dtype=torch.float64))


def test_two_reflections_make_the_rotation():
    """F_0 F_x (blank after element x) is R(2πx/60), built here from the reflection formula I − 2nnᵀ."""
    def reflection(angle):
        n = torch.tensor([-math.sin(angle), math.cos(angle)], dtype=torch.float64)
        return torch.eye(2, dtype=torch.float64) - 2 * torch.outer(n, n)

    for x in (0, 1, 7, 30, 59):
        th = 2 * math.pi * x / 60
        R = torch.tensor([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]], dtype=torch.float64)
        assert torch.allclose(reflection(0.0) @ reflection(-math.pi * x / 60), R, atol=1e-12)


def test_reflection_pairs_track_z60_with_two_tokens():
    res = wp.track_reflection_pairs(num_seqs=1000, length=500, seed=1)
    assert res.acc == 1.0 and res.seq_acc == 1.0
    task = make_task(task_config("word_problem", group="Z60", tokens_per_element=2))
    batch = task.sample(torch.Generator().manual_seed(0), 4, 6)
    assert torch.equal(wp.reflection_pairs(batch.inputs), batch.targets)


def test_bad_input_is_named():
    with pytest.raises(ConfigError, match="'S3'"):
        wp.representation(make_task(task_config("word_problem", group="S3")))
    with pytest.raises(ConfigError, match="d_model=8"):
        wp.full_matrix_tracker(task_config("word_problem", group="S5", tokens_per_element=4), d_model=8)
    with pytest.raises(ConfigError, match="num_seqs=0"):
        wp.track_reflection_pairs(num_seqs=0)
    with pytest.raises(ConfigError, match="0..60"):
        wp.reflection_pairs(torch.tensor([[61, 0]]))
    with pytest.raises(ConfigError, match="k=0"):
        wp.delay_line(torch.eye(2).unsqueeze(0), 0)
    with pytest.raises(ConfigError, match="'Z60'"):
        wp.factors_needed(make_task(task_config("word_problem", group="Z60")))
