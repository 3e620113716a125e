"""A record does not depend on the thread count: every CPU run trains with one intra-op thread (runs.cpu_threads).

Each run here is a fresh process (torch's thread pools are per process), the same config and seed. With the
rule, a process started with 1 or with 2 threads writes the same record, bit for bit, but for provenance and
timings. The negative control lifts the rule (``STATETRACK_THREADS=2``) and shows that the comparison would
catch a difference: 30 steps of DeltaNet already move the loss history.
"""

import json
import os
import subprocess
import sys

import pytest

from statetrack.config import ConfigError

SCRIPT = r"""
import json, os, sys, torch
from statetrack.config import EvalConfig, RunConfig, TrainConfig
from statetrack.models import model_config
from statetrack.runs.execute import run
from statetrack.tasks import task_config

torch.set_num_threads(int(sys.argv[1]))  # what the process was started with
cfg = RunConfig(task_config("parity"),
                model_config("deltanet", eig_range="[-1,1]", d_model=32, num_heads=4, num_layers=1),
                TrainConfig(num_steps=30, batch_size=64, lr=1e-2, warmup_steps=5, min_len=40, max_len=40, log_every=1,
                            eval_every=0),
                EvalConfig(min_len=40, max_len=64, num_seqs=64), seed=0)
print(json.dumps(run(cfg, "threads", device="cpu")))
"""


def _record(process_threads: int, override: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "STATETRACK_THREADS"}
    env.update(OMP_NUM_THREADS=str(process_threads), MKL_NUM_THREADS=str(process_threads))
    if override is not None:
        env["STATETRACK_THREADS"] = override
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(process_threads)], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _numbers(rec: dict) -> str:
    """Everything a record says about the run but its provenance and timings, canonically."""
    rest = {k: v for k, v in rec.items() if k != "provenance"}
    rest["history"] = {k: v for k, v in rest["history"].items() if "time" not in k}
    return json.dumps(rest, sort_keys=True)


@pytest.fixture(scope="module")
def records():
    """The four runs, two processes at a time (each is its own process; a record does not depend on what else
    runs on the machine, only on its own thread count): about half the wall time of one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    runs = {"1": (1, None), "2": (2, None), "lifted 1": (2, "1"), "lifted 2": (2, "2")}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(_record, *args) for name, args in runs.items()}
        return {name: f.result() for name, f in futures.items()}


def test_one_and_two_thread_processes_write_the_same_record(records):
    one, two = records["1"], records["2"]
    assert one["provenance"]["threads"] == two["provenance"]["threads"] == 1
    assert _numbers(one) == _numbers(two)


def test_the_comparison_would_catch_a_thread_count_difference(records):
    """Negative control: the rule lifted, 1 and 2 threads give different records (fp32 reduction order)."""
    one, two = records["lifted 1"], records["lifted 2"]
    assert (one["provenance"]["threads"], two["provenance"]["threads"]) == (1, 2)
    assert _numbers(one) != _numbers(two)
    assert _numbers(one) == _numbers(records["1"])  # lifting to 1 thread is the rule itself


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_thread_count_is_named(monkeypatch, value):
    from statetrack.runs.execute import run_threads

    monkeypatch.setenv("STATETRACK_THREADS", value)
    with pytest.raises(ConfigError, match=f"STATETRACK_THREADS={value!r} is not allowed"):
        run_threads()
