"""``theory.predictions``: the class × task table is complete and coherent, every zoo model has a class, and
claim x1 reads its per-cell predictions from it (one source of truth).

The x1 check builds, for each of x1's rows, a model config that ``x1.row_of`` maps to that row, looks its
class up with ``transition_class_of`` and compares ``predict`` (one layer, as x1's quick cells are) with
``x1.prediction`` at quick.

Runtime: about 3 s.
"""

from __future__ import annotations

import pytest

from statetrack.claims.x1 import claim as x1
from statetrack.models import MODELS, model_config
from statetrack.theory import predictions as P

X1_TASK = {"parity": "parity", "Z3": "Zm", "S3": "S3", "S5_swaps": "S5_swaps", "fsm_perm": "fsm_perm"}
X1_MODEL = {
    "mamba_pos": ("mamba", dict(eig_range="[0,1]")),
    "mamba_neg": ("mamba", dict(eig_range="[-1,1]")),
    "deltanet_pos": ("deltanet", dict(eig_range="[0,1]", num_layers=1)),
    "deltanet_neg": ("deltanet", dict(eig_range="[-1,1]", num_layers=1)),
    "full": ("bilinear", dict(variant="full")),
    "block2": ("bilinear", dict(variant="block", block_size=2)),
    "diagonal": ("bilinear", dict(variant="diagonal")),
    "rotation": ("bilinear", dict(variant="rotation")),
    "lstm": ("lstm", {}),
    "slstm": ("slstm", {}),
    "mlstm": ("mlstm", {}),
    "transformer": ("transformer", {}),
    "gated_deltanet_pos": ("gated_deltanet", dict(eig_range="[0,1]", num_layers=1)),
    "gated_deltanet_neg": ("gated_deltanet", dict(eig_range="[-1,1]", num_layers=1)),
    "complex_diagonal": ("complex_diagonal", dict(rotation="data")),
    "pd_ssm": ("pd_ssm", {}),
}


def test_every_x1_row_is_mapped():
    assert set(X1_MODEL) == set(x1.ROWS) and set(X1_TASK) == set(x1.TASKS) == set(x1.PREDICTION_TASK)
    assert x1.PREDICTION_TASK == X1_TASK


def test_x1_reads_its_predictions_from_the_table():
    for row, (name, fields) in X1_MODEL.items():
        cfg = model_config(name, **fields).to_dict()
        assert x1.row_of(cfg) == row
        for task in x1.TASKS:
            ours = P.predict_model(cfg, X1_TASK[task], layers=1)
            theirs = x1.prediction(row, task, "quick")
            assert theirs.says == ours.says and ours.cite in theirs.why, (row, task)


def test_counts_only_is_the_pure_commuting_bilinear_model():
    assert P.counts_only(model_config("bilinear", variant="diagonal"))
    assert P.counts_only(model_config("bilinear", variant="rotation").to_dict())
    assert not P.counts_only(model_config("bilinear", variant="rotation", additive=True))  # BL's affine ablation
    assert not P.counts_only(model_config("bilinear", variant="full"))
    assert not P.counts_only(model_config("mamba", eig_range="[-1,1]"))  # commuting, but B(x_t) keeps the order
    for name in ("deltanet", "mlstm", "lstm", "transformer"):
        assert not P.counts_only(model_config(name))


def test_table_is_complete_and_cited():
    assert set(P.TABLE) == {(c, t) for c in P.CLASSES for t in P.TASKS}
    for (c, t), entry in P.TABLE.items():
        for v in (entry.one_layer, entry.more_layers):
            assert v.says in P.SAYS and v.why
            if v.says != "open":
                assert v.cite and v.cite != "—", (c, t)
            if v.min_param is not None:
                assert c in P.PARAM and v.below in P.SAYS and v.below_why and v.below_cite, (c, t)


@pytest.mark.parametrize("cls", P.CLASSES)
def test_more_layers_never_take_an_ability_away(cls):
    """A 'can' for one layer stays 'can' with more layers; a 'cannot' with more layers is a 'cannot' for one."""
    params = {"reflections_n": (2, 3, 4, 24), "block_diagonal": (1, 2, 3, 4, 25), "householder_nonneg": (1, 2, 3)}
    for param in params.get(cls, (None,)):
        for task in P.TASKS:
            one, more = P.predict(cls, task, 1, param).says, P.predict(cls, task, 3, param).says
            assert not (one == "can" and more != "can"), (cls, param, task)
            assert not (more == "cannot" and one != "cannot"), (cls, param, task)


def test_every_built_in_model_has_a_class():
    import statetrack.models as models

    built_in = {n for n in MODELS if getattr(models, "is_builtin", lambda _: True)(n)}
    assert set(P.ZOO) == built_in
    for name in built_in:
        z = P.transition_class_of(model_config(name))
        assert z.transition_class in P.CLASSES


@pytest.mark.parametrize("name, fields, cls, param", [
    ("gated_deltanet", dict(eig_range="[0,1]"), "householder_nonneg", 1),
    ("gated_deltanet", dict(eig_range="[-1,1]"), "reflection", 1),
    ("pd_ssm", dict(d_state=12), "permutation_diagonal", 12),
    ("complex_diagonal", dict(rotation="data"), "complex_diagonal", None),
    ("complex_diagonal", dict(rotation="none"), "positive_diagonal", None),
    ("deltaproduct", dict(eig_range="[-1,1]", num_householder=3), "reflections_n", 3),
    ("deltaproduct", dict(eig_range="[-1,1]", num_householder=1), "reflection", 1),
    ("bilinear", dict(variant="block", block_size=4, d_model=16), "block_diagonal", 4),
])
def test_zoo_classes(name, fields, cls, param):
    z = P.transition_class_of(model_config(name, **fields))
    assert (z.transition_class, z.param) == (cls, param)


@pytest.mark.parametrize("cls, task, layers, param, says, cite", [
    ("complex_diagonal", "Zm", 1, None, "can", "NE Thm 2"),
    ("complex_diagonal", "S3", 1, None, "cannot", "BL Prop 2"),
    ("reflection", "Zm", 1, None, "cannot", "NE Thm 2"),
    ("reflection", "Zm", 2, None, "can", "NE Thm 6"),
    ("reflections_n", "S5", 1, 4, "can", "NE Thm 3"),
    ("reflections_n", "S5", 1, 2, "open", "NE Thm 3"),
    ("reflections_n", "A5", 1, 2, "can", "DeltaProduct"),
    ("reflections_n", "S3", 1, 1, "cannot", "NE Thm 2"),
    ("permutation_diagonal", "S5", 1, None, "can", "PD-SSM Prop 2"),
    ("positive_diagonal", "parity", 4, None, "cannot", "NE Thm 1"),
    ("signed_diagonal", "A5", 3, None, "cannot", "NE Thm 2"),
    ("complex_diagonal", "S5", 3, None, "cannot", "Merrill et al. 2024"),
    ("block_diagonal", "S5", 1, 3, "cannot", "bl5"),
    ("dense", "fsm", 1, None, "can", "BL Prop 1"),
])
def test_cells(cls, task, layers, param, says, cite):
    p = P.predict(cls, task, layers, param)
    assert p.says == says and cite in p.cite, p


def test_conditional_theorems_say_so():
    assert "NC¹" in P.predict("complex_diagonal", "S5", 2).condition
    assert P.predict("complex_diagonal", "Zm", 1).condition == ""


def test_contractive_flag_rules_out_every_task():
    for task in P.TASKS:
        p = P.predict("permutation_diagonal", task, 1, 16, contractive=True)
        assert p.says == "cannot" and "Banach" in p.cite


def test_exact_contractivity_of_the_new_families():
    for name in ("gated_deltanet", "pd_ssm", "complex_diagonal"):
        assert P.transition_class_of(model_config(name)).contractive_exact
    assert not P.transition_class_of(model_config("deltanet")).contractive_exact


def test_a_config_that_declares_its_class_is_taken_at_its_word():
    class Declared:
        transition, transition_param = "reflections_n", 3

    assert P.transition_class_of(Declared()) == P.ZooClass("reflections_n", 3, note="declared by the model's config")
    Declared.transition = "orthogonal"
    with pytest.raises(ValueError, match="unknown transition class"):
        P.transition_class_of(Declared())


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown transition class"):
        P.predict("orthogonal", "parity")
    with pytest.raises(ValueError, match="unknown task"):
        P.predict("dense", "Z4")
    with pytest.raises(ValueError, match="needs param"):
        P.predict("block_diagonal", "S3")
    with pytest.raises(ValueError, match="layers=0"):
        P.predict("dense", "parity", layers=0)
