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


FRESH = ("statetrack.config", "statetrack.tasks", "statetrack.models", "statetrack.models.ops.registry")


@pytest.fixture(scope="module")
def fresh_imports():
    """Module → the ``statetrack`` modules a fresh interpreter has loaded after importing it; one interpreter per
    module, all started at once (each is its own process, so they cannot see each other's imports)."""
    code = ("import json, sys; import {}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('statetrack'))))")
    procs = {m: subprocess.Popen([sys.executable, "-c", code.format(m)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for m in FRESH}
    out = {}
    for m, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"import {m}: {stderr[-2000:]}"
        out[m] = json.loads(stdout.strip().splitlines()[-1])
    return out


@pytest.mark.parametrize("module,forbidden", [
    ("statetrack.config", ("statetrack.tasks", "statetrack.models", "statetrack.runs.store", "statetrack.claims")),
    ("statetrack.tasks", ("statetrack.models", "statetrack.runs.store", "statetrack.claims", "statetrack.training")),
    ("statetrack.models", ("statetrack.tasks", "statetrack.runs.store", "statetrack.claims", "statetrack.training")),
    ("statetrack.models.ops.registry", ("statetrack.tasks", "statetrack.runs.store", "statetrack.claims")),
])
def test_a_fresh_import_loads_nothing_upstream(fresh_imports, module, forbidden):
    loaded = fresh_imports[module]
    assert module in loaded
    assert not [m for m in loaded if _allowed(m, forbidden)], loaded


def test_config_alone_loads_no_other_package_module(fresh_imports):
    assert fresh_imports["statetrack.config"] == ["statetrack", "statetrack.config"]


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


#: Every top-level module or package of ``statetrack``, by layer: each imports (at any depth, lazily too) only
#: from layers below its own, so no cycle can form. The folders are the layers: the core modules (``config``, then
#: the ``tasks`` and ``models`` registries, then ``training``, ``evaluate`` and ``spectra``), ``theory``, ``runs``
#: (the store), ``claims``, ``site`` (the book), ``tools``, ``cli``. The package root (version, path;
#: ``register_model``) may be imported from anywhere and is not ranked.
LAYERS = [
    ("config",),
    ("tasks", "models"),
    ("training", "evaluate", "spectra", "check"),  # the core over the registries: one fit, scores, a model's A(x), a check
    ("theory",),
    ("runs",),
    ("claims",),
    ("site",),
    ("tools",),
    ("cli",),
    ("__main__",),
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _top(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def test_every_module_has_a_layer():
    tops = {_top(p) for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.name != "__init__.py"}
    assert not tops - set(RANK), f"give these a layer in LAYERS: {sorted(tops - set(RANK))}"


@pytest.mark.parametrize("top", sorted(RANK))
def test_each_layer_imports_only_from_below(top):
    files = [PACKAGE / f"{top}.py"] if (PACKAGE / f"{top}.py").exists() else sorted((PACKAGE / top).rglob("*.py"))
    bad = []
    for f in files:
        for name in _imported(f):
            parts = name.split(".")
            if len(parts) < 2 or parts[1] == top:
                continue  # the package root, or the module's own package
            if parts[1] in RANK and RANK[parts[1]] >= RANK[top]:
                bad.append(f"{f.relative_to(PACKAGE)} imports {name}")
    assert not bad, f"imports against the layers (a cycle waiting to happen): {sorted(set(bad))}"


def test_pages_import_no_other_page_and_shared_site_modules_import_no_page():
    """Inside ``site``: a page (``site/pages/<id>``) imports only its own modules among the pages, and a shared site
    module imports no page, so what two pages share lives outside ``pages``."""
    pages = PACKAGE / "site" / "pages"
    bad = []
    for f in sorted((PACKAGE / "site").rglob("*.py")):
        rel = f.relative_to(pages).parts if f.is_relative_to(pages) else None
        own = f"statetrack.site.pages.{rel[0].removesuffix('.py')}" if rel and rel[0] != "__init__.py" else None
        for name in _imported(f):
            if not _allowed(name, ("statetrack.site.pages",)) or name == "statetrack.site.pages":
                continue
            if own is None or not _allowed(name, (own,)):
                bad.append(f"{f.relative_to(PACKAGE)} imports {name}")
    assert not bad, f"a page's code that another module needs belongs in a shared site module: {sorted(set(bad))}"
