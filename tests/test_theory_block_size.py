"""theory.block_size: which block size b tracks a task, checked against independent computations.

Ground truth is never the construction's own output: the tasks' labels (``Task.sample``), sums
mod m and table walks written here, explicit matrix products, brute-force enumeration of words.
"""

import itertools
import math

import pytest
import torch

from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.theory import block_size as bs
from statetrack.theory.rotations import eventual_period


def explicit_walk(table: list[list[int]], row: list[int], start: int = 0) -> list[int]:
    q, out = start, []
    for a in row:
        q = table[q][a]
        out.append(q)
    return out


def predictions(model, tokens):
    with torch.no_grad():
        return model.double()(tokens).argmax(-1)  # (B, T)


def test_hand_worked_example_of_the_module_docstring():
    task = make_task(task_config("modular_addition", modulus=3))
    model = bs.block_model(task, 2, 2).double()
    x = torch.tensor([[1, 2, 2]])
    with torch.no_grad():
        h = model.states(x)[0]  # (T, 2)
        logits = model.head(h)  # (T, 3)
    s = math.sqrt(3) / 2
    assert torch.allclose(h, torch.tensor([[-0.5, s], [1.0, 0.0], [-0.5, -s]], dtype=torch.float64), atol=1e-12)
    assert torch.allclose(logits, torch.tensor([[-0.5, 1, -0.5], [1, -0.5, -0.5], [-0.5, -0.5, 1]],
                                               dtype=torch.float64), atol=1e-12)


@pytest.mark.parametrize("m", [2, 3, 7, 50])
@pytest.mark.parametrize("b", [2, 3, 4])
def test_rotation_blocks_add_mod_m_to_length_2000(m, b):
    """Against sums mod m computed here, at a length 200× the training lengths, in every block size ≥ 2."""
    task = make_task(task_config("modular_addition", modulus=m))
    x = torch.randint(0, m, (8, 2000), generator=torch.Generator().manual_seed(m))  # (B, T)
    truth = x.cumsum(1) % m  # (B, T)
    rep = bs.rotation_rep(m) if m > 2 else bs.sign_rep()
    assert torch.equal(predictions(bs.block_model(task, b, 4 * b, rep), x), truth)


def test_the_real_diagonal_block_adds_mod_2_only_with_the_sign_flip():
    task = make_task(task_config("modular_addition", modulus=2))
    x = torch.randint(0, 2, (4, 1000), generator=torch.Generator().manual_seed(0))
    assert torch.equal(predictions(bs.block_model(task, 1, 3), x), x.cumsum(1) % 2)
    with pytest.raises(ValueError, match="block_size=1"):
        bs.block_model(make_task(task_config("modular_addition", modulus=3)), 1, 3)


def test_cp_rank_4_holds_a_rotation():
    """The CP factors multiply out to R(2πv/m) exactly (explicit product), and the model adds mod m."""
    task = make_task(task_config("modular_addition", modulus=5))
    model = bs.cp_rotation_model(task)
    A = model.transition_matrices().double()  # (V, 2, 2)
    for v in range(5):
        assert torch.allclose(A[v], bs.rotation(2 * math.pi * v / 5), atol=1e-6)
    x = torch.randint(0, 5, (8, 1000), generator=torch.Generator().manual_seed(1))
    assert torch.equal(predictions(model, x), x.cumsum(1) % 5)


def test_sum_zero_basis_is_orthonormal_and_orthogonal_to_ones():
    for m in (2, 3, 5, 9):
        Q = bs.sum_zero_basis(m)  # (m, m−1)
        assert torch.allclose(Q.T @ Q, torch.eye(m - 1, dtype=torch.float64), atol=1e-12)
        assert torch.allclose(Q.sum(0), torch.zeros(m - 1, dtype=torch.float64), atol=1e-12)


def test_standard_representation_is_a_homomorphism_that_moves_the_codes():
    """ρ(σ)c_q = c_{δ(q,σ)} and ρ(w) = ρ(w_T)⋯ρ(w_1) equals Qᵀ P_w Q for every word of length ≤ 4 (brute force)."""
    task = make_task(task_config("fsm", num_states=5, alphabet_size=2, num_permutation_letters=2, table_seed=0))
    table = task.table.tolist()
    rep = bs.standard_rep(task.table)
    Q = bs.sum_zero_basis(5)
    for a in range(2):
        for q in range(5):
            assert torch.allclose(rep.mats[a] @ rep.codes[q], rep.codes[table[q][a]], atol=1e-12)
    for L in range(1, 5):
        for word in itertools.product(range(2), repeat=L):
            P = torch.eye(5, dtype=torch.float64)
            for a in word:  # explicit permutation matrices built here, not by the module
                step = torch.zeros(5, 5, dtype=torch.float64)
                for q in range(5):
                    step[table[q][a], q] = 1.0
                P = step @ P
            R = torch.eye(4, dtype=torch.float64)
            for a in word:
                R = rep.mats[a] @ R
            assert torch.allclose(R, Q.T @ P @ Q, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
def test_standard_rep_in_a_block_of_size_m_minus_1_tracks_a_permutation_machine(seed):
    """Against the task's own labels and an explicit walk, 1,000 sequences of length 500."""
    task = make_task(task_config("fsm", num_states=6, alphabet_size=3, num_permutation_letters=3, table_seed=seed))
    assert bs.smallest_block(task) == 5
    batch = task.sample(torch.Generator().manual_seed(seed), 1000, 500)
    pred = predictions(bs.block_model(task, 5, 10), batch.inputs)
    assert torch.equal(pred, batch.targets)
    row = batch.inputs[0].tolist()
    assert pred[0].tolist() == explicit_walk(task.table.tolist(), row)


def test_a_machine_with_a_non_permutation_letter_gets_the_one_hot_block():
    task = make_task(task_config("fsm", num_states=5, alphabet_size=3, num_permutation_letters=1, table_seed=2))
    assert not bs.is_permutation_table(task.table) and bs.smallest_block(task) == 5
    with pytest.raises(ValueError, match="permutation"):
        bs.standard_rep(task.table)
    batch = task.sample(torch.Generator().manual_seed(0), 200, 300)
    assert torch.equal(predictions(bs.block_model(task, 5, 10), batch.inputs), batch.targets)


def test_track_reports_the_fraction_of_right_predictions():
    task = make_task(task_config("modular_addition", modulus=4))
    good = bs.track(bs.block_model(task, 2, 4), task, 50, 60, seed=0)
    assert good.acc == 1.0 and good.all_correct and good.b == 2
    z4, z5 = bs.rotation_rep(4), bs.rotation_rep(5)
    wrong = bs.block_model(task, 2, 4, bs.Representation(z5.mats[:4], z4.h0, z4.codes, "wrong angles"))
    bad = bs.track(wrong, task, 50, 60, seed=0)
    assert bad.acc < 0.5 and not bad.all_correct


def test_a_real_diagonal_is_eventually_2_periodic_on_a_constant_word():
    """Brute force: logits Σ c_i w_i^k computed here in fp64 give the same eventual period as the model."""
    torch.manual_seed(0)
    model = make_model(model_config("bilinear", variant="diagonal", d_model=6), 4, 3)
    pred = bs.constant_word_predictions(model, 1, 600)  # (T,)
    w = model.transition.detach().double()[1]  # (H,)
    h0 = model.h0.detach().double()
    R = model.head.weight.detach().double()  # (K, H)
    k = torch.arange(1, 601, dtype=torch.float64)[:, None]  # (T, 1)
    mine = ((w.abs() ** k) * torch.sign(w) ** k * h0) @ R.T  # (T, K): the unnormalized state gives the same argmax
    assert torch.equal(pred, mine.argmax(-1))
    assert int(eventual_period(pred, tail=300)[1]) in (1, 2)
    assert int(eventual_period(torch.tensor([0, 1, 2] * 100), tail=150)[1]) == 3
    assert int(eventual_period(torch.arange(100), tail=50)[1]) == -1


def test_count_only_ceiling_matches_brute_force_enumeration():
    task = make_task(task_config("fsm", num_states=5, alphabet_size=2, num_permutation_letters=2, table_seed=0))
    table = task.table.tolist()
    ceiling = bs.count_only_ceiling(task.table, 8)
    for L in range(1, 9):
        groups: dict[tuple[int, int], list[int]] = {}
        for word in itertools.product(range(2), repeat=L):
            groups.setdefault((word.count(0), word.count(1)), []).append(explicit_walk(table, list(word))[-1])
        best = sum(max(states.count(q) for q in set(states)) for states in groups.values())
        assert ceiling[L - 1] == pytest.approx(best / 2**L, abs=1e-12)
    assert ceiling[0] == 1.0  # one letter: its count is the word


def test_bad_input_names_the_value():
    task = make_task(task_config("modular_addition", modulus=5))
    with pytest.raises(ValueError, match="m=1"):
        bs.rotation_rep(1)
    with pytest.raises(ValueError, match="block_size=0"):
        bs.block_model(task, 0, 4)
    with pytest.raises(ValueError, match="num_seqs=0"):
        bs.track(bs.block_model(task, 2, 4), task, 0, 10, seed=0)
    with pytest.raises(ValueError, match="parity"):
        bs.smallest_rep(make_task(task_config("parity")))
    with pytest.raises(ValueError, match="'fsm'"):
        bs.cp_rotation_model(make_task(task_config("fsm")))
    with pytest.raises(ValueError, match="dtype"):
        bs.permutation_matrices(torch.zeros(3, 2))
