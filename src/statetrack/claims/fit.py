"""Whether a run fitted its training lengths: the evidence a "does not learn" or "theorem forbids" needs.

A run has fitted when its normalized accuracy (acc − chance) / (1 − chance) at its longest training length, on
held-out sequences (the test seed's draw), is at least ``FIT`` — one constant, read after the learning rate is
chosen and never used to choose it. A language model has fitted when its validation loss is at least
``LM_FIT_MARGIN`` nats below the unigram model's on the same windows (``runs.null.unigram_val_loss``). A run
that diverged has not fitted. A statement whose bound is computed at the training lengths (bl7's count-only
ceiling) passes its own ``fit_at`` instead of ``FIT``: the most any model of its kind can reach there.

Used in: ``statetrack.claims.statements``.
"""

from __future__ import annotations

import math
from typing import Any

from statetrack.config import RunConfig
from statetrack.runs.null import unigram_val_loss

FIT = 0.9  # normalized accuracy at the longest training length
#: nats below the unigram model's validation loss: a tenth of a uniform guess's loss over 257 classes (bytes, EOD)
LM_FIT_MARGIN = 0.1 * math.log(257)


def fit_value(record: dict[str, Any]) -> float:
    """Normalized accuracy at the longest training length (a language model: the unigram loss minus its validation
    loss, nats); NaN for a run that did not finish or was not evaluated there."""
    if record.get("status") != "ok":
        return float("nan")
    cfg = record["config"]
    if cfg["task"]["name"] == "byte_lm":
        rc = RunConfig.from_dict(cfg)
        return unigram_val_loss(rc.task, rc.train, rc.eval) - float(record["summary"]["val_loss"])
    curve, chance = record.get("by_length"), record["summary"].get("chance")
    if curve is None or chance is None:  # a record without a curve was not evaluated at its training lengths
        return float("nan")
    at = dict(zip(curve["length"], curve["acc"])).get(cfg["train"]["max_len"])
    return float("nan") if at is None else (at - chance) / (1 - chance)


def fitted(record: dict[str, Any], fit_at: float | None = None) -> bool:
    """Whether ``record`` fitted: ``fit_value`` at least ``fit_at`` (default ``FIT``, a language model
    ``LM_FIT_MARGIN``)."""
    value = fit_value(record)
    if fit_at is None:
        fit_at = LM_FIT_MARGIN if record["config"]["task"]["name"] == "byte_lm" else FIT
    return value == value and value >= fit_at


def enough(fitted_seeds: int, seeds: int) -> bool:
    """At least 2 seeds and two thirds of them fitted (2 of 3)."""
    return fitted_seeds >= 2 and 3 * fitted_seeds >= 2 * seeds
