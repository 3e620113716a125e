"""One run: train and evaluate a config, and the record that says what happened (``run``, ``load_or_run``).

``run(cfg, claim)`` builds the task and the model from the config, seeds everything from the run's
seed, trains with ``training.fit`` and evaluates with ``evaluate.evaluate_run``; it returns the record
(not written). ``load_or_run`` hands it to the store (``results.load_or_make``), which returns a
stored record when there is one and otherwise writes the new one atomically under the run's lock.

With ``checkpoint=True`` the trained weights are kept too, next to the record
(``results.checkpoint_path``: the record's name with ``.pt``), as a plain ``state_dict`` of tensors written
atomically; ``load_model`` rebuilds the model from a record and loads them with
``torch.load(weights_only=True)``, so nothing is ever unpickled. Claims that only need accuracies
keep no weights; x2 (the eigenvalue explorer) reads the learned transitions from them.

Every CPU run builds, trains and evaluates its model with one intra-op thread (``cpu_threads``):
the order of fp32 reductions, and so every number of a record, then depends on the config and the
seed alone, not on how many cores the machine or the process has. Parallelism comes from workers
(``statetrack reproduce --workers``, ``sweep --workers``). ``STATETRACK_THREADS=N`` overrides it (a
record says ``threads`` in its provenance); a GPU run keeps torch's CPU setting, which it barely uses.

Used in: ``verdicts.registry.run_claim``, ``statetrack.tools.sweep``, ``statetrack train``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from statetrack.config import ConfigError, RunConfig
from statetrack.runs.provenance import provenance
from statetrack.runs.store import SCHEMA_VERSION, RecordError, checkpoint_path, forcing, load_or_make, run_key
from statetrack.evaluate import evaluate_run
from statetrack.models import make_model
from statetrack.tasks import make_task
from statetrack.training import resolve_device, fit, seed_everything


def save_checkpoint(model: torch.nn.Module, path: Path) -> None:
    """Write ``model``'s state_dict (tensors only, on the CPU) atomically: temp file in the same folder, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        torch.save(state, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_model(record: dict[str, Any], path: Path) -> torch.nn.Module:
    """The trained model of ``record`` from its checkpoint at ``path`` (CPU, fp32, eval mode).

    The file is read with ``torch.load(weights_only=True)``: tensors only, never arbitrary objects.
    A missing, unreadable or mismatched file raises ``RecordError`` naming it.
    """

    cfg = RunConfig.from_dict(record["config"])
    task = make_task(cfg.task)
    model = make_model(cfg.model, task.vocab_size, task.num_classes)
    if not Path(path).exists():
        raise RecordError(f"no checkpoint {path} for run {record['key']}: rerun it with FORCE = True to keep its weights")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # a truncated file, not a checkpoint, a pickle that would build objects (run code)
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        why = next((ln for ln in lines if "Unsupported" in ln or "GLOBAL" in ln), lines[0] if lines else "")
        raise RecordError(f"checkpoint {path} of run {record['key']} cannot be read as tensors (field: the whole "
                          f"file; {type(e).__name__}: {why[:160]}); allowed: a state_dict written by statetrack, "
                          "rerun with FORCE = True to write it again") from None
    _check_state(path, record, state, model.state_dict())
    model.load_state_dict(state)
    return model.eval()


def _check_state(path: Path, record: dict[str, Any], state: Any, expected: dict[str, torch.Tensor]) -> None:
    """A loaded checkpoint against the model's own state_dict: each fault names the file and the field."""
    def bad(what: str) -> RecordError:
        return RecordError(f"checkpoint {path} of run {record['key']}: {what}; rerun with FORCE = True to write it again")

    if not isinstance(state, dict):
        raise bad(f"holds a {type(state).__name__}; allowed: a state_dict (parameter name -> tensor)")
    for name, value in state.items():
        if name not in expected:
            raise bad(f"field {name!r} is not a parameter of the model; allowed: {', '.join(list(expected)[:8])}, ...")
        if not isinstance(value, torch.Tensor):
            raise bad(f"field {name!r} holds a {type(value).__name__}; allowed: a tensor")
        if value.shape != expected[name].shape:
            raise bad(f"field {name!r} has shape {tuple(value.shape)}; allowed: {tuple(expected[name].shape)}")
    missing = [k for k in expected if k not in state]
    if missing:
        raise bad(f"field {missing[0]!r} is missing ({len(missing)} of the model's {len(expected)} fields are)")


THREADS = "STATETRACK_THREADS"  # intra-op threads of a CPU run (default 1)


def run_threads() -> int:
    """The intra-op threads every CPU run uses: 1, or ``$STATETRACK_THREADS``; a bad value is named."""
    value = os.environ.get(THREADS, "").strip()
    if not value:
        return 1
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"{THREADS}={value!r} is not allowed: a whole number >= 1 (default 1)")
    return int(value)


@contextlib.contextmanager
def cpu_threads(device: torch.device):
    """Within the block a CPU run has ``run_threads()`` intra-op threads; torch's setting is restored after."""
    if device.type != "cpu":
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(run_threads())
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run(cfg: RunConfig, claim: str, device: str | torch.device = "auto", progress: bool = False,
        preset: str | None = None, checkpoint: bool = False) -> dict[str, Any]:
    """Train and evaluate one config and return its record (not written); ``checkpoint`` also writes the
    trained weights to ``checkpoint_path(cfg)`` (only for a run that did not diverge). A CPU run
    uses ``run_threads()`` intra-op threads throughout (``cpu_threads``)."""

    dev = resolve_device(device)
    with cpu_threads(dev):
        return _run(cfg, claim, dev, progress, preset, checkpoint)


def build(cfg: RunConfig, dev: torch.device) -> tuple[Any, torch.nn.Module, Callable[..., dict], Callable[[int], dict]]:
    """A run of ``cfg`` ready to train, as every run and every replay (``runs.replay``) builds it: the task, the model
    initialised from the run's seed on ``dev``, its evaluation (a task with its own measures, language modelling,
    evaluates itself) and ``fit``'s ``on_eval``, the evaluation in mid-training that the history keeps."""
    task = make_task(cfg.task)
    seed_everything(cfg.seed)
    model = make_model(cfg.model, task.vocab_size, task.num_classes).to(dev)
    evaluate = getattr(task, "evaluate", None) or functools.partial(evaluate_run, task=task)

    def on_eval(step: int) -> dict:
        s = evaluate(model, train=cfg.train, ev=cfg.eval, device=dev)["summary"]
        return {k: s[k] for k in ("ood_acc", "id_acc", "val_loss") if k in s}

    return task, model, evaluate, on_eval


def _run(cfg: RunConfig, claim: str, dev: torch.device, progress: bool, preset: str | None,
         checkpoint: bool) -> dict[str, Any]:
    wall = time.perf_counter()
    task, model, evaluate, on_eval = build(cfg, dev)

    record: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "key": run_key(cfg),
        "claim": claim,
        "preset": preset,
        "config": cfg.to_dict(),
        "num_params": sum(p.numel() for p in model.parameters()),
    }
    fitted = fit(model, task, cfg.train, cfg.seed, dev, progress=progress, on_eval=on_eval)
    record.update(status=fitted.status, reason=fitted.reason, diverged_step=fitted.diverged_step,
                  history=fitted.history, final_loss=fitted.final_loss)
    if fitted.status == "ok":
        record.update(evaluate(model, train=cfg.train, ev=cfg.eval, device=dev))
        if checkpoint:
            save_checkpoint(model, checkpoint_path(cfg))
    record["provenance"] = {**provenance(dev, cfg), "train_time_s": round(fitted.train_time_s, 3),
                            "wall_time_s": round(time.perf_counter() - wall, 3)}
    return record


def failed_record(cfg: RunConfig, claim: str, preset: str | None, error: BaseException) -> dict[str, Any]:
    """The record of a run that raised: its config, status "failed" and the reason (retried next time)."""
    return {"schema": SCHEMA_VERSION, "key": run_key(cfg), "claim": claim, "preset": preset, "config": cfg.to_dict(),
            "status": "failed", "reason": f"{type(error).__name__}: {error}",
            "provenance": provenance(torch.device("cpu"), cfg)}


def load_or_run(cfg: RunConfig, claim: str, force: bool = False, device: str | torch.device = "auto",
                progress: bool = False, preset: str | None = None, checkpoint: bool = False) -> dict[str, Any]:
    """The stored record of ``cfg`` unless ``results.run_state`` says it is missing or forced; else train, store it.

    ``force`` retrains inside a ``results.forcing`` block (once: a run already retrained by the running
    command counts as done). A stored record with status "failed" is retried. A training error is stored
    as a failed record (with the reason) and then raised. With ``checkpoint`` (the claim keeps weights) an
    "ok" record whose weights are missing is retrained so that they are kept. ``claim`` is the claim the
    run is made for (the record says so); the record's place depends on the run alone.
    """
    with forcing() if force else contextlib.nullcontext():
        return load_or_make(cfg, lambda: run(cfg, claim, device=device, progress=progress, preset=preset,
                                             checkpoint=checkpoint),
                            weights=checkpoint, failed=lambda e: failed_record(cfg, claim, preset, e))
