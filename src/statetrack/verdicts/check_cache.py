"""Exact checks kept on disk, keyed by the code that computes them: a verdict judged from a kept entry is the
verdict computed.

A claim's exact checks (its declaration's ``checks(preset)``) take seconds to a minute; ``statetrack verify``, the
book's scoreboard and the claim pages (``display.page.Page.checks``) judge them through ``cached_checks(claim, preset)``,
which returns them from
``<cache>/<claim>-<preset>-<key>.json`` where the key (``check_key``) hashes the claim module and preset, the
``executable_source`` (``runs.provenance``) of every package file the claim module imports, transitively
(``code_files``: package ``__init__`` files and ``config.py`` included), the papers' tables (``data/paper``), and the
Python, torch and numpy versions and CPU kind the numbers were computed with. Editing a line of code the checks
may execute, or a paper number, misses the entry; editing a comment or a docstring does not.

An entry is JSON (never pickle), written atomically (``runs.store.write_record``). Each field of a check is a
string, a bool, an int, a float or None; JSON gives each back as the same type and value (a float by its repr,
NaN and infinities included), so the checks compare equal and print the same. A check with any other type of field
is not kept (it is computed each time). An entry that cannot be read, is not JSON or is not of that form is ignored,
recomputed and overwritten.

The cache folder: ``$STATETRACK_CACHE_DIR/checks``, else ``_build/cache/checks`` in the checkout (gitignored;
``make clean`` empties it).

Used in: ``statetrack.verdicts.claim.judge``, ``statetrack.display.page.Page.checks``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import json
import os
import platform
from pathlib import Path
from typing import Any

import numpy
import torch

import statetrack
from statetrack.check import Check
from statetrack.runs.provenance import _local_imports, cpu_kind, executable_source, hashed_name, repo_root
from statetrack.runs.store import paper_dir, write_record
from statetrack.theory.threads import single_thread
from statetrack.verdicts import cpu

CACHE_DIR = "STATETRACK_CACHE_DIR"
_SCALARS = (str, bool, int, float, type(None))  # what JSON gives back as the same type and value
#: Files whose ``get_claim(`` loads no claim for a check: the claims registry defines it and calls it only in the
#: commands that run and verify claims; this module only looks for the name.
_NOT_LOADING = ("verdicts/registry.py", "verdicts/check_cache.py")


def cache_dir() -> Path:
    """Where kept checks live: ``$STATETRACK_CACHE_DIR/checks``, else ``_build/cache/checks`` in the checkout."""
    env = os.environ.get(CACHE_DIR)
    return (Path(env) if env else repo_root() / "_build" / "cache") / "checks"


def _loads_claims(path: Path) -> bool:
    """Whether ``path``'s code names ``get_claim(``: it imports claim modules by id, which no import statement shows
    (read in its ``executable_source``, already made for the key, so a name in a comment or docstring does not
    count)."""
    return "get_claim(" in executable_source(path)


@functools.cache
def _environment() -> str:
    """The Python, torch and numpy versions and the CPU kind (``runs.provenance.cpu_kind``), as JSON."""
    return json.dumps({"python": platform.python_version(), "torch": torch.__version__, "numpy": numpy.__version__,
                       "cpu": cpu_kind()}, sort_keys=True)


def code_files(module: str) -> list[Path]:
    """The package files a claim module's checks may execute: the module and everything in the package it imports,
    transitively, with the ``__init__`` of every package on the way (Python runs them on import) and ``config.py``.
    A file that loads claims by id (``get_claim``) brings in every claim module (``_NOT_LOADING`` aside)."""
    pkg = Path(statetrack.__file__).resolve().parent
    seen: set[Path] = set()
    todo = [Path(importlib.import_module(module).__file__).resolve()]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo.extend(_local_imports(f, pkg))
        todo.extend(d / "__init__.py" for d in f.parents if d.is_relative_to(pkg))
        if f.relative_to(pkg).as_posix() not in _NOT_LOADING and _loads_claims(f):
            todo.extend(pkg.glob("claims/*/claim.py"))
    return sorted(seen, key=lambda f: f.relative_to(pkg).parts)


def check_key(module: str, preset: str) -> str:
    """SHA-256 (16 hex digits) of what a claim's checks at ``preset`` depend on: the claim module and preset, the
    ``executable_source`` of each of ``code_files(module)`` with its path, the papers' tables, and the Python,
    torch and numpy versions and CPU kind."""
    h = hashlib.sha256()
    h.update(json.dumps([module, preset]).encode())
    h.update(_environment().encode())
    for f in code_files(module):
        h.update(hashed_name(f).encode())
        h.update(executable_source(f).encode())
    for table in sorted(paper_dir().glob("*.csv")):
        h.update(table.name.encode())
        h.update(table.read_bytes())
    return h.hexdigest()[:16]


def entry_path(module: str, preset: str, key: str | None = None) -> Path:
    """The file that keeps a claim module's checks at ``preset`` under ``key`` (default: ``check_key``'s now)."""
    return cache_dir() / f"{_claim_id(module)}-{preset}-{key or check_key(module, preset)}.json"


def _claim_id(module: str) -> str:
    """The claim id a claim module belongs to: ``statetrack.claims.ne1.claim`` → ``ne1``."""
    return module.removeprefix("statetrack.claims.").partition(".")[0]


def _read(path: Path, key: str) -> list[Check] | None:
    """The checks kept at ``path`` under ``key``; None when there is none or it is not a well-formed entry."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    names = {f.name for f in dataclasses.fields(Check)}
    if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("checks"), list):
        return None
    rows = entry["checks"]
    if not all(isinstance(r, dict) and set(r) == names and all(isinstance(v, _SCALARS) for v in r.values())
               for r in rows):
        return None
    return [Check(**r) for r in rows]


def _keepable(checks: list[Check]) -> bool:
    """Whether every field of every check is of a type JSON gives back unchanged (exactly: not a subclass)."""
    return all(type(c) is Check and all(type(v) in _SCALARS for v in dataclasses.astuple(c))
               for c in checks)


def cached_checks(claim: Any, preset: str) -> list[Check]:
    """A declared claim's ``checks(preset)`` (``verdicts.claim.Claim``): the kept entry under ``check_key`` where there
    is one, else computed and kept (older entries of the same claim and preset are removed). A folder that cannot be
    written keeps nothing. The cpu preset's checks are the quick preset's (``verdicts.cpu.CHECKS_AT``), kept once."""
    preset = cpu.CHECKS_AT if preset == cpu.PRESET else preset
    module = f"statetrack.claims.{claim.id}.claim"
    key = check_key(module, preset)
    path = entry_path(module, preset, key)
    kept = _read(path, key)
    if kept is not None:
        return kept
    with single_thread():  # the same checks whatever the caller's thread count (fp32 sums differ with the split)
        checks = list(claim.checks(preset))
    if _keepable(checks):
        try:
            for old in path.parent.glob(f"{_claim_id(module)}-{preset}-*.json"):
                old.unlink(missing_ok=True)
            write_record(path, {"claim": module, "preset": preset, "key": key,
                                "checks": [dataclasses.asdict(c) for c in checks]})
        except OSError:
            pass
    return checks

