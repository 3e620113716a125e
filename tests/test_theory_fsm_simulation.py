"""BL Prop. 1 by construction: the bilinear model with W[:, :, σ] = T_σ tracks random FSMs exactly.

Ground truth is never the construction's own output: the fsm task's labels (its ``walk``), an explicit
table walk written here, explicit matrix products, and hand-worked examples.
"""

import pytest
import torch

from statetrack.tasks import make_task, task_config
from statetrack.theory import fsm_simulation as fs
from statetrack.theory.threads import single_thread


def explicit_walk(table: list[list[int]], row: list[int], start: int = 0) -> list[int]:
    q, out = start, []
    for a in row:
        q = table[q][a]
        out.append(q)
    return out


def test_transition_matrices_move_one_hot_states_like_the_table():
    task = make_task(task_config("fsm", num_states=6, alphabet_size=3, table_seed=5))
    T = fs.transition_matrices(task.table)  # (k, m, m)
    for a in range(3):
        for q in range(6):
            assert torch.equal(T[a] @ torch.eye(6)[q], torch.eye(6)[int(task.table[q, a])])
    assert torch.equal(T.sum(1), torch.ones(3, 6))  # one 1 per column: a map, not a relation


def test_hand_worked_example_of_the_module_docstring():
    table = torch.tensor([[1, 0], [2, 0], [0, 2]])  # the fsm task's docstring machine
    model = fs.fsm_bilinear(table)
    with torch.no_grad():
        h = model.states(torch.tensor([[0, 0, 1, 0, 0]]))  # (1, T, H)
    assert h[0].argmax(-1).tolist() == [1, 2, 2, 0, 1]
    assert torch.equal(h[0], torch.eye(3)[[1, 2, 2, 0, 1]])


@pytest.mark.parametrize("backend", ["fast", "reference"])
def test_construction_tracks_a_machine_for_10000_steps(backend):
    """Against an explicit table walk (not the task's walk): exactly one-hot, no drift, either normalization."""
    task = make_task(task_config("fsm", num_states=7, alphabet_size=4, table_seed=3, num_permutation_letters=2))
    letters = task.sample(torch.Generator().manual_seed(0), 2, 10_000).inputs  # (B, T)
    walked = torch.tensor([explicit_walk(task.table.tolist(), row) for row in letters.tolist()])  # (B, T)
    for normalize in ("every_step", "none"):
        model = fs.fsm_bilinear(task.table, normalize=normalize, backend=backend)
        with torch.no_grad():
            states = model.states(letters)  # (B, T, H)
            predictions = model(letters).argmax(-1)  # (B, T)
        assert torch.equal(predictions, walked)
        assert torch.equal(states, torch.nn.functional.one_hot(walked, 7).float())


def test_random_machines_cover_the_ranges_with_and_without_permutation_letters():
    tasks = fs.random_machines(40, seed=0)
    sizes = [(t.cfg.num_states, t.cfg.alphabet_size, t.cfg.num_permutation_letters) for t in tasks]
    assert all(5 <= m <= 50 and 2 <= k <= 10 and 0 <= p <= k for m, k, p in sizes)
    assert sum(p == 0 for _, _, p in sizes) == 20 and sum(p > 0 for _, _, p in sizes) == 20
    for t in tasks[1::2]:  # the permutation letters really are permutations
        for a in range(t.cfg.num_permutation_letters):
            assert sorted(t.table[:, a].tolist()) == list(range(t.cfg.num_states))


def test_track_counts_against_the_task_labels():
    task = fs.random_machines(2, seed=4)[1]
    r = fs.track(task, num_seqs=20, length=300, seed=0)
    assert r.acc == {"every_step": 1.0, "none": 1.0} and all(r.one_hot.values()) and r.identical
    assert r.row()["states"] == task.cfg.num_states


@pytest.mark.slow
def test_thousand_words_of_ten_thousand_letters():
    """The issue's full size: >= 1,000 random words of 10^4 letters over 20 random machines (about 45 s)."""
    with single_thread():
        rows = [fs.track(task, 50, 10_000, seed=1) for task in fs.random_machines(20, seed=1)]
    assert sum(r.num_seqs for r in rows) >= 1000
    assert all(r.acc == {"every_step": 1.0, "none": 1.0} and all(r.one_hot.values()) and r.identical for r in rows)


def test_pure_model_is_scale_invariant_and_additive_is_not():
    task = fs.random_machines(2, seed=2)[1]
    words = task.sample(torch.Generator().manual_seed(1), 16, 100).inputs  # (B, T)
    pure = fs.fsm_bilinear(task.table, normalize="none")
    assert fs.scale_changes(pure, words, [1e-3, 0.5, 1e3]) == [0.0, 0.0, 0.0]
    affine = fs.perturbed_additive(fs.fsm_bilinear(task.table, normalize="none", additive=True), seed=0)
    assert max(fs.scale_changes(affine, words, [1e-3, 1e3])) > 0.0
    # The perturbed copy is a copy: the original's additive term is still zero, so it still tracks.
    zero = fs.fsm_bilinear(task.table, normalize="none", additive=True)
    with torch.no_grad():
        assert torch.equal(zero(words).argmax(-1), pure(words).argmax(-1))


def test_additive_hand_example():
    """h_1 = c e_0 + (0, 1): state 0 wins for c > 1, state 1 for c < 1 (worked out in the module docstring)."""
    assert [fs.additive_scale_example(c) for c in (0.5, 0.99, 1.01, 2.0, 100.0)] == [1, 1, 0, 0, 0]


def test_synchronisation_of_permutation_and_uniform_machines():
    perm = make_task(task_config("fsm", num_states=6, alphabet_size=3, num_permutation_letters=3))
    words = perm.sample(torch.Generator().manual_seed(0), 50, 60).inputs  # (B, T)
    assert fs.synchronised_fraction(perm.table, words, [1, 30, 60]) == [0.0, 0.0, 0.0]
    # A machine with a constant letter (every state -> 0): synchronised by any window containing that letter.
    table = torch.tensor([[1, 0], [2, 0], [0, 0]])
    words = torch.tensor([[0, 0, 1, 0], [1, 0, 0, 0]])
    assert fs.synchronised_fraction(table, words, [1, 2, 3, 4]) == [0.0, 0.5, 0.5, 1.0]


@pytest.mark.parametrize("call,needle", [
    pytest.param(lambda: fs.transition_matrices(torch.tensor([[0.5, 1.0]])), "dtype torch.float32", id="float"),
    pytest.param(lambda: fs.transition_matrices(torch.tensor([[0, 3], [1, 0]])), "found 0..3", id="range"),
    pytest.param(lambda: fs.fsm_bilinear(torch.tensor([[0], [1]]), start=2), "start=2", id="start"),
    pytest.param(lambda: fs.random_machines(0, seed=0), "count=0", id="count"),
    pytest.param(lambda: fs.track(fs.random_machines(1, 0)[0], 0, 5, 0), "num_seqs=0", id="num-seqs"),
    pytest.param(lambda: fs.synchronised_fraction(torch.tensor([[0], [1]]), torch.zeros(2, 5, dtype=torch.long),
                                                  [6]), "w=6", id="window"),
])
def test_bad_input_names_the_value(call, needle):
    with pytest.raises(ValueError, match=needle.replace(".", r"\.")):
        call()
