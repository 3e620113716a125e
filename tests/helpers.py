"""Small helpers shared by the test modules (imported as ``from helpers import ...``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch


def rel_err(x: torch.Tensor, ref: torch.Tensor, scale: float | None = None) -> float:
    """‖x − ref‖ / ‖ref‖ in fp64 on the CPU, or ‖x − ref‖ / ``scale`` where the caller names the scale.

    A reference that is exactly zero has no relative error: the fast path's rounding (about one ulp of
    the terms that cancel to zero) differs between CPUs, so such a comparison raises and the caller
    passes ``scale``, the size of those terms, making the bound absolute.
    """
    x, ref = x.detach().double().cpu(), ref.detach().double().cpu()
    denom = ref.norm().item() if scale is None else float(scale)
    if not denom > 0:
        raise ValueError("rel_err: the reference is exactly zero; pass scale= (the size of the terms that cancel)")
    return (x - ref).norm().item() / denom


def rollout(model, tokens: torch.Tensor):
    """Logits (B, T, K) and the last state from T calls of ``model.step``, starting at ``init_state``."""
    state = model.init_state(tokens.shape[0], tokens.device)
    logits = []
    for tok in tokens.unbind(dim=1):  # (B,) each
        y, state = model.step(tok, state)  # (B, K)
        logits.append(y)
    return torch.stack(logits, dim=1), state  # (B, T, K)


def fake_record(cfg, value: float | None, status: str | None = None, *, summary: dict | None = None,
                by_length: bool = False, at: dict[int, float] | None = None, fitted: bool = True, **fields) -> dict:
    """A run record of ``cfg`` with a chosen score, to exercise a claim's rules (never a result).

    The config and key are the run's own (``run_key``), so a claim finds the record's cell as it finds a
    trained one.

    Args:
        cfg: the run's ``RunConfig``.
        value: the normalized test accuracy, ``summary["ood_normalized"]``; None makes a diverged run.
        status: "ok", "diverged" or "failed" (default: "ok" with a value, "diverged" without); only an "ok"
            record carries a summary, as in the store.
        summary: the summary's other numbers (default ``{"id_normalized": 1.0}``; ``chance`` 0 unless given).
        by_length: add accuracy by length: ``acc`` and ``seq_acc`` equal ``value`` at every length
            1..cfg.eval.max_len, except where ``at`` (length → accuracy) says otherwise.
        fitted: whether the run fitted its training lengths (``verdicts.seed_statistics``): accuracy 1 (else ``value``) at
            the longest training length, unless ``at`` sets it; a language model's validation loss 0 (else 99).
        fields: further top-level keys (``claim``, ``stale``, ``provenance``, ``history``, ...).
    """
    from statetrack.runs.store import run_key

    status = status or ("ok" if value is not None else "diverged")
    rec = {"config": cfg.to_dict(), "key": run_key(cfg), "status": status}
    if status == "ok":
        rec["summary"] = {"ood_normalized": value, **({"id_normalized": 1.0} if summary is None else summary)}
        rec["summary"].setdefault("chance", 0.0)
        if cfg.task.name == "byte_lm":
            rec["summary"].setdefault("val_loss", 0.0 if fitted else 99.0)
        at = {cfg.train.max_len: 1.0 if fitted else value, **(at or {})}
        lengths = sorted(set(range(1, cfg.eval.max_len + 1)) | set(at)) if by_length else sorted(at)
        values = [at.get(n, value) for n in lengths]
        rec["by_length"] = {"length": lengths, "acc": values, "seq_acc": list(values)}
    return {**rec, **fields}


def outcomes(verdict) -> dict:
    """A verdict's statements by id → their outcome ("holds", "fails" or "not run")."""
    return {o.statement.id: o.outcome for o in verdict.statements}


def outcome_objects(verdict) -> dict:
    """A verdict's statements by id → their ``Outcome`` (value, seeds passing, reason)."""
    return {o.statement.id: o for o in verdict.statements}


# ----------------------------------------------------------------------------- records checked by verify --records


def put(folder: Path, rel: str, rec) -> Path:
    """Write ``rec`` (an object as JSON, or text as it is) at ``folder/rel``."""
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rec if isinstance(rec, str) else json.dumps(rec, indent=1, sort_keys=True) + "\n")
    return path


def verify(capsys, folder: Path, *flags: str) -> tuple[int, list[str], str]:
    """``statetrack verify --records folder *flags``: its exit status, stdout lines and stderr."""
    from statetrack.cli import main

    rc = main(["verify", "--records", str(folder), *flags])
    out, err = capsys.readouterr()
    return rc, out.splitlines(), err


def key_of(config: dict) -> str:
    """The run key computed here, independently of the package: SHA-256 of the canonical schema-1 JSON."""
    payload = json.dumps({"schema": 1, "config": config}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:8]


# ----------------------------------------------------------------------------- verdict words


def all_held_word(v) -> str:
    """The word of a verdict whose decided paper statements all hold, counted here from its outcomes: "reproduced"
    when every paper experiment statement is decided (holds or fails), else "supported"."""
    paper = [o for o in v.statements if o.statement.kind != "construction" and not o.statement.ours]
    return "reproduced" if all(o.outcome in ("holds", "fails") for o in paper) else "supported"


def with_coverage(v, word: str) -> str:
    """``word`` as a verdict line and chip show it: followed by "k of n decided", counted here from the outcomes,
    where fewer than all of the paper's experiment statements hold or fail."""
    paper = [o for o in v.statements if o.statement.kind != "construction" and not o.statement.ours]
    decided = sum(o.outcome in ("holds", "fails") for o in paper)
    return word if decided == len(paper) else f"{word}, {decided} of {len(paper)} decided"
