"""Imports run one way: config ← task and model registries ← everything else (issue 11, item 6).

``statetrack.config`` imports no other module of the package, not even inside a function (a lazy
import that only dodges a cycle is still a cycle); ``statetrack.tasks`` and ``statetrack.models``
import ``config`` and their own submodules, never each other. Checked twice: by reading the
sources (every import statement, at any depth) and by importing each module in a fresh
interpreter and looking at what else got loaded.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import statetrack

PACKAGE = Path(statetrack.__file__).parent


def _imported(path: Path) -> set[str]:
    """Every ``statetrack`` module an import statement in ``path`` names, at module level or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            out |= {n for n in names if n.split(".")[0] == "statetrack"}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "statetrack"}
    return out


def _allowed(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("layer,allowed", [
    ("config.py", ()),
    ("tasks", ("statetrack.config", "statetrack.tasks")),
    ("models", ("statetrack.config", "statetrack.models")),
])
def test_sources_import_one_way(layer, allowed):
    files = [PACKAGE / layer] if layer.endswith(".py") else sorted((PACKAGE / layer).rglob("*.py"))
    bad = {f"{f.relative_to(PACKAGE)}: {n}" for f in files for n in _imported(f) if not _allowed(n, allowed)}
    assert not bad, f"imports against the direction config <- registries <- the rest: {sorted(bad)}"


@pytest.mark.parametrize("module,forbidden", [
    ("statetrack.config", ("statetrack.tasks", "statetrack.models", "statetrack.results", "statetrack.claims")),
    ("statetrack.tasks", ("statetrack.models", "statetrack.results", "statetrack.claims", "statetrack.training")),
    ("statetrack.models", ("statetrack.tasks", "statetrack.results", "statetrack.claims", "statetrack.training")),
    ("statetrack.models.ops.registry", ("statetrack.tasks", "statetrack.results", "statetrack.claims")),
])
def test_a_fresh_import_loads_nothing_upstream(module, forbidden):
    code = (f"import json, sys; import {module}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('statetrack'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert not [m for m in loaded if _allowed(m, forbidden)], loaded


def test_config_alone_loads_no_other_package_module():
    code = ("import json, sys; import statetrack.config; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('statetrack'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["statetrack", "statetrack.config"]


def test_from_dict_uses_the_registered_config_classes():
    from statetrack.config import SECTION_CLASSES, RunConfig
    from statetrack.models import MODELS, model_config
    from statetrack.tasks import TASKS, task_config

    assert SECTION_CLASSES["model"] == {k: v.Config for k, v in MODELS.items()}
    assert SECTION_CLASSES["task"] == {k: v.Config for k, v in TASKS.items()}
    cfg = RunConfig(task=task_config("parity"), model=model_config("mamba", eig_range="[-1,1]"))
    assert RunConfig.from_dict(cfg.to_dict()) == cfg


def test_from_dict_without_registries_says_what_to_import():
    code = ("from statetrack.config import ConfigError, RunConfig\n"
            "try:\n    RunConfig.from_dict({'task': {'name': 'parity'}, 'model': {'name': 'mamba'}})\n"
            "except ConfigError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "no task configs are registered" in out.stdout and "import statetrack.tasks" in out.stdout
