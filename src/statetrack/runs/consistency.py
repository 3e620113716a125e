"""A record agrees with itself: summary = f(by_length, config), history = fit's log of config, status = what they show.

A run's record holds its per-length accuracies and its training log beside the summary the verdicts read. Every
summary field that the record's own data and config determine is recomputed here with the evaluation's own
functions (``evaluate.in_distribution_range``, ``LengthCurve.mean_acc``, ``normalized``; a task's ``chance``), and
so is the shape of the training log (``training.lr_at`` at the steps ``fit`` logs). ``disagreements(rec, cfg,
task)`` lists each field that differs, with both values; an empty list means the record agrees with itself.

What is checked, per kind of evaluation:

- **A task evaluated by ``evaluate.evaluate_run``**: the evaluated lengths are those the evaluation config asks
  for (a prefix-closed task may skip a length with no answer), and ``chance``, ``ood_acc``, ``ood_normalized``,
  ``id_acc``, ``id_normalized``, ``acc_at_max_len`` and ``seq_acc_at_max_len`` are recomputed from them; so is the
  fit (the accuracy at the longest training length), which is read from the same curve.
- **A task that evaluates itself (language modelling)**: the bins' ends, ``chance`` and ``context``; the
  perplexities and bits per byte from their losses; ``ood_normalized`` from ``ood_acc``; and, where the bins tile
  the span, ``id_acc``, ``ood_acc`` and the test losses within and beyond the context from the bins.
- **Every record that trained**: the logged steps are those ``fit`` logs (every ``log_every``-th and the last one
  run), each learning rate is ``lr_at`` its step, the losses are finite numbers and ``final_loss`` is the last;
  the evaluations during training fall every ``eval_every`` steps. An "ok" record logs its last step; a
  "diverged" one stops before its ``diverged_step`` and carries no accuracy.

Recomputed values are compared to ``EXACT`` where the record's number comes from the same float64 arithmetic on
the same stored numbers, and to ``BINNED`` where it is an fp32 mean over positions that the bins regroup.

Used in: ``statetrack.runs.intake`` (``statetrack verify --records``).
"""

from __future__ import annotations

import math
from typing import Any

from statetrack.config import RunConfig
from statetrack.evaluate import LengthCurve, in_distribution_range, normalized
from statetrack.tasks.base import Task
from statetrack.training import lr_at

#: Relative tolerance where the record's value is the same float64 arithmetic on the same stored numbers (a JSON
#: float reads back exactly, so only the last bit of a differently ordered sum is allowed).
EXACT = 1e-12
#: Relative tolerance where the record's value is one fp32 mean over positions and the recomputation a weighted
#: mean of fp32 bin means (float32 has a 6e-8 unit roundoff; a mean over 10^3 to 10^4 terms stays within 1e-5).
BINNED = 1e-5


def _close(a: float, b: float, rel: float) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=rel)


def _text(v: Any) -> str:
    return repr(v) if not isinstance(v, float) else f"{v:.9g}"


def disagreements(rec: dict[str, Any], cfg: RunConfig, task: Task) -> list[str]:
    """Each way ``rec`` disagrees with its own data and config, one phrase each naming the field and both values
    ("summary.ood_normalized holds 0.99; recomputed from its by_length: -0.015625"); empty when it agrees."""
    out = _history(rec, cfg)
    if rec["status"] == "ok":
        by_length = rec.get("by_length")
        if not isinstance(by_length, dict) or not isinstance(by_length.get("length"), list):
            return [*out, "field 'by_length' is missing; an 'ok' record holds its per-length results"]
        evaluate_self = getattr(task, "evaluate", None) is not None
        out += (_lm_summary if evaluate_self else _summary)(rec, cfg, task)
    elif rec["status"] == "diverged":
        for k in ("summary", "by_length"):
            if rec.get(k) is not None:
                out.append(f"field {k!r} is set; a 'diverged' run carries no accuracy")
    return out


def _mismatch(name: str, stored: Any, derived: Any, source: str, rel: float) -> list[str]:
    if isinstance(stored, bool) or not isinstance(stored, (int, float)) or not _close(float(stored), derived, rel):
        return [f"{name} holds {_text(stored)}; recomputed from {source}: {_text(derived)}"]
    return []


def _lengths_list(by_length: dict[str, Any], key: str) -> list[str]:
    """Per-length lists of the lengths' count, or the phrase saying which is not."""
    n, values = len(by_length["length"]), by_length.get(key)
    if not isinstance(values, list) or len(values) != n:
        got = len(values) if isinstance(values, list) else _text(values)
        return [f"field 'by_length.{key}' holds {got} values; allowed: one per evaluated length ({n})"]
    return []


def _summary(rec: dict[str, Any], cfg: RunConfig, task: Task) -> list[str]:
    """``evaluate.evaluate_run``'s summary, recomputed from the record's by_length and config."""
    by_length, summary, ev = rec["by_length"], rec["summary"], cfg.eval
    lengths = by_length["length"]
    bad = _lengths_list(by_length, "acc")
    if task.prefix_closed:
        bad += _lengths_list(by_length, "seq_acc")
    elif by_length.get("seq_acc") is not None:
        bad.append("field 'by_length.seq_acc' is set; allowed: null (the task draws one batch per length)")
    id_lo, id_hi = in_distribution_range(task, cfg.train)
    asked = sorted(set(range(id_lo, id_hi + 1, ev.stride)) | {id_hi} | set(ev.lengths))
    if task.prefix_closed:  # one batch at the longest length; a length with no answer is skipped
        expected_ok = all(isinstance(n, int) for n in lengths) and lengths == sorted(set(lengths)) \
            and set(lengths) <= set(asked)
        expected = "lengths among those asked for, in order: " + _span(asked)
    else:
        want = sorted({task.valid_length(n) for n in asked if n >= task.min_length()})
        expected_ok, expected = lengths == want, _span(want)
    if not expected_ok:
        bad.append(f"field 'by_length.length' holds {_span(lengths)}; the evaluation config asks for {expected}")
    if bad:
        return bad
    curve = LengthCurve(lengths, by_length["acc"], by_length.get("seq_acc"))
    derived = {"chance": task.chance}
    try:
        ood, idd = curve.mean_acc(ev.min_len, ev.max_len), curve.mean_acc(id_lo, id_hi)
    except ValueError as e:
        return [f"field 'by_length.length': {e}"]
    derived.update(ood_acc=ood, ood_normalized=normalized(ood, task.chance), id_acc=idd,
                   id_normalized=normalized(idd, task.chance),
                   acc_at_max_len=curve.acc[curve.length.index(max(n for n in curve.length if n <= ev.max_len))])
    if curve.seq_acc is not None:
        derived["seq_acc_at_max_len"] = curve.seq_acc[-1]
    for k, v in derived.items():
        bad += _mismatch(f"summary.{k}", summary.get(k), v, "its by_length" if k != "chance" else "its task", EXACT)
    return bad


def _span(lengths: list[Any]) -> str:
    return str(lengths) if len(lengths) <= 6 else f"[{', '.join(map(str, lengths[:3]))}, ..., {lengths[-1]}] " \
                                                    f"({len(lengths)} lengths)"


def _binned(by_length: dict[str, Any], key: str, lo: int, hi: int) -> float | None:
    """The mean of per-position ``key`` over positions [lo, hi) from the bins (a bin ends at its length and starts
    at the previous one's end), weighted by their widths; None where the bins do not tile [lo, hi)."""
    ends, values = by_length["length"], by_length[key]
    starts = [0, *ends[:-1]]
    inside = [(b - a, v) for a, b, v in zip(starts, ends, values) if a >= lo and b <= hi]
    if not inside or sum(w for w, _ in inside) != hi - lo:
        return None
    return sum(w * v for w, v in inside) / (hi - lo)


def _lm_summary(rec: dict[str, Any], cfg: RunConfig, task: Task) -> list[str]:
    """Language modelling's summary (``tasks.byte_lm``), recomputed where the record's own numbers fix it."""
    by_length, s, ev, ctx = rec["by_length"], rec["summary"], cfg.eval, cfg.train.max_len
    ends = list(range(ev.stride, ev.max_len + 1, ev.stride))
    if not ends or ends[-1] != ev.max_len:
        ends.append(ev.max_len)
    if by_length["length"] != ends:
        return [f"field 'by_length.length' holds {_span(by_length['length'])}; the evaluation config asks for "
                f"{_span(ends)}"]
    bad = _lengths_list(by_length, "acc") + _lengths_list(by_length, "loss")
    if bad:
        return bad
    nums = {k: s.get(k) for k in ("val_loss", "test_loss_within", "test_loss_beyond", "ood_acc")}
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in nums.values()):
        missing = next(k for k, v in nums.items() if isinstance(v, bool) or not isinstance(v, (int, float)))
        return [f"field 'summary.{missing}' holds {_text(s.get(missing))}; allowed: a number"]
    val, within, beyond, ood = (float(v) for v in nums.values())
    chance = 1.0 / task.num_classes
    exact = {"chance": chance, "context": ctx, "val_ppl": math.exp(val), "val_bpb": val / math.log(2),
             "test_ppl_within": math.exp(within), "test_ppl_beyond": math.exp(beyond),
             "test_bpb_beyond": beyond / math.log(2), "extrap_ratio": math.exp(beyond - within),
             "ood_normalized": (ood - chance) / (1 - chance)}
    for k, v in exact.items():
        bad += _mismatch(f"summary.{k}", s.get(k), v, "its other fields and config", EXACT)
    binned = {"id_acc": _binned(by_length, "acc", 0, ctx), "test_loss_within": _binned(by_length, "loss", ctx // 2, ctx)}
    if ev.max_len > ctx:
        binned.update(ood_acc=_binned(by_length, "acc", ctx, ev.max_len),
                      test_loss_beyond=_binned(by_length, "loss", ctx, ev.max_len))
    for k, v in binned.items():
        if v is not None:
            bad += _mismatch(f"summary.{k}", s.get(k), v, "its by_length bins", BINNED)
    return bad


def _history(rec: dict[str, Any], cfg: RunConfig) -> list[str]:
    """The training log against what ``training.fit`` logs for ``cfg`` (a failed run has none to check)."""
    if rec["status"] == "failed":
        return []
    h, train = rec.get("history"), cfg.train
    if not isinstance(h, dict) or not all(isinstance(h.get(k), list) for k in ("step", "loss", "lr")):
        return ["field 'history' is missing its lists step, loss and lr; allowed: fit's training log"]
    steps, losses, lrs = h["step"], h["loss"], h["lr"]
    stop = train.num_steps if rec["status"] == "ok" else rec.get("diverged_step")
    if rec["status"] == "diverged" and not (isinstance(stop, int) and 0 <= stop < train.num_steps):
        return [f"field 'diverged_step' holds {_text(stop)}; allowed: the step it diverged at, 0 to "
                f"{train.num_steps - 1}"]
    if rec["status"] == "ok" and rec.get("diverged_step") is not None:
        return [f"field 'diverged_step' holds {_text(rec['diverged_step'])}; an 'ok' run did not diverge"]
    logged = [t for t in range(stop) if t % train.log_every == 0 or t == train.num_steps - 1]
    out = []
    if steps != logged:
        end = "its last step, " + str(train.num_steps - 1) if rec["status"] == "ok" else f"up to step {stop - 1}"
        out.append(f"field 'history.step' holds {_span(steps)}; fit logs {_span(logged)} ({end})")
    if len(losses) != len(steps) or len(lrs) != len(steps):
        return [*out, f"fields 'history.loss' and 'history.lr' hold {len(losses)} and {len(lrs)} values; allowed: one "
                      f"per logged step ({len(steps)})"]
    for i, (t, loss, lr) in enumerate(zip(steps, losses, lrs)):
        if isinstance(loss, bool) or not isinstance(loss, (int, float)) or not math.isfinite(loss):
            out.append(f"field 'history.loss[{i}]' (step {t}) holds {_text(loss)}; allowed: a finite loss (a "
                       "non-finite one stops the run as diverged)")
            break
        if isinstance(t, int) and not _close(lr, lr_at(t, train), EXACT):
            out.append(f"field 'history.lr[{i}]' holds {_text(lr)}; the schedule gives {_text(lr_at(t, train))} at "
                       f"step {t}")
            break
    final = losses[-1] if losses else None
    if rec.get("final_loss") != final:
        out.append(f"field 'final_loss' holds {_text(rec.get('final_loss'))}; the last logged loss is {_text(final)}")
    evals = h.get("evals", [])
    last = stop if rec["status"] == "ok" else stop + 1  # fit evaluates after a step, before the next may diverge
    asked = list(range(train.eval_every, last, train.eval_every)) if train.eval_every else []
    got = [e.get("step") if isinstance(e, dict) else e for e in evals] if isinstance(evals, list) else evals
    if got != asked:
        out.append(f"field 'history.evals' holds evaluations at steps {_span(got) if isinstance(got, list) else got}; "
                   f"fit evaluates at {_span(asked)}")
    return out


__all__ = ["BINNED", "EXACT", "disagreements"]
