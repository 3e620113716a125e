"""One run: train and evaluate a config, and the record that says what happened (``run``, ``load_or_run``).

``run(cfg, claim)`` builds the task and the model from the config, seeds everything from the run's
seed, trains with ``training.fit`` and evaluates with ``evaluate.evaluate_run``; it returns the record
(not written). ``load_or_run`` hands it to the store (``results.load_or_make``), which returns a
stored record when there is one and otherwise writes the new one atomically under the run's lock.

Used in: ``claims.run_claim``, ``statetrack.sweep``, ``statetrack train``.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import torch

from statetrack.config import RunConfig
from statetrack.provenance import provenance
from statetrack.results import SCHEMA_VERSION, load_or_make, run_key


def run(cfg: RunConfig, claim: str, device: str | torch.device = "auto", progress: bool = False,
        preset: str | None = None) -> dict[str, Any]:
    """Train and evaluate one config and return its record (not written)."""
    from statetrack.evaluate import evaluate_run
    from statetrack.models import make_model
    from statetrack.tasks import make_task
    from statetrack.training import fit, resolve_device, seed_everything

    dev = resolve_device(device)
    wall = time.perf_counter()
    task = make_task(cfg.task)
    seed_everything(cfg.seed)
    model = make_model(cfg.model, task.vocab_size, task.num_classes).to(dev)

    # A task with its own measures (language modelling: perplexity by position) evaluates itself.
    evaluate = getattr(task, "evaluate", None) or functools.partial(evaluate_run, task=task)

    def on_eval(step: int) -> dict:
        s = evaluate(model, train=cfg.train, ev=cfg.eval, device=dev)["summary"]
        return {k: s[k] for k in ("ood_acc", "id_acc", "val_loss") if k in s}

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
    record["provenance"] = {**provenance(dev, cfg), "train_time_s": round(fitted.train_time_s, 3),
                            "wall_time_s": round(time.perf_counter() - wall, 3)}
    return record


def failed_record(cfg: RunConfig, claim: str, preset: str | None, error: BaseException) -> dict[str, Any]:
    """The record of a run that raised: its config, status "failed" and the reason (retried next time)."""
    return {"schema": SCHEMA_VERSION, "key": run_key(cfg), "claim": claim, "preset": preset, "config": cfg.to_dict(),
            "status": "failed", "reason": f"{type(error).__name__}: {error}",
            "provenance": provenance(torch.device("cpu"), cfg)}


def load_or_run(cfg: RunConfig, claim: str, force: bool = False, device: str | torch.device = "auto",
                progress: bool = False, preset: str | None = None) -> dict[str, Any]:
    """The stored record of ``cfg`` if there is one (and not ``force``); otherwise train, store, return it.

    A stored record with status "failed" is retried. A training error is stored as a failed record
    (with the reason) and then raised.
    """
    return load_or_make(claim, cfg, lambda: run(cfg, claim, device=device, progress=progress, preset=preset),
                        force=force, failed=lambda e: failed_record(cfg, claim, preset, e))
