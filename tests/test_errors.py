"""One error contract at every door: a bad value stops before any work, named as given, with what is allowed.

Doors: the ``statetrack`` command (exit 2, one line, no traceback), the Python API the notebooks call
(``ConfigError`` / ``RecordError`` naming the value), and notebook parameters under papermill ``-p`` / ``-y``
(the notebook stops at the parameter check with a one-line message; papermill's own CLI still prints
its frames, but none of ours). Every case also checks that nothing under the results folder changed.
"""

import os
import stat
import subprocess
import sys

import pytest

from statetrack.cli import main
from statetrack.config import ConfigError
from statetrack.results import RecordError, repo_root

NE1 = repo_root() / "notebooks" / "ne1_parity_needs_negative_eigenvalues.md"
TRAIN = ["train", "--task", "parity", "--model", "mamba", "--preset", "smoke"]


def _snapshot(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "results"
    corrupt = folder / "ne1" / "parity-mamba-pos-s0-00000000.json"
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
    (["reproduce", "zz1", "--preset", "smoke"], "no notebook yet"),  # conftest.planned_claim
    (["reproduce", "ne1", "--preset", "smoke", "--device", "tpu"], "'tpu'"),
    (["verify", "--preset", "smoke"], None),  # not bad input: listed to pin that it succeeds
]


@pytest.mark.parametrize("argv,needle", [pytest.param(a, n, id=" ".join(a[4:] if a[0] == "train" else a)[:60])
                                         for a, n in CLI_CASES])
def test_cli_bad_input(capsys, results, planned_claim, argv, needle):
    folder, _ = results
    before = _snapshot(folder)
    code = main(argv)
    err = capsys.readouterr().err
    if needle is None:
        assert code == 0
        return
    assert code == 2, err
    assert needle in err and err.startswith("statetrack: error: ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert _snapshot(folder) == before


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
    import statetrack.claims as claims

    monkeypatch.setattr(claims, "estimate_seconds", lambda cfg, device="auto": 3600.0)
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
    from statetrack import claims
    from statetrack.claims import ne1
    from statetrack.config import RunConfig
    from statetrack.models import model_config
    from statetrack.results import paper_numbers
    from statetrack.tasks import task_config

    base = RunConfig(task=task_config("parity"), model=model_config("mamba"))
    return [
        (lambda: claims.parameters("ne1", PRESET="huge"), "'huge'"),
        (lambda: claims.parameters("ne1", SEEDS="abc"), "'abc'"),
        (lambda: claims.parameters("ne1", SEEDS="[0, -1]"), "[0, -1]"),
        (lambda: claims.parameters("ne1", DEVICE="tpu9"), "'tpu9'"),
        (lambda: claims.parameters("ne1", DEVICE=3), "DEVICE 3"),
        (lambda: claims.parameters("ne1", FORCE="yes please"), "'yes please'"),
        (lambda: claims.parameters("ne1", CONFIRM_LONG=2), "CONFIRM_LONG 2"),
        (lambda: claims.parameters("ne9"), "'ne9'"),
        (lambda: claims.run_claim("ne1", "smoke", seeds=[-3]), "[-3]"),
        (lambda: claims.run_claim("ne1", "smoke", models=["gru"]), "'gru'"),
        (lambda: claims.run_claim("ne1", "smoke", device="tpu"), "'tpu'"),
        (lambda: claims.run_claim("ne1", "tiny"), "'tiny'"),
        (lambda: ne1.grid("quick", lrs=[0.0]), "[0.0]"),
        (lambda: ne1.grid("quick", lrs=[float("nan")]), "[nan]"),
        (lambda: base.override({"train.lr": "inf"}), "'inf'"),
        (lambda: base.override({"model.d_state": "2.5"}), "'2.5'"),
        (lambda: base.override({"task.modulus": "3"}), "'task.modulus'"),
        (lambda: task_config("modular_addition", modulus=0), "modulus=0"),
        (lambda: model_config("deltanet", num_heads=3), "num_heads=3"),
        (lambda: paper_numbers("ne_table9"), "'ne_table9'"),
    ]


@pytest.mark.parametrize("index", range(20))
def test_api_bad_input(results, index):
    folder, _ = results
    call, needle = _api_cases()[index]
    with pytest.raises((ConfigError, RecordError, ValueError)) as e:
        call()
    assert needle in str(e.value)
    assert _snapshot(folder) == []


# ----------------------------------------------------------------------------- papermill


def _papermill(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    bin_dir = os.path.dirname(sys.executable)
    nb = subprocess.run([os.path.join(bin_dir, "jupytext"), "--to", "ipynb", "-o", "-", str(NE1)],
                        capture_output=True, text=True, check=True).stdout
    return subprocess.run([os.path.join(bin_dir, "papermill"), "-", str(tmp_path / "out.ipynb"), "-k", "python3",
                           "--cwd", str(NE1.parent), *args], input=nb, capture_output=True, text=True, env=env)


@pytest.mark.notebooks
@pytest.mark.parametrize("args,needle", [
    pytest.param(["-p", "SEEDS", "abc"], "bad SEEDS 'abc'", id="p-seeds-word"),
    pytest.param(["-p", "SEEDS", "[0, -1]"], "bad SEEDS [0, -1]", id="p-seeds-negative"),
    pytest.param(["-p", "DEVICE", "tpu9"], "'tpu9'", id="p-device"),
    pytest.param(["-p", "PRESET", "huge"], "bad PRESET 'huge'", id="p-preset"),
    pytest.param(["-y", "SEEDS: [0, x]"], "bad SEEDS [0, 'x']", id="y-seeds"),
    pytest.param(["-y", "MODELS: [gru]"], "unknown model 'gru' for ne1", id="y-models"),
])
def test_papermill_bad_parameters_stop_at_the_check(tmp_path, results, args, needle):
    folder, _ = results
    out = _papermill(tmp_path, *args)
    assert out.returncode != 0
    assert needle in out.stderr
    assert 'File "' + str(repo_root() / "src") not in out.stderr  # no frame of ours: a one-line message
    assert _snapshot(folder) == []


@pytest.mark.notebooks
def test_notebooks_in_a_pool_stop_at_the_first_failure_and_name_it(tmp_path):
    """``execute_notebooks`` with two workers: a notebook that stops at its parameter check raises the same
    NotebookError as one after another (it crosses the process boundary whole), names the bad value, and
    leaves only its partial notebook; no record is written."""
    from statetrack.book import NotebookError, execute_notebooks
    from statetrack.results import results_dir

    with pytest.raises(NotebookError) as e:
        list(execute_notebooks(["ne1", "bl1", "ne2"], "smoke", workers=2, out_dir=tmp_path,
                               extra={"SEEDS": [0, -1]}))
    assert "ne1_parity_needs_negative_eigenvalues.md failed" in str(e.value) and "bad SEEDS [0, -1]" in str(e.value)
    assert not (tmp_path / "ne1_parity_needs_negative_eigenvalues.ipynb").exists()
    assert (tmp_path / "ne1_parity_needs_negative_eigenvalues.partial.ipynb").exists()
    assert not list(results_dir().rglob("*.json"))
