"""A claim notebook's parameters cell: parsed and checked in one place, before anything runs.

``parameters(claim_id, PRESET=..., SEEDS=..., ...)`` accepts what papermill hands over (``-p`` gives strings such as
"[0, 1, 2]" or "True", ``-y`` gives lists) and returns them parsed; under papermill it also refuses a parameter the
notebook does not declare (``injected_parameters``, ``check_parameter_names``: papermill itself only warns and runs
with the defaults). Each bad value raises ``ConfigError`` naming it and what is allowed.

Used in: ``statetrack.display.page.Page`` (every claim notebook), ``statetrack reproduce -p`` (``cli``), ``book``.
"""

from __future__ import annotations

import ast
from types import SimpleNamespace
from typing import Any

from statetrack.config import ConfigError
from statetrack.display import tables
from statetrack.training import resolve_device
from statetrack.verdicts.claim import Claim
from statetrack.verdicts.recipes import PRESETS, check_seeds, scratch_for_smoke


def _as_list(name: str, value: Any, others: bool = False) -> Any:
    """A list parameter as papermill hands it over: ``-y`` gives a list, ``-p`` a string such as "[0, 1, 2]" (with
    ``others``, a value that does not look like a list is returned as is)."""
    looks = isinstance(value, str) and value.strip()[:1] in "[("
    if others and not looks and not isinstance(value, (list, tuple)):
        return value
    if looks:
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            raise ConfigError(f"bad {name} {value!r}: expected a list such as [0, 1, 2] (or None)") from None
    value = list(value) if isinstance(value, tuple) else value
    if value is not None and not isinstance(value, list):
        raise ConfigError(f"bad {name} {value!r}: expected a list such as [0, 1, 2] (or None)")
    return value


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ConfigError(f"bad {name} {value!r}: expected True or False")


def check_parameter_names(claim_id: str, given: dict[str, str], declared: list[str]) -> None:
    """Refuse a notebook parameter the notebook does not declare, naming it, its value as typed and the closest
    declared one (papermill itself only warns and runs with the defaults). ``given``: name → value as typed."""
    import difflib

    for name, text in given.items():
        if name in declared:
            continue
        close = difflib.get_close_matches(name, declared, n=1, cutoff=0.5)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(f"unknown parameter {name!r} (= {text}) for {claim_id}: {hint}allowed: {', '.join(declared)}")


def injected_parameters() -> dict[str, str] | None:
    """The parameters papermill injected into this kernel, name → value as typed; None outside papermill.

    Papermill runs its ``injected-parameters`` cell (it begins ``# Parameters``) just before the cell that calls
    ``parameters``; IPython keeps every executed cell's source in ``In``.
    """
    import sys

    if "IPython" not in sys.modules:
        return None
    from IPython import get_ipython

    shell = get_ipython()
    history = shell.user_ns.get("In", []) if shell is not None else []
    cell = next((c for c in reversed(history[:-1]) if isinstance(c, str) and c.lstrip().startswith("# Parameters")),
                None)
    if cell is None:
        return None
    return {target.id: ast.get_source_segment(cell, node.value) or "?" for node in ast.parse(cell).body
            if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Name)}


def parameters(claim: Claim, PRESET: Any = "quick", SEEDS: Any = None, DEVICE: Any = "auto", FORCE: Any = False,
               CONFIRM_LONG: Any = False, **extra: Any) -> SimpleNamespace:
    """Check a claim notebook's parameters cell in one place, before anything runs; returns them parsed.

    Accepts what papermill passes (``-p SEEDS "[0, 1, 2]"`` a string, ``-y "SEEDS: [0, 1]"`` a list, ``-p FORCE
    True`` a bool); extra list parameters (e.g. ``MODELS``) are parsed the same way and the claim's ``grid`` checks
    their values. Under papermill an undeclared parameter is refused too (``injected_parameters``). A bad value
    raises ``ConfigError`` naming it. Returns a namespace with lower-case names (``MODELS`` → ``models``).
    """
    injected = injected_parameters()
    if injected:
        check_parameter_names(claim.id, injected, ["PRESET", "SEEDS", *extra, "DEVICE", "FORCE", "CONFIRM_LONG"])
    if not isinstance(PRESET, str) or PRESET not in PRESETS:
        raise ConfigError(f"bad PRESET {PRESET!r}: allowed: {', '.join(PRESETS)}")
    scratch_for_smoke(PRESET)  # a smoke page never writes into data/results
    tables.register()  # a page shows whole tables, without pandas' index column, "–" for a missing value
    seeds = _as_list("SEEDS", SEEDS)
    if seeds is not None:
        check_seeds(seeds, ())
    if not isinstance(DEVICE, str):
        raise ConfigError(f"bad DEVICE {DEVICE!r}: allowed: auto, cpu, cuda, cuda:N")
    try:
        resolve_device(DEVICE)
    except ValueError as e:
        raise ConfigError(f"bad DEVICE: {e}") from None
    return SimpleNamespace(preset=PRESET, seeds=seeds, device=DEVICE, force=_as_bool("FORCE", FORCE),
                           confirm_long=_as_bool("CONFIRM_LONG", CONFIRM_LONG),
                           **{k.lower(): _as_list(k, v, others=True) for k, v in extra.items()})
