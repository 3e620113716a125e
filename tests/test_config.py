"""Config typing, strict overrides, canonical JSON round trips and single-key ablations."""

import json

import pytest

from statetrack.config import (ConfigError, EvalConfig, RunConfig, TrainConfig, overrides_from_strings,
                               variants)
from statetrack.models import model_config
from statetrack.tasks import task_config


def base() -> RunConfig:
    return RunConfig(task=task_config("parity"), model=model_config("mamba"))


def test_override_parses_each_type():
    cfg = base().override({"model.eig_range": "[-1,1]", "train.lr": "3e-3", "train.num_steps": "7", "train.warmup_steps": "0",
                           "task.supervision": "final", "seed": "4"})
    assert cfg.model.eig_range == "[-1,1]"
    assert cfg.train.lr == pytest.approx(3e-3) and isinstance(cfg.train.lr, float)
    assert cfg.train.num_steps == 7 and cfg.seed == 4 and cfg.task.supervision == "final"


@pytest.mark.parametrize("key,value,needle", [
    pytest.param("model.d_modle", "32", "'model.d_modle'", id="unknown-model-key"),
    pytest.param("model.eig_range", "[-2,1]", "'[-2,1]'", id="eig-range-outside-literal"),
    pytest.param("train.num_steps", "1.5", "'1.5'", id="float-for-int"),
    pytest.param("train.lr", "fast", "'fast'", id="word-for-float"),
    pytest.param("train.lr", "-1", "train.lr=-1.0", id="negative-lr"),
    pytest.param("optim.lr", "1", "'optim.lr'", id="unknown-section"),
    pytest.param("task.modulus", "5", "'task.modulus'", id="key-of-another-task"),
    pytest.param("train.min_len", "50", "[50, 40]", id="inverted-length-range"),
    pytest.param("seed", "-1", "seed=-1", id="negative-seed"),
])
def test_bad_overrides_name_the_value(key, value, needle):
    with pytest.raises(ConfigError) as e:
        base().override({key: value})
    assert needle in str(e.value)


def test_unknown_key_lists_allowed_fields():
    with pytest.raises(ConfigError, match="allowed: .*d_state"):
        base().override({"model.nope": "1"})


def test_set_strings_must_be_key_value():
    assert overrides_from_strings(["a.b=1", " seed = 2 "]) == {"a.b": "1", "seed": "2"}
    with pytest.raises(ConfigError, match="'novalue'"):
        overrides_from_strings(["novalue"])


def test_json_round_trip_is_exact_and_canonical():
    cfg = base().override({"model.eig_range": "[-1,1]", "eval.stride": "3"})
    again = RunConfig.from_dict(json.loads(cfg.to_json()))
    assert again == cfg and again.to_json() == cfg.to_json()


def test_from_dict_rejects_unknown_names_and_keys():
    d = base().to_dict()
    with pytest.raises(ConfigError, match="unknown model 'mambo'"):
        RunConfig.from_dict({**d, "model": {**d["model"], "name": "mambo"}})
    with pytest.raises(ConfigError, match="unknown keys \\['extra'\\]"):
        RunConfig.from_dict({**d, "train": {**d["train"], "extra": 1}})


def test_modulus_below_two_is_rejected():
    with pytest.raises(ConfigError, match="modulus=1"):
        task_config("modular_addition", modulus=1)


def test_heads_must_divide_width():
    with pytest.raises(ConfigError, match="num_heads=3 does not divide d_model=32"):
        model_config("deltanet", d_model=32, num_heads=3)


def test_empty_eval_range_is_rejected():
    with pytest.raises(ConfigError, match="empty"):
        EvalConfig(min_len=10, max_len=5)
    with pytest.raises(ConfigError, match="warmup_steps"):
        TrainConfig(num_steps=10, warmup_steps=11)


def test_ablation_pairs_differ_in_the_declared_key_only():
    pos, neg = variants(base(), "model.eig_range", ["[0,1]", "[-1,1]"])
    a, b = pos.to_dict(), neg.to_dict()
    diff = [(s, k) for s in a if isinstance(a[s], dict) for k in a[s] if a[s][k] != b[s][k]]
    assert diff == [("model", "eig_range")]


def test_eval_lengths_include_both_ends():
    assert EvalConfig(min_len=40, max_len=50, stride=4).lengths == [40, 44, 48, 50]


def test_learned_positions_must_cover_every_length_before_training():
    cfg = RunConfig(task=task_config("parity"), model=model_config("transformer", d_model=16, num_heads=2))
    with pytest.raises(ConfigError, match="max_len=512 is shorter than the longest sequence of this run \\(600\\)"):
        cfg.override({"eval.max_len": "600"})
    assert cfg.override({"eval.max_len": "600", "model.positions": "rotary"}).eval.max_len == 600
