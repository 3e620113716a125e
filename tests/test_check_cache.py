"""The kept exact checks (``verdicts.check_cache``): a verdict judged from a kept entry is the one computed; editing
code the checks execute misses the entry; an entry that is not well formed is recomputed; fields round-trip with
their types. Each test's cache folder is its own (``conftest._isolated_results`` sets ``$STATETRACK_CACHE_DIR``)."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from helpers import fake_record
from statetrack.check import Check
from statetrack.claims.bl7 import claim as bl7
from statetrack.verdicts import check_cache

MODULE = "statetrack.claims.bl7.claim"
PRESET = "smoke"  # bl7's smoke checks: about a second


def _with_checks(fn):
    """bl7's declaration with its ``checks`` replaced (the replacement is not on disk: the cache key is bl7's)."""
    return dataclasses.replace(bl7.CLAIM, checks=fn)


@pytest.fixture
def counted():
    """bl7's declaration whose ``checks`` counts its calls, and the list of calls."""
    real, calls = bl7.CLAIM.checks, []

    def checks(preset):
        calls.append(preset)
        return real(preset)

    return _with_checks(checks), calls


def _records():
    return [fake_record(c, 1.0) for c in bl7.grid(PRESET)]


def _dump(verdict) -> str:
    return json.dumps(verdict.to_dict(), indent=1)


def test_a_kept_verdict_is_the_computed_one(counted, tmp_path):
    claim, calls = counted
    expected = _dump(claim.verdict(_records(), PRESET, checks=claim.checks(PRESET)))  # the checks given: no cache
    assert calls == [PRESET] and not check_cache.cache_dir().exists()
    first = _dump(claim.verdict(_records(), PRESET))  # computed, then kept
    assert calls == [PRESET] * 2
    path = check_cache.entry_path(MODULE, PRESET)
    assert path.parent == tmp_path / "cache" / "checks" and path.exists()
    second = _dump(claim.verdict(_records(), PRESET))  # read back: the checks are not computed again
    assert calls == [PRESET] * 2
    assert first == second == expected


def test_editing_code_the_checks_execute_misses(counted, monkeypatch):
    claim, calls = counted
    pkg_file = next(f for f in check_cache.code_files(MODULE) if f.name == "commuting.py")
    check_cache.cached_checks(claim, PRESET)
    check_cache.cached_checks(claim, PRESET)
    assert len(calls) == 1
    key = check_cache.check_key(MODULE, PRESET)
    real = check_cache.executable_source
    monkeypatch.setattr(check_cache, "executable_source",
                        lambda f: real(f) + ("\nDRAWS = 4" if f == pkg_file else ""))  # a changed line of code
    assert check_cache.check_key(MODULE, PRESET) != key
    check_cache.cached_checks(claim, PRESET)
    assert len(calls) == 2
    assert [p.name for p in check_cache.cache_dir().iterdir()] == [check_cache.entry_path(MODULE, PRESET).name]


def test_the_key_covers_what_the_checks_import():
    """bl7's module imports its theory module, the claims engine, config and the models; the package ``__init__``
    files on the way count; x1 loads other claims by id (``get_claim``), so every claim module is in its files."""
    names = {f.relative_to(check_cache.code_files(MODULE)[0].parent).as_posix()
             for f in check_cache.code_files(MODULE)}
    assert {"__init__.py", "config.py", "claims/__init__.py", "claims/bl7/claim.py", "verdicts/statements.py",
            "theory/__init__.py", "theory/commuting.py", "models/__init__.py", "models/bilinear.py",
            "tasks/groups.py"} <= names
    assert not any(n.startswith(("display/", "site/", "tools/")) or n == "cli.py" for n in names)
    root = check_cache.code_files(MODULE)[0].parent
    x1 = {f.relative_to(root).as_posix() for f in check_cache.code_files("statetrack.claims.x1.claim")}
    assert {f"claims/{c}/claim.py" for c in ("ne1", "ne4", "bl3", "bl8", "x2")} <= x1
    assert not any(n.startswith(("display/", "site/", "tools/")) or n.endswith("/page.py") for n in x1)


@pytest.mark.parametrize("text", [b"\xff\xfe not text", b"{\"key\": ", b"[]", b"null",
                                  b'{"key": "KEY", "checks": [{"label": "x"}]}',
                                  b'{"key": "KEY", "checks": [{"label": "x", "value": [1], "rule": "", "passed": true, '
                                  b'"detail": "", "part": "exact"}]}',
                                  b'{"key": "other", "checks": []}'])
def test_a_corrupt_entry_is_recomputed(counted, text):
    claim, calls = counted
    computed = check_cache.cached_checks(claim, PRESET)
    path = check_cache.entry_path(MODULE, PRESET)
    path.write_bytes(text.replace(b"KEY", check_cache.check_key(MODULE, PRESET).encode()))
    assert check_cache.cached_checks(claim, PRESET) == computed
    assert len(calls) == 2
    assert json.loads(path.read_text())["checks"][0]["label"] == computed[0].label  # rewritten well formed


def test_fields_round_trip_with_their_types():
    odd = [Check("nan", math.nan, "r", False), Check("-0", -0.0, "r", True, "d", "comparison"),
           Check("int", 18, "> 0", True), Check("tiny", 5e-324, "r", True), Check("tenth", 0.1 + 0.2, "r", True),
           Check("inf", -math.inf, "r", False, "ünïcode ≤")]
    assert check_cache.cached_checks(_with_checks(lambda preset: list(odd)), PRESET) == odd  # computed
    kept = check_cache.cached_checks(_with_checks(lambda preset: pytest.fail("computed although kept")), PRESET)
    assert [repr(c) for c in kept] == [repr(c) for c in odd]
    assert [tuple(map(type, vars(c).values())) for c in kept] == [tuple(map(type, vars(c).values())) for c in odd]


def test_a_check_json_would_change_is_not_kept():
    out = check_cache.cached_checks(_with_checks(lambda preset: [Check("numpy", np.float64(0.5), "r", True)]), PRESET)
    assert type(out[0].value) is np.float64
    assert not check_cache.entry_path(MODULE, PRESET).exists()


def test_the_cpu_presets_checks_are_kept_once_with_the_sizes_they_read(counted, monkeypatch):
    """At cpu a claim's exact part runs at ``cpu.CHECKS_AT``'s sizes: one entry serves both presets, computed once."""
    from statetrack.verdicts import cpu

    monkeypatch.setattr(cpu, "CHECKS_AT", PRESET)
    claim, calls = counted
    at_cpu = check_cache.cached_checks(claim, "cpu")
    assert check_cache.cached_checks(claim, PRESET) == at_cpu == bl7.CLAIM.checks(PRESET)
    assert calls == [PRESET]
    assert [p.name.split("-")[1] for p in check_cache.cache_dir().glob("*.json")] == [PRESET]
