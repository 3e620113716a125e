"""The kept exact checks (``claims.check_cache``): a verdict judged from a kept entry is the one computed; editing
code the checks execute misses the entry; an entry that is not well formed is recomputed; fields round-trip with
their types. Each test's cache folder is its own (``conftest._isolated_results`` sets ``$STATETRACK_CACHE_DIR``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from helpers import fake_record
from statetrack.claims import bl7, check_cache
from statetrack.claims.common import Check

MODULE = "statetrack.claims.bl7"
PRESET = "smoke"  # bl7's smoke checks: about a second


@pytest.fixture
def counted(monkeypatch):
    """bl7's ``checks`` wrapped to count its calls (the wrapper is not on disk, so the cache key is unchanged)."""
    real, calls = bl7.checks, []

    def checks(preset):
        calls.append(preset)
        return real(preset)

    monkeypatch.setattr(bl7, "checks", checks)
    return calls


def _records():
    return [fake_record(c, 1.0) for c in bl7.grid(PRESET)]


def _dump(verdict) -> str:
    return json.dumps(verdict.to_dict(), indent=1)


def test_a_kept_verdict_is_the_computed_one(counted, tmp_path):
    expected = _dump(bl7.verdict(_records(), PRESET, checks=bl7.checks(PRESET)))  # the checks given: no cache
    assert counted == [PRESET] and not check_cache.cache_dir().exists()
    first = _dump(bl7.verdict(_records(), PRESET))  # computed, then kept
    assert counted == [PRESET] * 2
    path = check_cache.entry_path(MODULE, PRESET)
    assert path.parent == tmp_path / "cache" / "checks" and path.exists()
    second = _dump(bl7.verdict(_records(), PRESET))  # read back: the checks are not computed again
    assert counted == [PRESET] * 2
    assert first == second == expected


def test_editing_code_the_checks_execute_misses(counted, monkeypatch):
    pkg_file = next(f for f in check_cache.code_files(MODULE) if f.name == "shared_eigenbasis.py")
    check_cache.cached_checks(MODULE, PRESET)
    check_cache.cached_checks(MODULE, PRESET)
    assert len(counted) == 1
    key = check_cache.check_key(MODULE, PRESET)
    real = check_cache.executable_source
    monkeypatch.setattr(check_cache, "executable_source",
                        lambda f: real(f) + ("\nDRAWS = 4" if f == pkg_file else ""))  # a changed line of code
    assert check_cache.check_key(MODULE, PRESET) != key
    check_cache.cached_checks(MODULE, PRESET)
    assert len(counted) == 2
    assert [p.name for p in check_cache.cache_dir().iterdir()] == [check_cache.entry_path(MODULE, PRESET).name]


def test_the_key_covers_what_the_checks_import():
    """bl7's module imports its theory module, the claims engine, config and the models; the package ``__init__``
    files on the way count; x1 loads other claims by id (``get_claim``), so every claim module is in its files."""
    names = {f.relative_to(check_cache.code_files(MODULE)[0].parent).as_posix()
             for f in check_cache.code_files(MODULE)}
    assert {"__init__.py", "config.py", "claims/__init__.py", "claims/bl7.py", "claims/common.py",
            "theory/__init__.py", "theory/shared_eigenbasis.py", "models/__init__.py", "models/bilinear.py",
            "tasks/groups.py"} <= names
    assert not any(n.startswith(("site/", "tools/")) or n == "cli.py" for n in names)
    x1 = {f.name for f in check_cache.code_files("statetrack.claims.x1")}
    assert {f"{c}.py" for c in ("ne1", "ne4", "bl3", "bl8", "x2")} <= x1


@pytest.mark.parametrize("text", [b"\xff\xfe not text", b"{\"key\": ", b"[]", b"null",
                                  b'{"key": "KEY", "checks": [{"label": "x"}]}',
                                  b'{"key": "KEY", "checks": [{"label": "x", "value": [1], "rule": "", "passed": true, '
                                  b'"detail": "", "part": "exact"}]}',
                                  b'{"key": "other", "checks": []}'])
def test_a_corrupt_entry_is_recomputed(counted, text):
    computed = check_cache.cached_checks(MODULE, PRESET)
    path = check_cache.entry_path(MODULE, PRESET)
    path.write_bytes(text.replace(b"KEY", check_cache.check_key(MODULE, PRESET).encode()))
    assert check_cache.cached_checks(MODULE, PRESET) == computed
    assert len(counted) == 2
    assert json.loads(path.read_text())["checks"][0]["label"] == computed[0].label  # rewritten well formed


def test_fields_round_trip_with_their_types(monkeypatch):
    odd = [Check("nan", math.nan, "r", False), Check("-0", -0.0, "r", True, "d", "comparison"),
           Check("int", 18, "> 0", True), Check("tiny", 5e-324, "r", True), Check("tenth", 0.1 + 0.2, "r", True),
           Check("inf", -math.inf, "r", False, "ünïcode ≤")]
    monkeypatch.setattr(bl7, "checks", lambda preset: list(odd))
    assert check_cache.cached_checks(MODULE, PRESET) == odd  # computed
    monkeypatch.setattr(bl7, "checks", lambda preset: pytest.fail("computed although kept"))
    kept = check_cache.cached_checks(MODULE, PRESET)
    assert [repr(c) for c in kept] == [repr(c) for c in odd]
    assert [tuple(map(type, vars(c).values())) for c in kept] == [tuple(map(type, vars(c).values())) for c in odd]


def test_a_check_json_would_change_is_not_kept(monkeypatch):
    monkeypatch.setattr(bl7, "checks", lambda preset: [Check("numpy", np.float64(0.5), "r", True)])
    out = check_cache.cached_checks(MODULE, PRESET)
    assert type(out[0].value) is np.float64
    assert not check_cache.entry_path(MODULE, PRESET).exists()
