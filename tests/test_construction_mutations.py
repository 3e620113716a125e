"""Every exact statement could have failed: one mutated input of the paper's setting fails one of its checks.

Each exact statement of every claim (``s.checks is not None``) is either in ``MUTATIONS`` here, or marked
``implementation=True`` in its claim (it can fail only through a bug of ours). A mutation case builds the statement's
checks twice through the same theory functions, at small sizes in fp64 where the check allows it: once with the
paper's setting (every check matching the statement's pattern holds, and some check matches) and once with ONE input
changed (some matching check fails). Where a claim's ``checks`` takes its exact part (``part``), the case hands it a
part computed with the changed input; elsewhere the case builds the check row with the claim's label and predicate.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fnmatch import fnmatchcase

import pytest
import torch

from statetrack.check import Check
from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.models import make_model, model_config
from statetrack.tasks import make_task, task_config
from statetrack.tasks.base import IGNORE
from statetrack.theory import additive_terms as at
from statetrack.theory import arithmetic_automaton as aa
from statetrack.theory import block_size as bs
from statetrack.theory import commuting as cm
from statetrack.theory import frozen_diagonal as fd
from statetrack.theory import fsm_simulation as fs
from statetrack.theory import householder as hh
from statetrack.theory import layered_counting as lc
from statetrack.theory import modular_arithmetic as ma
from statetrack.theory import rotations as rot
from statetrack.theory import spectral_readings as sr
from statetrack.theory import word_problems as wp

PRESET = "smoke"
Build = Callable[[bool], list[Check]]  # mutated? → the statement's checks


def _check(label: str, passed: bool, value: float = float("nan")) -> Check:
    return Check(label=label, value=float(value), rule="", passed=bool(passed))


def _diagonal_only(model: torch.nn.Module) -> torch.nn.Module:
    """A full bilinear model with every transition cut to its diagonal: W[:,:,σ] = diag(T_σ)."""
    with torch.no_grad():
        model.transition.copy_(torch.diag_embed(torch.diagonal(model.transition, dim1=-2, dim2=-1)))
    return model


# ----------------------------------------------------------------------------- ne2 (NE Thm 2, 3, 6 on 1^k)


def ne2_one_layer(mutated: bool) -> list[Check]:
    """Real diagonal orbits on 1^k end with period 1 or 2; mutated: the transition has the eigenvalues e^{±2πi/3}."""
    if mutated:
        periods = rot.eventual_period(rot.rotation_orbit(3, 50, torch.float64).unsqueeze(1))[1]
    else:
        periods = rot.diagonal_periods(50, torch.float64, seed=0)["period"]
    ok = bool((periods > 0).all()) and set(periods.tolist()) <= {1, 2}
    return [_check("Thm 2, one layer (real diagonal), fp64: best readout acc on 1^k", ok)]


def ne2_two_layers(mutated: bool) -> list[Check]:
    """Two real layers end with a period dividing 4; mutated: layer 2 rotates (the non-real family)."""
    r = lc.real_two_layer_periods(32, 2048, torch.float32, seed=0, family="rotation" if mutated else "diagonal", m=3)
    ok = r.powers_of_two and r.exceptions == 0 and r.max_product_imag == 0 and r.alternating_inputs > 0
    return [_check("Thm 2, two layers (real diagonal layer 2 driven by layer 1), fp32: best readout acc on 1^k",
                   ok and r.best_acc == rot.best_readout_accuracy(4, 3), r.best_acc)]


def ne2_rotation(mutated: bool) -> list[Check]:
    """The rotation by 2π/3 counts k mod 3; mutated: the rotation by π (the angle of m = 2)."""
    steps = 300
    states = rot.rotation_orbit(2 if mutated else 3, steps, torch.float64)
    wrong = int((rot.rotation_readout(states, 3) != torch.arange(steps + 1) % 3).sum())
    return [_check("Thm 3, Z3 as a rotation by 2π/3, fp64: wrong counts", wrong == 0, wrong)]


def ne2_reflections(mutated: bool) -> list[Check]:
    """Thm 6's two reflection layers count 1^k mod 3; mutated: the reflections' angles are those for m = 2."""
    steps = 300
    pred, _, _ = hh.reflection_adder(torch.ones(1, steps, dtype=torch.long), 2 if mutated else 3)
    acc = float((pred[0] == torch.arange(1, steps + 1) % 3).double().mean())
    return [_check(f"Thm 6 on 1^k: two reflection layers count mod 3 (k ≤ {steps:,}, fp64)", acc == 1.0, acc)]


# ----------------------------------------------------------------------------- ne3 (NE Prop 1, Thm 3, 4, 6)


def ne3_norm(mutated: bool) -> list[Check]:
    """GH products with β ∈ [0, 2] have norm ≤ 1; mutated: β drawn in [0, 3] (an eigenvalue 1 − β below −1)."""
    gen = torch.Generator().manual_seed(0)
    keys = torch.nn.functional.normalize(torch.randn(200, 2, 3, generator=gen, dtype=torch.float64), dim=-1)
    beta = (3.0 if mutated else 2.0) * torch.rand(200, 2, generator=gen, dtype=torch.float64)  # (N, k)
    norm = hh.spectrum(hh.gh_product(keys, beta)).max_norm
    return [_check("Prop 1.1: every product (k = 2; β ∈ [0,2]) has ‖A‖₂ ≤ 1", norm <= 1 + 1e-12, norm)]


def ne3_spectra(mutated: bool) -> list[Check]:
    """Two GH factors with β ∈ [0, 1] keep real eigenvalues in [0, 1]; mutated: β ∈ [0, 2]."""
    s = hh.spectrum(hh.sample_gh_products(200, 3, 2, 2.0 if mutated else 1.0, seed=0))
    worst = max(s.max_imag, -s.min_real, s.max_real - 1)
    return [_check("Prop 1.3: β ∈ [0,1], k ≤ 2 factors: every eigenvalue real and in [0, 1]",
                   worst <= hh.COMPLEX_TOL, worst)]


def ne3_factors(mutated: bool) -> list[Check]:
    """A swap of S5 is I − 2vvᵀ, v = (e_i − e_j)/√2; mutated: β = 1 instead of 2 (a [0, 1] factor)."""
    perms = make_task(task_config("word_problem", group="S5")).permutations
    swaps = [p for p in perms if sum(i != j for i, j in enumerate(p)) == 2]
    matches = 0
    for p in swaps:
        i, j = [r for r in range(5) if p[r] != r]
        v = torch.zeros(1, 1, 5, dtype=torch.float64)
        v[0, 0, i], v[0, 0, j] = 2 ** -0.5, -(2 ** -0.5)
        A = hh.gh_product(v, torch.tensor([[1.0 if mutated else 2.0]], dtype=torch.float64))[0]
        matches += bool(torch.allclose(A, hh.permutation_matrix(p), atol=1e-12))
    return [_check("Prop 1.2 on S5: each transposition (the task's ids) is I − 2vvᵀ, v = (e_i − e_j)/√2",
                   matches == len(swaps), matches)]


def ne3_groups(mutated: bool) -> list[Check]:
    """Two reflections per token (keys at angle θ/2) rotate by θ = 2π/3; mutated: β = 1 (DeltaProduct [0, 1])."""
    theta = 2 * math.pi / 3
    keys = torch.tensor([[[1.0, 0.0, 0.0, 0.0], [math.cos(theta / 2), math.sin(theta / 2), 0.0, 0.0]]],
                        dtype=torch.float64)  # (1, 2, 4): the keys of rotation_deltaproduct
    A = hh.gh_product(keys, torch.full((1, 2), 1.0 if mutated else 2.0, dtype=torch.float64))[0]
    ev = torch.linalg.eigvals(A)
    want = torch.tensor([complex(math.cos(theta), math.sin(theta)), complex(math.cos(theta), -math.sin(theta))])
    dev = float(max((ev - w).abs().min() for w in want))
    return [_check("Thm 3, Z3 as two reflections per token: DeltaProduct n_h = 2, hand-set keys, eigenvalues "
                   "e^{±2πi/3}", dev <= 1e-6, dev)]


def ne3_cascades(mutated: bool) -> list[Check]:
    """A reset letter is n GH factors with keys e_1..e_n and product 0 at β = 1; mutated: β = 2 (reflections)."""
    n = 5
    A = hh.gh_product(torch.eye(n, dtype=torch.float64)[None], torch.full((1, n), 2.0 if mutated else 1.0,
                                                                          dtype=torch.float64))[0]
    return [_check(f"Thm 4: a reset letter is {n} GH factors (β = 1, keys e_1..e_{n}) with product exactly 0",
                   bool((A == 0).all()), float(A.abs().max()))]


def ne3_adders(mutated: bool) -> list[Check]:
    """Two reflection layers add mod 3 (the task's labels); mutated: the reflections' angles are those for m = 4."""
    batch = make_task(task_config("modular_addition", modulus=3)).sample(torch.Generator().manual_seed(0), 20, 200)
    pred, _, _ = hh.reflection_adder(batch.inputs, 4 if mutated else 3)
    acc = float((pred == batch.targets).double().mean())
    return [_check("Thm 6: two reflection layers add mod 3 (20 seqs × 200 steps, fp64)", acc == 1.0, acc)]


# ----------------------------------------------------------------------------- ne4, bl1, bl4 (automata, hand-set)


def _full_model_acc(model, inputs: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> tuple[float, bool]:
    """Accuracy of a hand-set bilinear model's head at ``mask`` and whether every state is one-hot."""
    with torch.no_grad():
        h = model.states(inputs)  # (B, T, H)
        pred = model.head(h).argmax(-1)  # (B, T)
    one_hot = bool(((h == 0) | (h == 1)).all() and (h.sum(-1) == 1).all())
    return float((pred[mask] == targets[mask]).double().mean()), one_hot


def ne4_automaton(mutated: bool) -> list[Check]:
    """The mod-5 arithmetic automaton as a full bilinear model is exact; mutated: its transitions cut to diagonals."""
    task = make_task(task_config("modular_arithmetic", modulus=5, brackets=False, format="ne"))
    batch = task.sample_range(torch.Generator().manual_seed(0), 50, 8, 32)
    model = ma.arithmetic_bilinear(ma.machine(5)).double()
    acc, one_hot = _full_model_acc(_diagonal_only(model) if mutated else model, batch.inputs, batch.targets,
                                   batch.mask)
    return [_check("automaton through bilinear model: acc", acc == 1.0, acc),
            _check("automaton: states exactly one-hot", one_hot)]


def ne4_word_spectra(mutated: bool) -> list[Check]:
    """ne4's own checks on the words '× 4' and '+ 1'; mutated: '× 1' in place of '× 4' (no eigenvalue −1)."""
    from statetrack.claims.ne4 import claim as ne4

    mach, words = ma.machine(ne4.MODULUS), {}
    for name, (first, op, digit) in ne4.WORDS.items():
        if mutated and name == "× 4":
            digit = 1
        answers = ma.word_answers(ne4.MODULUS, first, op, digit, 11)
        p = int(rot.eventual_period(torch.tensor(answers), max_period=len(answers) - 1, tail=None)[1])
        ev = ma.spectrum(ma.word_matrix(mach, op, digit))
        words[name] = {"answers": answers, "period": p if p > 0 else len(answers), "spectrum": ev,
                       "dist_to_minus_one": float((ev + 1).abs().min()), "max_imag": float(ev.imag.abs().max())}
    return ne4.checks(PRESET, {"tracking": ma.track(ne4.MODULUS, 20, 8, 16, seed=0), "words": words})


def bl1_construction(mutated: bool) -> list[Check]:
    """W[:,:,σ] = T_σ, h_0 = e_q0 tracks the machine; mutated: a diagonal bilinear W (T_σ's diagonal)."""
    task = fs.random_machines(2, seed=0)[1]
    batch = task.sample(torch.Generator().manual_seed(0), 16, 100)
    model = fs.fsm_bilinear(task.table, normalize="none")
    acc, one_hot = _full_model_acc(_diagonal_only(model) if mutated else model, batch.inputs, batch.targets,
                                   torch.ones_like(batch.targets, dtype=torch.bool))
    return [_check("construction: acc (no norm)", acc == 1.0, acc),
            _check("construction: states exactly one-hot", one_hot)]


def bl1_additive(mutated: bool) -> list[Check]:
    """With B x + b drawn ~ N(0, 0.3²), h_0 → c·h_0 changes predictions; mutated: B = 0, b = 0 (no additive term)."""
    from statetrack.claims.bl1 import claim as bl1

    task = fs.random_machines(2, seed=99)[1]
    words = task.sample(torch.Generator().manual_seed(7), 32, 100).inputs
    affine = fs.fsm_bilinear(task.table, normalize="none", additive=True)
    changes = fs.scale_changes(affine if mutated else fs.perturbed_additive(affine, seed=0), words, bl1.SCALES)
    return [_check("additive: h0 scaling changes (max)", max(changes) > 0.0, max(changes))]


def bl4_tracking(mutated: bool) -> list[Check]:
    """The m²-state construction (H = m²) answers every step; mutated: its transitions cut to diagonals."""
    m = 3
    task = make_task(task_config("modular_arithmetic", modulus=m, format="per_step"))
    batch = task.sample(torch.Generator().manual_seed(m), 50, 50)
    model = aa.arithmetic_bilinear(m, normalize="none").double()
    acc, one_hot = _full_model_acc(_diagonal_only(model) if mutated else model, batch.inputs, batch.targets,
                                   batch.targets != IGNORE)
    return [_check("tracking: bilinear construction H = m² (none)", acc == 1.0, acc),
            _check("tracking: construction states exactly one-hot", one_hot)]


# ----------------------------------------------------------------------------- ne5, ne6 (S5 and Z60 trackers)


def ne5_trackers(mutated: bool) -> list[Check]:
    """The hand-set full tracker (H = 32) follows S5's swaps; mutated: its transitions cut to diagonals."""
    cfg = task_config("word_problem", group="S5", elements="swaps")
    model = wp.full_matrix_tracker(cfg, d_model=32)
    res = wp.track(_diagonal_only(model) if mutated else model, cfg, num_seqs=50, length=64)
    return [_check("hand-set full matrix (H=32) tracks swaps only: seq acc @64", res.seq_acc == 1.0, res.seq_acc)]


def ne6_rotations(mutated: bool) -> list[Check]:
    """The hand-set full tracker (2×2 rotations) follows Z60; mutated: its transitions cut to diagonals."""
    cfg = task_config("word_problem", group="Z60", tokens_per_element=1)
    model = wp.full_matrix_tracker(cfg, d_model=32)
    res = wp.track(_diagonal_only(model) if mutated else model, cfg, num_seqs=50, length=64)
    return [_check("hand-set full matrix (rotations, H=32), 1 token per element: seq acc @64", res.seq_acc == 1.0,
                   res.seq_acc)]


def ne6_reflection_pairs(mutated: bool) -> list[Check]:
    """One reflection per token with 2 tokens per element tracks Z60; mutated: 1 token (one reflection) per element."""
    task = make_task(task_config("word_problem", group="Z60", tokens_per_element=1 if mutated else 2))
    batch = task.sample(torch.Generator().manual_seed(0), 50, 64)
    seq_acc = float((wp.reflection_pairs(batch.inputs, 60, torch.float64) == batch.targets).all(1).double().mean())
    return [_check("one reflection per token (delta rule, β = 2), 2 tokens per element: seq acc @64",
                   seq_acc == 1.0, seq_acc)]


# ----------------------------------------------------------------------------- bl2, bl5 (block sizes)


def bl2_hand_set(mutated: bool) -> list[Check]:
    """Block b = 2 (a rotation by 2πv/3) adds mod 3; mutated: the same blocks cut to their diagonals (b = 1)."""
    task = make_task(task_config("modular_addition", modulus=3))
    model = bs.block_model(task, 2, 4)
    t = bs.track(_diagonal_only(model) if mutated else model, task, 50, 100, seed=3)
    return [_check("block-diagonal b=2 hand-set, m=3", t.all_correct, t.acc)]


def _period_on_ones(model, length: int) -> int:
    return int(rot.eventual_period(bs.constant_word_predictions(model, 1, 4 * length), tail=length)[1])


def bl2_diagonal_limit(mutated: bool) -> list[Check]:
    """A random real diagonal's prediction on 1^k is 1- or 2-periodic; mutated: the rotation by 2π/3 (R2, hand-set)."""
    task = make_task(task_config("modular_addition", modulus=3))
    torch.manual_seed(0)
    if mutated:
        model = rot.hand_set_rotation(make_model(model_config("bilinear", variant="rotation", d_model=2),
                                                 task.vocab_size, 3), 3)
    else:
        model = make_model(model_config("bilinear", variant="diagonal", d_model=8), task.vocab_size, 3)
    p = _period_on_ones(model.double(), 50)
    return [_check("real diagonal (b=1), m=3: eventual period on 1^k", p in (1, 2), p)]


def bl5_trackers(mutated: bool) -> list[Check]:
    """The hand-set block model at b* = 2 tracks Z5; mutated: its blocks cut to their diagonals (b = 1)."""
    from statetrack.claims.bl5 import claim as bl5

    task = make_task(bl5.task_of("Z5"))
    b = bs.smallest_block(task)
    model = bs.block_model(task, b, 2 * b)
    t = bs.track(_diagonal_only(model) if mutated else model, task, 50, 100, seed=5)
    return [_check(f"Z5: hand-set block model tracks it at b = {b}", t.all_correct, t.acc)]


def bl5_b1_limits(mutated: bool) -> list[Check]:
    """A random block-1 model's prediction on 1^k is 1- or 2-periodic; mutated: the hand-set block b = 2 model."""
    from statetrack.claims.bl5 import claim as bl5

    task = make_task(bl5.task_of("Z5"))
    torch.manual_seed(0)
    model = bs.block_model(task, 2, 4) if mutated else \
        make_model(model_config("bilinear", variant="block", block_size=1, d_model=8), task.vocab_size, 5)
    p = _period_on_ones(model.double(), 50)
    return [_check("Z5: b = 1: prediction on 1^k eventually 2-periodic", p in (1, 2), p)]


# ----------------------------------------------------------------------------- bl3, bl6, bl7, bl8 (through the claims)


def _bl3(sampling: str, mutated: bool) -> list[Check]:
    """bl3's check of a ``sampling`` machine; mutated: the row is computed on the other sampling's table."""
    from statetrack.claims.bl3 import claim as bl3

    table_of = "permutation" if (sampling == "uniform") == mutated else "uniform"
    table = make_task(task_config("fsm", **bl3.machine_fields(5, table_of))).table
    row = {"states": 5, "sampling": sampling, **bl3.machine_row(table, bl3.WINDOW, bl3.SYNC_LENGTH, 1024)}
    return bl3.checks(PRESET, [row])


def bl6_frozen_helps(mutated: bool) -> list[Check]:
    """Pure beats affine by ≥ 0.1 at the even test length; mutated: tested at the odd length one longer, where the
    pure sign readout fitted on words of even length reads the parity the wrong way round."""
    from statetrack.claims.bl6 import claim as bl6

    hs, draws, words, length = bl6.FROZEN[PRESET]
    part = at.ablation(hs, draws, test_len=length + 1 if mutated else length, num_test=words, seed=0,
                       threshold=bl6.FROZEN_SUCCESS)
    return bl6.checks(PRESET, part)


def bl7_full(mutated: bool) -> list[Check]:
    """The full model's transitions never commute; mutated: the diagonal variant."""
    s3 = make_task(task_config("word_problem", group="S3"))
    torch.manual_seed(0)
    model = make_model(model_config("bilinear", variant="diagonal" if mutated else "full", d_model=8), s3.vocab_size,
                       s3.num_classes)
    norms = cm.commutator_norms(cm.transitions_fp64(model))
    smallest = float(norms[~torch.eye(len(norms), dtype=torch.bool)].min())
    return [_check("full model: smallest commutator", smallest > 0.01, smallest)]


def _bl8(setting: str, mutated: bool) -> list[Check]:
    """bl8's checks on its sweep; mutated: ``setting``'s success measured through the other features (sign ↔
    normalized), each row judged against the interval the proof gives for ``setting``."""
    from statetrack.claims.bl8 import claim as bl8

    def run(words, offset, feature):
        return fd.sweep(bl8.HS[PRESET], bl8.DRAWS[PRESET], words, bl8.TEST_LEN[PRESET] + offset, feature,
                        num_test=bl8.TEST_WORDS[PRESET], seed=0, threshold=bl8.SUCCESS)

    part = {name: run(*s) for name, s in bl8.SETTINGS.items()}
    if mutated:
        words, offset, feature = bl8.SETTINGS[setting]
        other = run(words, offset, "sign" if feature == "normalized" else "normalized")
        part[setting] = [replace(r, rate=o.rate) for r, o in zip(part[setting], other)]
    return bl8.checks(PRESET, part)


# ----------------------------------------------------------------------------- x2


def x2_reads(mutated: bool) -> list[Check]:
    """The spectral readings tell constructions from near misses; mutated: the Z_m readings judged at length 2, not
    the grid's test length."""
    from statetrack.claims.x2 import claim as x2

    firsts = x2.first_configs(PRESET)
    longest = {t: c.eval.max_len for (t, _), c in reversed(firsts.items())}
    return sr.construction_checks(longest["parity"], 2 if mutated else longest["Z5"], {m: firsts[(f"Z{m}", x2.NAMES["rotation"])] for m in (3, 5)},
                                  firsts[("Z5", x2.NAMES["full"])])


# ----------------------------------------------------------------------------- the table


#: "<claim>:<statement id>" → (the mutation in one phrase, the builder).
MUTATIONS: dict[str, tuple[str, Build]] = {
    "ne2:thm2-one-layer": ("the transition has eigenvalues e^{±2πi/3} (a rotation), not real", ne2_one_layer),
    "ne2:thm2-two-layers": ("layer 2's transitions rotate (non-real two-step products)", ne2_two_layers),
    "ne2:thm3-rotation": ("the rotation by π instead of 2π/3", ne2_rotation),
    "ne2:thm6-reflections": ("the reflections' angles for m = 2 instead of 3", ne2_reflections),
    "ne3:prop1-norm": ("β drawn in [0, 3] instead of [0, 2]", ne3_norm),
    "ne3:prop1-spectra": ("β in [0, 2] instead of [0, 1] for two factors", ne3_spectra),
    "ne3:prop1-factors": ("β = 1 instead of 2 for a swap's factor", ne3_factors),
    "ne3:thm3-groups": ("β = 1 ([0, 1] range) instead of 2 for the two factors per token", ne3_groups),
    "ne3:thm4-cascades": ("β = 2 instead of 1 for the reset's factors", ne3_cascades),
    "ne3:thm6-adders": ("the reflections' angles for m = 4 on Z3's sums", ne3_adders),
    "ne4:automaton": ("the automaton's transitions cut to their diagonals", ne4_automaton),
    "ne4:word-spectra": ("the word × 1 in place of × 4", ne4_word_spectra),
    "ne5:trackers": ("the full tracker's transitions cut to their diagonals", ne5_trackers),
    "ne6:rotations": ("the full tracker's transitions cut to their diagonals", ne6_rotations),
    "ne6:reflection-pairs": ("one token (one reflection) per element instead of two", ne6_reflection_pairs),
    "bl1:construction": ("a diagonal W (T_σ's diagonal) instead of the full T_σ", bl1_construction),
    "bl1:additive-contrast": ("the additive term B x + b set to zero", bl1_additive),
    "bl2:hand-set": ("block b = 2 cut to its diagonal (b = 1) at m = 3", bl2_hand_set),
    "bl2:diagonal-limit": ("the hand-set rotation by 2π/3 in place of the real diagonal", bl2_diagonal_limit),
    "bl3:uniform-synchronises": ("the permutation table in place of the uniform one",
                                 lambda mutated: _bl3("uniform", mutated)),
    "bl3:permutation-never": ("the uniform table in place of the permutation one",
                              lambda mutated: _bl3("permutation", mutated)),
    "bl4:tracking": ("the construction's transitions cut to their diagonals", bl4_tracking),
    "bl5:trackers": ("the b* = 2 blocks cut to their diagonals (b = 1)", bl5_trackers),
    "bl5:b1-limits": ("the hand-set b = 2 model in place of b = 1", bl5_b1_limits),
    "bl6:frozen-helps": ("tested at an odd length (the training words' lengths are even)", bl6_frozen_helps),
    "bl7:full-does-not-commute": ("the diagonal variant in place of the full one", bl7_full),
    "bl8:frozen-rate": ("normalized features h/|h| in place of the sign readout",
                        lambda mutated: _bl8("main", mutated)),
    "bl8:length-trap": ("normalized features h/|h| at the odd test length", lambda mutated: _bl8("odd test", mutated)),
    "bl8:normalized-trap": ("the sign readout in place of normalized features",
                            lambda mutated: _bl8("normalized", mutated)),
    "x2:reads-constructions": ("the Z_m readings judged at length 2 instead of the test length", x2_reads),
}


def _exact_statements() -> dict[str, object]:
    return {f"{cid}:{s.id}": s for cid in CLAIMS for s in get_claim(cid).statements() if s.checks is not None}


@pytest.mark.parametrize("key", sorted(MUTATIONS))
def test_mutation_fails_the_statement(key):
    statement = _exact_statements()[key]
    _, build = MUTATIONS[key]
    for mutated in (False, True):
        hits = [c for c in build(mutated) if fnmatchcase(c.label, statement.checks)]
        assert hits, f"{key}: no check matches {statement.checks!r} (mutated={mutated})"
        failing = [c.label for c in hits if not c.passed]
        if mutated:
            assert failing, f"{key}: the mutation fails no check matching {statement.checks!r}"
        else:
            assert not failing, f"{key}: the paper's setting fails {failing}"


def test_every_exact_statement_is_mutated_or_an_implementation_check():
    exact = _exact_statements()
    assert set(MUTATIONS) <= set(exact), sorted(set(MUTATIONS) - set(exact))
    neither = sorted(k for k, s in exact.items() if k not in MUTATIONS and not s.implementation)
    both = sorted(k for k, s in exact.items() if k in MUTATIONS and s.implementation)
    assert not neither, f"neither mutated here nor marked implementation=True: {neither}"
    assert not both, f"mutated here and marked implementation=True: {both}"
