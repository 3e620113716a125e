"""Models from outside the package: the entry point group, register_model, provenance, spectra, ``statetrack leaderboard``.

The example plug-in (examples/custom_model) is installed in-process: its folder goes on sys.path and a
temporary ``.dist-info`` folder with its ``entry_points.txt`` makes importlib.metadata see it as an
installed distribution, so nothing needs pip or the network.
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
import torch

from statetrack.runs.provenance import repo_root

EXAMPLE = repo_root() / "examples" / "custom_model"
DIST, VERSION = "statetrack-example", "0.1.0"
ENTRY = "gated_rotation = statetrack_example.model:GatedRotationRNN"


def _site(folder: Path, entry: str = ENTRY, dist: str = DIST) -> Path:
    """A folder that importlib.metadata reads as an installed distribution with one entry point."""
    info = folder / f"{dist.replace('-', '_')}-{VERSION}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {VERSION}\n")
    (info / "entry_points.txt").write_text(f"[statetrack.models]\n{entry}\n")
    (info / "top_level.txt").write_text("statetrack_example\n")
    return folder


def _forget(*names: str) -> None:
    from statetrack.models import PLUGIN_ERRORS, PLUGINS, unregister_model

    for name in names:
        if name in PLUGINS:
            unregister_model(name)
        PLUGIN_ERRORS.pop(name, None)
    for mod in [m for m in sys.modules if m == "statetrack_example" or m.startswith("statetrack_example.")]:
        del sys.modules[mod]


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The example plug-in installed through its entry point (sys.path + a temporary .dist-info)."""
    from statetrack.models import PLUGINS, load_plugins

    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(_site(tmp_path / "site")))
    load_plugins(reload=True)
    yield PLUGINS["gated_rotation"]
    _forget("gated_rotation")


def test_the_vocabulary_is_the_predictions_table_s():
    from statetrack.models import PARAMETRIZED, TRANSITIONS
    from statetrack.theory.predictions import CLASSES, PARAM

    assert tuple(TRANSITIONS) == CLASSES and PARAMETRIZED == PARAM


def test_the_entry_point_loads_on_first_use_and_is_listed(tmp_path):
    """A fresh interpreter: importing the registry loads nothing; the first read of MODELS loads the plug-in."""
    site = _site(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(EXAMPLE), str(site)])}
    code = ("import json, sys; import statetrack.models as m; before = 'statetrack_example.model' in sys.modules; "
            "print(json.dumps([before, 'gated_rotation' in m.MODELS, m.PLUGINS['gated_rotation'].provenance()]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    before, known, prov = json.loads(out.stdout.strip().splitlines()[-1])
    assert not before and known
    assert prov == {"model": "gated_rotation", "class": "statetrack_example.model.GatedRotationRNN",
                    "distribution": DIST, "version": VERSION, "entry_point": ENTRY}
    listed = subprocess.run([sys.executable, "-m", "statetrack", "list", "--json"], env=env, capture_output=True,
                            text=True, check=True)
    model = next(m for m in json.loads(listed.stdout)["models"] if m["name"] == "gated_rotation")
    assert model["transition"] == "complex_diagonal" and model["lrs"] == [1e-2, 3e-3]
    assert model["plugin"]["distribution"] == DIST and model["fields"]["d_state"] == 8


def test_a_broken_entry_point_is_reported_not_fatal(tmp_path, monkeypatch):
    from statetrack.models import MODELS, PLUGIN_ERRORS, load_plugins

    monkeypatch.syspath_prepend(str(_site(tmp_path / "site", "broken = no_such_module_here:Model", "broken-dist")))
    with pytest.warns(UserWarning, match="no_such_module_here"):
        load_plugins(reload=True)
    try:
        assert "broken" not in MODELS and "mamba" in MODELS
        assert "ModuleNotFoundError" in PLUGIN_ERRORS["broken"]
    finally:
        PLUGIN_ERRORS.pop("broken", None)


def _module_class(transition="complex_diagonal", name="tmp_plugin"):
    from statetrack_example.model import GatedRotationConfig, GatedRotationRNN

    @dataclass(frozen=True)
    class Config(GatedRotationConfig):
        pass

    Config.name, Config.transition = name, transition
    return type("TmpRNN", (GatedRotationRNN,), {"Config": Config, "__module__": GatedRotationRNN.__module__})


def test_register_model_refuses_bad_declarations(installed):
    import statetrack
    from statetrack.config import ConfigError

    with pytest.raises(ConfigError, match=r"unknown transition class 'spiral' .*allowed: positive_diagonal"):
        statetrack.register_model(_module_class("spiral"))
    with pytest.raises(ConfigError, match="'mamba' .* taken by the built-in model"):
        statetrack.register_model(_module_class(name="mamba"))
    with pytest.raises(ConfigError, match="allowed: a @dataclass"):
        statetrack.register_model(type("NoConfig", (torch.nn.Module,), {}))
    assert statetrack.register_model(installed.cls) is installed.cls  # again: a no-op


def test_a_plug_in_trains_and_its_record_names_it(installed, capsys):
    from statetrack.cli import main

    assert main(["train", "--task", "parity", "--model", "gated_rotation", "--preset", "smoke", "--json",
                 "--set", "model.backend=reference"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["provenance"]["plugin"] == installed.provenance()
    assert rec["provenance"]["plugin"]["version"] == VERSION


def test_plug_in_code_is_hashed_by_its_own_paths(installed, tmp_path, monkeypatch):
    from statetrack.config import RunConfig
    from statetrack.models import model_config
    from statetrack.runs.provenance import code_files, code_hash, hashed_name
    from statetrack.tasks import task_config

    cfg = RunConfig(task=task_config("parity"), model=model_config("gated_rotation"))
    names = [hashed_name(f) for f in code_files(cfg)]
    assert {"statetrack_example/model.py", "statetrack_example/ops.py", "statetrack_example/__init__.py",
            "models/model.py", "training.py"} <= set(names)
    here = code_hash(cfg)
    # The same code installed elsewhere hashes the same; a changed line of its own module changes it, a comment not.
    copy = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLE, copy)
    _forget("gated_rotation")
    monkeypatch.syspath_prepend(str(copy))
    from statetrack_example.model import GatedRotationRNN

    import statetrack

    statetrack.register_model(GatedRotationRNN)
    assert Path(statetrack.models.PLUGINS["gated_rotation"].file).is_relative_to(copy)
    assert code_hash(cfg) == here
    ops = copy / "statetrack_example" / "ops.py"
    ops.write_text(ops.read_text() + "\n# a comment\n")
    assert code_hash(cfg) == here
    ops.write_text(ops.read_text().replace("k *= 2", "k = k * 2"))
    assert code_hash(cfg) != here


def test_committed_records_stay_fresh():
    """Every committed record's code hash is the code's here: the plug-in code left built-in hashes as they were."""
    from statetrack.config import RunConfig
    from statetrack.runs.provenance import code_hash

    records = [json.loads(p.read_text()) for p in sorted((repo_root() / "data" / "results").rglob("*.json"))]
    assert records
    stale = [r["key"] for r in records if r["provenance"].get("code_hash") != code_hash(RunConfig.from_dict(r["config"]))]
    assert not stale


def test_spectra_reads_a_plug_ins_transitions(installed):
    """A(x) from ``spectra.transitions`` against one step of the mixer: A h = step(x, h) − step(x, 0) on the state."""
    from statetrack import spectra
    from statetrack.models import make_model, model_config

    torch.manual_seed(0)
    model = make_model(model_config("gated_rotation", d_state=4), 3, 2)
    tr = spectra.transitions(model, spectra.all_windows(model, range(3)))
    assert tr.matrices.shape == (3, 4, 2, 2) and tr.kind == "complex_diagonal"
    mixer, x = model.blocks[0].mixer, model.blocks[0].norm1(model.embed(torch.arange(3)))  # (3, D)
    h = torch.randn(3, 4, dtype=torch.complex64)
    moved = mixer.step(x, h)[1] - mixer.step(x, torch.zeros_like(h))[1]  # (3, 4) complex
    ours = torch.einsum("vgij,vgj->vgi", tr.matrices, torch.stack([h.real, h.imag], -1))  # (3, 4, 2)
    assert torch.allclose(ours, torch.stack([moved.real, moved.imag], -1), atol=1e-6)


def test_leaderboard_runs_the_plug_in_at_smoke(installed, tmp_path, capsys):
    from statetrack.claims.x1 import claim as x1
    from statetrack.cli import main

    out = tmp_path / "entry.json"
    assert main(["leaderboard", "--model", "gated_rotation", "--preset", "smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("leaderboard gated_rotation-32x1: 10 runs on x1's board, 0 recorded, 10 to train; estimated")
    assert "complex_diagonal; plug-in statetrack-example 0.1.0" in text
    entry = json.loads(out.read_text())
    assert [c["task"] for c in entry["row"]] == list(x1.TASKS)
    assert entry["plugin"]["version"] == VERSION and entry["cost"]["trained"] == 10
    for cell in entry["row"]:  # x1's prediction for the rotation row (complex_diagonal), cell by cell
        p, s = x1.prediction("rotation", cell["task"], "smoke"), x1.statement_of("rotation", cell["task"])
        s = s if s is not None and s.paper is None else None  # a paper's number judges the paper's model only
        assert cell["theory"] == p.says and cell["rule"] == (s.describe() if s else "shown, not judged")
        assert cell["seeds"] == 1 and cell["lr"] in (1e-2, 3e-3)
        # one seed at smoke: every statistic of the statement is that seed's score
        # a "does not learn" or "theorem forbids" needs two fitted seeds: one seed leaves it not fitted
        negative = s is not None and s.kind in ("does not learn", "theorem forbids")
        assert cell["agrees"] is (None if s is None or negative else s.rule.passes(cell["median"]))
    z3 = next(c for c in entry["row"] if c["task"] == "Z3")  # BL reports its R2 model at m = 3: not this model
    assert x1.statement_of("rotation", "Z3") is None and z3["rule"] == "shown, not judged"  # ne2's cell
    # The runs are in the store (the tests' scratch folder): a second call trains nothing.
    assert main(["leaderboard", "--model", "gated_rotation", "--preset", "smoke", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["cost"]["trained"] == 0 and again["row"] == entry["row"]


@pytest.mark.parametrize("argv,needle", [
    (["--model", "no_such_model"], "unknown model 'no_such_model'; allowed: "),
    (["--model", "gated_rotation", "--set", "model.nope=1"], "unknown config key 'model.nope' for model 'gated_rotation'; allowed: "),
    (["--model", "gated_rotation", "--set", "model.d_state=x"], "bad value 'x' for model.d_state: expected an integer"),
    (["--model", "gated_rotation", "--set", "train.lr=1"], "--set 'train.lr' is not allowed here"),
    (["--model", "spiral_model"], "unknown transition class 'spiral' for model 'spiral_model'; allowed: positive_diagonal"),
])
def test_leaderboard_bad_input_is_one_line_exit_2_nothing_written(installed, tmp_path, capsys, argv, needle):
    import statetrack
    from statetrack.cli import main
    from statetrack.runs.store import results_dir

    cls = _module_class(name="spiral_model")
    cls.Config.transition = property(lambda self: "spiral")  # a config that computes its class, badly
    statetrack.register_model(cls)
    try:
        out = tmp_path / "entry.json"
        assert main(["leaderboard", *argv, "--preset", "smoke", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], err
        assert not out.exists() and not list(results_dir().rglob("*.json"))
    finally:
        _forget("spiral_model")


def test_a_store_read_without_the_plug_in_says_so_and_carries_on(tmp_path, monkeypatch):
    """Records made by a plug-in that is not installed are named as such (not as corrupt), and the rest loads."""
    from statetrack.models import PLUGINS, load_plugins
    from statetrack.runs.store import MissingPlugin, load_records, read_record, record_path
    from statetrack.runs.execute import load_or_run

    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(_site(tmp_path / "site")))
    load_plugins(reload=True)
    from statetrack.cli import build_config

    cfg = build_config("parity", "gated_rotation", ["model.backend=reference"], "smoke", 0)
    rec = load_or_run(cfg, "adhoc", device="cpu", preset="smoke")
    assert rec["provenance"]["plugin"]["distribution"] == DIST and PLUGINS["gated_rotation"]
    path = record_path(cfg)
    builtin = build_config("parity", "mamba", ["model.d_model=8", "model.d_state=2"], "smoke", 0)
    load_or_run(builtin, "adhoc", device="cpu", preset="smoke")
    _forget("gated_rotation")  # the plug-in is gone from this install
    with pytest.raises(MissingPlugin, match="plug-in model 'gated_rotation' .*statetrack-example 0.1.0.*not installed"):
        read_record(path)
    with pytest.warns(UserWarning, match="gated_rotation"):
        left = load_records()
    assert [r["key"] for r in left] == [read_record(record_path(builtin))["key"]]
    assert path.exists()  # reading never deletes or rewrites a record
