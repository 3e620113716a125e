"""One error contract at every door: a bad value stops before any work, named as given, with what is allowed.

Doors: the ``statetrack`` command (exit 2, one line, no traceback; argparse's own errors too, ending
with what is allowed), the Python API the notebooks call (``ConfigError`` / ``RecordError`` naming the
value), notebook parameters under papermill ``-p`` / ``-y`` (the notebook stops at the parameter check
with a one-line message, the last of the output; papermill's own CLI still prints its frames, but none
of ours), and corrupt or hostile files (records, checkpoints: each fault names the file and the field;
a checkpoint that would run code when unpickled is refused without running it). Every case also checks
that nothing under the results folder or the repository's ``data/`` changed.
"""

import os
import stat
import subprocess
import sys

import pytest

from statetrack.cli import main
from statetrack.config import ConfigError
from statetrack.runs.store import RecordError, repo_root

NE1 = repo_root() / "notebooks" / "ne1_parity_needs_negative_eigenvalues.md"
TRAIN = ["train", "--task", "parity", "--model", "mamba", "--preset", "smoke"]


DATA = repo_root() / "data"
OURS = 'File "' + str(repo_root() / "src")  # a traceback frame of the package


def _snapshot(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def _data_state():
    """Every file under the repository's data/ with its size and modification time."""
    return {str(p.relative_to(DATA)): (p.stat().st_size, p.stat().st_mtime_ns) for p in DATA.rglob("*") if p.is_file()}


@pytest.fixture(autouse=True)
def data_untouched():
    """No case may write under data/ (checked for the files that existed before the case; new ones too)."""
    before = _data_state()
    yield
    after = _data_state()
    changed = sorted(k for k in before if k in after and after[k] != before[k])
    new = sorted(set(after) - set(before))
    assert not changed and not [n for n in new if n.endswith((".json", ".pt"))], (changed, new)


def _cli(argv):
    """``statetrack ARGV`` in this process: its exit status (argparse exits through SystemExit)."""
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


def _smoke_path():
    """Where ``verify`` / ``reproduce ne1 --preset smoke`` look for ne1's first smoke run (the results folder in use)."""
    from statetrack.claims.ne1 import claim as ne1
    from statetrack.runs.store import record_path

    return record_path(ne1.grid("smoke")[0])


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "results"
    corrupt = _smoke_path()
    assert corrupt.is_relative_to(folder)
    return folder, corrupt


# ----------------------------------------------------------------------------- the command line

CLI_CASES = [
    (["train", "--task", "sorting", "--model", "mamba"], "'sorting'"),
    (["train", "--task", "parity", "--model", "gpt5"], "'gpt5'"),
    (TRAIN + ["--set", "model.widht=3"], "'model.widht'"),
    (TRAIN + ["--set", "train.num_steps=many"], "'many'"),
    (TRAIN + ["--set", "train.num_steps=-5"], "num_steps=-5"),
    (TRAIN + ["--set", "train.num_steps=0"], "num_steps=0"),
    (TRAIN + ["--set", "train.lr=inf"], "'inf'"),
    (TRAIN + ["--set", "train.lr=nan"], "'nan'"),
    (TRAIN + ["--set", "train.lr=-1e-3"], "lr=-0.001"),
    (TRAIN + ["--set", "train.beta2=1.5"], "beta2=1.5"),
    (TRAIN + ["--set", "train.grad_clip=-1"], "grad_clip=-1.0"),
    (TRAIN + ["--set", "train.min_lr_ratio=2"], "min_lr_ratio=2.0"),
    (TRAIN + ["--set", "train.warmup_steps=99999"], "warmup_steps=99999"),
    (TRAIN + ["--set", "train.min_len=9", "--set", "train.max_len=3"], "[9, 3]"),
    (TRAIN + ["--set", "eval.stride=0"], "stride=0"),
    (TRAIN + ["--set", "eval.num_seqs=abc"], "'abc'"),
    (TRAIN + ["--set", "seed=-1"], "seed=-1"),
    (TRAIN + ["--set", "seed=1.5"], "'1.5'"),
    (TRAIN + ["--set", "model.eig_range=[-2,2]"], "'[-2,2]'"),
    (TRAIN + ["--set", "model.d_model=0"], "d_model=0"),
    (TRAIN + ["--set", "nothing"], "'nothing'"),
    (TRAIN + ["--set", "=3"], "'=3'"),
    (TRAIN + ["--set", "optim.lr=1"], "'optim.lr'"),
    (TRAIN + ["--device", "tpu9"], "'tpu9'"),
    (TRAIN + ["--device", "cuda:0"], "'cuda:0'"),
    (["train", "--task", "modular_addition", "--model", "lstm", "--set", "task.modulus=1"], "modulus=1"),
    (["train", "--task", "fsm", "--model", "lstm", "--set", "task.num_permutation_letters=9"],
     "num_permutation_letters=9"),
    (["train", "--task", "word_problem", "--model", "lstm", "--set", "task.group=S7"], "'S7'"),
    (["train", "--task", "word_problem", "--model", "lstm", "--set", "task.group=Z60",
      "--set", "task.elements=swaps"], "elements='swaps'"),
    (["train", "--task", "parity", "--model", "bilinear", "--set", "model.variant=block",
      "--set", "model.block_size=5"], "block_size=5"),
    (["reproduce", "ne9", "--preset", "smoke"], "'ne9'"),
    (["reproduce", "ne1", "--preset", "smoke", "--device", "tpu"], "'tpu'"),
    (TRAIN + ["--set", "train.batch_size=0"], "batch_size=0"),
    (TRAIN + ["--set", "train.max_len=100000000"], "train.max_len=100000000"),  # memory, before any tensor
    (TRAIN + ["--set", "model.d_model=200000"], "model.d_model=200000"),  # memory: the weights alone
    (TRAIN + ["--seed", "x"], "'x'"),
    (TRAIN + ["--seed", "-1"], "'-1'"),
    (TRAIN + ["--frobnicate"], "--frobnicate"),
    (TRAIN + ["--preset", "huge"], "'huge'"),
    (["train", "--task", "parity"], "--model"),
    (["frobnicate"], "'frobnicate'"),
    (["reproduce", "ne1", "--preset", "smoke", "--workers", "0"], "'0'"),
    (["reproduce", "ne1", "--preset", "smoke", "-p", "SEED", "3"], "'SEED' (= 3) for ne1: did you mean 'SEEDS'"),
    (["reproduce", "ne1", "bl1", "--preset", "smoke", "-p", "MODELS", "[gru]"], "'MODELS' (= [gru]) for bl1"),
    (["reproduce", "ne1", "--preset", "smoke", "-p", "PRESET", "quick"], "-p PRESET 'quick'"),
    (["reproduce", "ne1", "--preset", "smoke", "-p", "SEEDS"], "-p"),
    (["sweep", "ne1", "--preset", "smoke", "--executor", "slurm", "--time", "-5", "--dry-run"], "'-5'"),
    (["sweep", "ne1", "--preset", "smoke", "--time", "abc", "--dry-run"], "'abc'"),
    (["sweep", "ne1", "--preset", "smoke", "--workers", "0"], "'0'"),
    (["sweep", "ne1", "--preset", "smoke", "--gpus-per-job", "-1", "--dry-run"], "'-1'"),
    (["sweep", "ne1", "--preset", "smoke", "--array-parallelism", "0", "--dry-run"], "'0'"),
    (["sweep", "ne1", "--preset", "smoke", "--executor", "pbs"], "'pbs'"),
    (["sweep", "ne9", "--preset", "smoke", "--dry-run"], "'ne9'"),
    (["sweep", "ne1", "--preset", "smoke", "--device", "tpu", "--dry-run"], "'tpu'"),
    (["sweep", "ne1", "--preset", "smoke", "--measure", "0", "--dry-run"], "'0'"),
    (["sweep", "ne1", "--preset", "smoke", "--measure", "5"], "--measure 5"),
    (["verify", "--preset", "huge"], "'huge'"),
    (["bench", "--models", "nope"], "'nope'"),
    (["bench", "--pairs", "nope"], "'nope'"),
    (["bench", "--scale", "huge"], "'huge'"),
    (["verify", "--preset", "smoke"], None),  # not bad input: listed to pin that it succeeds
]


@pytest.mark.parametrize("argv,needle", [pytest.param(a, n, id=" ".join(a[4:] if a[0] == "train" else a)[:60])
                                         for a, n in CLI_CASES])
def test_cli_bad_input(capsys, results, argv, needle):
    folder, _ = results
    before = _snapshot(folder)
    code = _cli(argv)
    err = capsys.readouterr().err
    if needle is None:
        assert code == 0
        return
    assert code == 2, err
    assert needle in err and err.startswith("statetrack: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and OURS not in err
    assert any(w in err for w in ("allowed", "choose from", "expected", "must", "use ", "no notebook yet")), err  # what is allowed
    assert _snapshot(folder) == before


@pytest.mark.parametrize("command", ["train", "bench"])
def test_cli_out_must_be_a_file(capsys, tmp_path, command):
    """``--out`` naming a folder is refused by name before any work."""
    argv = (TRAIN if command == "train" else ["bench"]) + ["--out", str(tmp_path)]
    assert _cli(argv) == 2
    err = capsys.readouterr().err
    assert repr(str(tmp_path)) in err and "allowed: the path of a new or existing file" in err and OURS not in err


def test_cli_corrupt_record_is_named_before_reproduce_runs(capsys, results):
    folder, corrupt = results
    corrupt.parent.mkdir(parents=True)
    corrupt.write_text('{"schema": 1, "key": ')
    before = _snapshot(folder)
    assert main(["reproduce", "ne1", "--preset", "smoke"]) == 2
    err = capsys.readouterr().err
    assert "corrupt result record" in err and corrupt.name in err and "Traceback" not in err
    assert _snapshot(folder) == before


def test_cli_paper_preset_on_cpu_asks_first(capsys, results, monkeypatch):
    from statetrack.runs import cost

    monkeypatch.setattr(cost, "total_seconds", lambda cfgs, device="auto": 3600.0 * len(cfgs))
    folder, _ = results
    assert main(["reproduce", "ne1", "--preset", "paper", "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "--confirm-long" in err and "hours" in err and "Traceback" not in err
    assert _snapshot(folder) == []


def _unwritable(tmp_path):
    """A folder no process can create files in: below a regular file (works as root, unlike chmod)."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    return blocker / "results"


def test_unwritable_results_folder_fails_before_training(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(_unwritable(tmp_path)))
    assert main(["reproduce", "ne1", "--preset", "smoke"]) == 2
    err = capsys.readouterr().err
    assert "cannot write to" in err and "blocker" in err and "Traceback" not in err


def test_unwritable_out_file_fails_before_training(capsys, tmp_path):
    out = _unwritable(tmp_path) / "rec.json"
    assert main(TRAIN + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot write to" in err and "run " not in capsys.readouterr().out  # no run was started


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permission bits; the test above covers root")
def test_read_only_results_folder_fails_before_training(capsys, tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(folder))
    assert main(["reproduce", "ne1", "--preset", "smoke"]) == 2
    assert "cannot write to" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the Python API


def _api_cases():
    import torch

    from statetrack.verdicts import registry
    from statetrack.tools import sweep
    from statetrack.site import book
    from statetrack.display import parameters
    from statetrack.tools import bench
    from statetrack.runs.memory import check_memory
    from statetrack.claims.ne1 import claim as ne1
    from statetrack.config import RunConfig
    from statetrack.models import model_config
    from statetrack.verdicts.claim import paper_numbers
    from statetrack.tasks import task_config

    base = RunConfig(task=task_config("parity"), model=model_config("mamba"))
    return [
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], PRESET="huge"), "'huge'"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], SEEDS="abc"), "'abc'"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], SEEDS="[0, -1]"), "[0, -1]"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], DEVICE="tpu9"), "'tpu9'"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], DEVICE=3), "DEVICE 3"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], FORCE="yes please"), "'yes please'"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], CONFIRM_LONG=2), "CONFIRM_LONG 2"),
        (lambda: registry.CLAIMS["ne9"], "'ne9'"),
        (lambda: registry.run_claim("ne1", "smoke", seeds=[-3]), "[-3]"),
        (lambda: registry.run_claim("ne1", "smoke", models=["gru"]), "'gru'"),
        (lambda: registry.run_claim("ne1", "smoke", device="tpu"), "'tpu'"),
        (lambda: registry.run_claim("ne1", "tiny"), "'tiny'"),
        (lambda: ne1.grid("quick", lrs=[0.0]), "[0.0]"),
        (lambda: ne1.grid("quick", lrs=[float("nan")]), "[nan]"),
        (lambda: base.override({"train.lr": "inf"}), "'inf'"),
        (lambda: base.override({"model.d_state": "2.5"}), "'2.5'"),
        (lambda: base.override({"task.modulus": "3"}), "'task.modulus'"),
        (lambda: task_config("modular_addition", modulus=0), "modulus=0"),
        (lambda: model_config("deltanet", num_heads=3), "num_heads=3"),
        (lambda: paper_numbers("ne_table9"), "'ne_table9'"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], PRESET=None), "PRESET None"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], FORCE=1), "FORCE 1"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], SEEDS=[0.5]), "0.5"),
        (lambda: parameters.parameters(registry.CLAIMS["ne1"], MODELS="[gru"), "'[gru'"),
        (lambda: parameters.check_parameter_names("ne1", {"SEED": "3"}, ["PRESET", "SEEDS"]), "did you mean 'SEEDS'"),
        (lambda: registry.preflight("ne1", "smoke", device="tpu"), "'tpu'"),
        (lambda: book.execute_notebook("ne1", "smoke", extra={"SEED": 3}), "'SEED' (= 3) for ne1"),
        (lambda: book.execute_notebook("bl1", "smoke", extra={"MODELS": ["gru"]}), "'MODELS'"),
        (lambda: list(book.execute_notebooks(["ne1"], "smoke", extra={"PRESTE": "smoke"})), "did you mean 'PRESET'"),
        (lambda: sweep.sweep(["ne1"], "smoke", executor="pbs"), "'pbs'"),
        (lambda: sweep.sweep(["ne1"], "smoke", workers=0), "--workers 0"),
        (lambda: sweep.plan(["ne9"], "smoke"), "'ne9'"),
        (lambda: bench.run(pairs=["nope"]), "'nope'"),
        (lambda: check_memory(base.override({"train.max_len": "100000000"}), torch.device("cpu")),
         "train.max_len=100000000"),
        (lambda: check_memory(base.override({"train.batch_size": "10000000"}), torch.device("cpu")),
         "train.batch_size=10000000"),
        (lambda: RunConfig.from_dict({"task": {"name": "parity"}, "model": {"name": "gpt5"}}), "'gpt5'"),
        (lambda: RunConfig.from_dict({"task": {"name": "parity"}, "model": {"name": "mamba"}, "optim": {}}),
         "'optim'"),
        (lambda: RunConfig.from_dict([1, 2]), "list"),
    ]


API_COUNT = 38


def test_api_case_count_is_pinned():
    assert len(_api_cases()) == API_COUNT


@pytest.mark.parametrize("index", range(API_COUNT))
def test_api_bad_input(results, index):
    folder, _ = results
    call, needle = _api_cases()[index]
    with pytest.raises((ConfigError, RecordError, ValueError)) as e:
        call()
    assert needle in str(e.value)
    assert "\n" not in str(e.value)  # one line
    assert _snapshot(folder) == []


# ----------------------------------------------------------------------------- papermill


def _papermill(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    bin_dir = os.path.dirname(sys.executable)
    nb = subprocess.run([os.path.join(bin_dir, "jupytext"), "--to", "ipynb", "-o", "-", str(NE1)],
                        capture_output=True, text=True, check=True).stdout
    return subprocess.run([os.path.join(bin_dir, "papermill"), "-", str(tmp_path / "out.ipynb"), "-k", "python3",
                           "--cwd", str(NE1.parent), *args], input=nb, capture_output=True, text=True, env=env)


SMOKE = ["-p", "PRESET", "smoke"]  # were a check to let a value through, the run would be a smoke one


@pytest.mark.notebooks
@pytest.mark.parametrize("args,needle", [
    pytest.param(SMOKE + ["-p", "SEEDS", "abc"], "bad SEEDS 'abc'", id="p-seeds-word"),
    pytest.param(SMOKE + ["-p", "SEEDS", "[0, -1]"], "bad SEEDS [0, -1]", id="p-seeds-negative"),
    pytest.param(SMOKE + ["-p", "DEVICE", "tpu9"], "'tpu9'", id="p-device"),
    pytest.param(["-p", "PRESET", "huge"], "bad PRESET 'huge'", id="p-preset"),
    pytest.param(SMOKE + ["-p", "SEED", "3"], "unknown parameter 'SEED' (= 3) for ne1: did you mean 'SEEDS'?",
                 id="p-undeclared"),
    pytest.param(SMOKE + ["-y", "SEEDS: [0, x]"], "bad SEEDS [0, 'x']", id="y-seeds"),
    pytest.param(SMOKE + ["-y", "MODELS: [gru]"], "unknown model 'gru' for ne1", id="y-models"),
    pytest.param(SMOKE + ["-y", "MODEL: [mamba]"], 'unknown parameter \'MODEL\' (= ["mamba"]) for ne1: did you mean '
                 "'MODELS'?", id="y-undeclared"),
])
def test_papermill_bad_parameters_stop_at_the_check(tmp_path, results, args, needle):
    folder, _ = results
    out = _papermill(tmp_path, *args)
    assert out.returncode != 0
    last = [line for line in out.stderr.splitlines() if line.strip()][-1]
    assert needle in last, out.stderr[-2000:]  # one line, the last of the output
    assert any(w in last for w in ("allowed", "expected", "did you mean")), last
    assert OURS not in out.stderr  # no frame of ours: a one-line message
    assert _snapshot(folder) == []


@pytest.mark.notebooks
def test_notebooks_in_a_pool_stop_at_the_first_failure_and_name_it(tmp_path):
    """``execute_notebooks`` with two workers: a notebook that stops at its parameter check raises the same
    NotebookError as one after another (it crosses the process boundary whole), names the bad value, and
    leaves only its partial notebook; no record is written."""
    from statetrack.site.book import NotebookError, execute_notebooks
    from statetrack.runs.store import results_dir

    with pytest.raises(NotebookError) as e:
        list(execute_notebooks(["ne1", "bl1", "ne2"], "smoke", workers=2, out_dir=tmp_path,
                               extra={"SEEDS": [0, -1]}))
    assert "ne1_parity_needs_negative_eigenvalues.md failed" in str(e.value) and "bad SEEDS [0, -1]" in str(e.value)
    assert not (tmp_path / "ne1_parity_needs_negative_eigenvalues.ipynb").exists()
    assert (tmp_path / "ne1_parity_needs_negative_eigenvalues.partial.ipynb").exists()
    assert not list(results_dir().rglob("*.json"))


# ----------------------------------------------------------------------------- corrupt and hostile files

NE1_RECORD = sorted((DATA / "results" / "parity").glob("mamba-neg-s1000-*.json"))[0]  # a committed ne1 record


def _record():
    import json

    return json.loads(NE1_RECORD.read_text())


def _set(rec, dotted, value):
    *path, last = dotted.split(".")
    d = rec
    for k in path:
        d = d[k]
    if value is _DROP:
        del d[last]
    else:
        d[last] = value
    return rec


_DROP = object()

#: (what the file holds, the field the message must name). Each is written over a copy of a real ne1 record.
RECORD_CASES = [
    (lambda r: _set(r, "summary.ood_acc", "high"), "'summary.ood_acc' holds 'high'"),
    (lambda r: _set(r, "summary.chance", None), "'summary.chance' holds None"),
    (lambda r: _set(r, "summary.id_acc", _DROP), "'summary.id_acc'"),
    (lambda r: _set(r, "summary", "none"), "'summary' holds 'none'"),
    (lambda r: _set(r, "summary.ood_normalized", [1]), "'summary.ood_normalized' holds [1]"),
    (lambda r: _set(r, "summary.id_acc", True), "'summary.id_acc' holds True"),
    (lambda r: _set(r, "by_length.acc", r["by_length"]["acc"][:-1]), "'by_length.acc'"),
    (lambda r: _set(r, "by_length.length", ["x"] + r["by_length"]["length"][1:]), "'by_length.length[0]' holds 'x'"),
    (lambda r: _set(r, "by_length.acc", ["1.0"] + r["by_length"]["acc"][1:]), "'by_length.acc[0]' holds '1.0'"),
    (lambda r: _set(r, "by_length", [1, 2]), "'by_length' holds [1, 2]"),
    (lambda r: _set(r, "status", "great"), "status 'great'"),
    (lambda r: _set(r, "key", "00000000"), "key '00000000'"),
    (lambda r: _set(r, "schema", 99), "schema 99"),
    (lambda r: _set(r, "provenance", "yesterday"), "'provenance'"),
    (lambda r: _set(r, "config.model.name", "gpt5"), "'gpt5'"),
    (lambda r: _set(r, "config.train.lr", "fast"), "'fast'"),
    (lambda r: _set(r, "config.train.lr", -1.0), "lr=-1.0"),
    (lambda r: _set(r, "config.seed", _DROP) and _set(r, "config.colour", 1), "'colour'"),
    (lambda r: [r], "got list"),
]


@pytest.mark.parametrize("index", range(len(RECORD_CASES)))
@pytest.mark.parametrize("door", ["verify", "reproduce"])
def test_corrupt_record_names_file_and_field(capsys, results, index, door):
    """A record that parses but holds a bad field: ``verify`` and ``reproduce`` (before any training) name both."""
    import json

    folder, _ = results
    make, needle = RECORD_CASES[index]
    path = _smoke_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(make(_record())))
    before = _snapshot(folder)
    argv = ["verify", "--preset", "smoke"] if door == "verify" else ["reproduce", "ne1", "--preset", "smoke"]
    assert _cli(argv) == 2
    err = capsys.readouterr().err
    assert str(path) in err and needle in err and err.count("\n") == 1, err
    assert "Traceback" not in err and OURS not in err
    assert _snapshot(folder) == before


#: Files that do not even parse: name → bytes.
UNREADABLE = {
    "truncated": b'{"schema": 1, "key": ',
    "not-utf8": b'{"schema": 1, "key": "\xff\xfe"}',
    "nested-100000-deep": b"[" * 100_000 + b"]" * 100_000,
    "empty": b"",
    "nul-bytes": b"\x00" * 64,
}


@pytest.mark.parametrize("name", UNREADABLE)
def test_unreadable_record_is_named(capsys, results, name):
    from statetrack.runs.store import read_record

    folder, _ = results
    path = _smoke_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(UNREADABLE[name])
    before = _snapshot(folder)
    with pytest.raises(RecordError) as e:
        read_record(path)  # the Python API
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    assert _cli(["verify", "--preset", "smoke"]) == 2  # the command
    err = capsys.readouterr().err
    assert str(path) in err and "corrupt result record" in err and OURS not in err and "Traceback" not in err
    assert _snapshot(folder) == before


def test_a_folder_where_a_record_should_be_is_named(capsys, results):
    folder, _ = results
    path = _smoke_path()
    path.mkdir(parents=True)
    assert _cli(["reproduce", "ne1", "--preset", "smoke"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "cannot read" in err and OURS not in err


# checkpoints (x2 keeps weights; runs.load_model reads them with torch.load(weights_only=True))

X2_RECORD = sorted((DATA / "results").glob("*/*.pt"))[0].with_suffix(".json")  # a committed run with weights (x2)


class _RunsCode:
    """Unpickling this calls ``marker.touch()``: what a hostile checkpoint would do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import pathlib

        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def _state():
    import torch

    from statetrack.runs.store import read_record
    from statetrack.runs.execute import load_model

    rec = read_record(X2_RECORD)
    return rec, {k: v.clone() for k, v in load_model(rec, X2_RECORD.with_suffix(".pt")).state_dict().items()}


def _checkpoint_cases(tmp_path, state):
    import pickle

    import torch

    name = next(iter(state))  # a field of the model

    def first(s):
        return name

    return {
        "runs-code": (lambda p, s: p.write_bytes(pickle.dumps(_RunsCode(tmp_path / "pwned"))), "Unsupported"),
        "torch-save-of-code": (lambda p, s: torch.save({"w": _RunsCode(tmp_path / "pwned")}, p), "the whole file"),
        "truncated": (lambda p, s: p.write_bytes(X2_RECORD.with_suffix(".pt").read_bytes()[:500]), "the whole file"),
        "not-a-checkpoint": (lambda p, s: p.write_text("weights"), "the whole file"),
        "a-list": (lambda p, s: torch.save(list(s.values()), p), "holds a list"),
        "wrong-shape": (lambda p, s: torch.save({**s, first(s): torch.zeros(3, 3, 3)}, p), f"field {name!r} has shape"),
        "extra-field": (lambda p, s: torch.save({**s, "backdoor": torch.zeros(1)}, p), "field 'backdoor'"),
        "missing-field": (lambda p, s: torch.save({k: v for k, v in s.items() if k != first(s)}, p),
                          f"field {name!r} is missing"),
        "a-string-field": (lambda p, s: torch.save({**s, first(s): "weights"}, p), f"field {name!r} holds a str"),
    }


CHECKPOINT_CASES = ["runs-code", "torch-save-of-code", "truncated", "not-a-checkpoint", "a-list", "wrong-shape",
                    "extra-field", "missing-field", "a-string-field"]


@pytest.mark.parametrize("case", CHECKPOINT_CASES)
def test_bad_checkpoint_is_refused_naming_file_and_field(tmp_path, results, case):
    from statetrack.runs.execute import load_model

    folder, _ = results
    rec, state = _state()
    write, needle = _checkpoint_cases(tmp_path, state)[case]
    path = tmp_path / "run.pt"
    write(path, state)
    assert not (tmp_path / "pwned").exists()  # writing it ran nothing
    with pytest.raises(RecordError) as e:
        load_model(rec, path)
    assert str(path) in str(e.value) and needle in str(e.value) and "\n" not in str(e.value), str(e.value)
    assert not (tmp_path / "pwned").exists()  # loading it ran nothing
    assert _snapshot(folder) == []


def test_checkpoint_case_list_is_complete(tmp_path):
    assert sorted(_checkpoint_cases(tmp_path, {"w": None})) == sorted(CHECKPOINT_CASES)
