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
#: (the store), ``verdicts`` (the engine and the registry), ``display`` (the page kit), ``claims`` (one folder per
#: claim), ``site`` (the book build), ``tools``, ``cli``. The package root (version, path; ``register_model``) may be
#: imported from anywhere and is not ranked.
LAYERS = [
    ("config",),
    ("tasks", "models"),
    ("training", "evaluate", "spectra", "check"),  # the core over the registries: one fit, scores, a model's A(x), a check
    ("theory",),
    ("runs",),
    ("verdicts",),
    ("display",),
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


def test_a_claim_folder_keeps_its_declaration_apart_from_the_page_kit_and_other_pages():
    """Inside ``claims``: a declaration (``claims/<id>/claim.py``) imports no page and nothing of the page kit
    (``display``), so judging a claim loads no plotting library; a page (``claims/<id>/page``) imports no other
    claim's page, so what two pages share lives in ``display``."""
    bad = []
    for f in sorted((PACKAGE / "claims").rglob("*.py")):
        parts = f.relative_to(PACKAGE / "claims").parts
        if len(parts) < 2:
            continue
        own, declaration = parts[0], parts[1] == "claim.py"
        for name in _imported(f):
            bits = name.split(".")
            page_of = bits[2] if len(bits) > 3 and bits[1] == "claims" and bits[3] == "page" else None
            if declaration and (_allowed(name, ("statetrack.display",)) or page_of is not None):
                bad.append(f"{f.relative_to(PACKAGE)} imports {name}")
            elif page_of is not None and page_of != own:
                bad.append(f"{f.relative_to(PACKAGE)} imports {name}")
    assert not bad, f"a declaration imports a page or the page kit, or a page another claim's page: {sorted(set(bad))}"


PLOTTING = ("matplotlib", "seaborn", "altair", "ipywidgets", "IPython")


def test_verify_loads_no_plotting_library():
    """``statetrack verify`` judges a claim from its declaration and the engine alone."""
    code = ("import json, sys; from statetrack.cli import main; rc = main(['verify', 'ne1', '--preset', 'quick', '--json']); "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert not set(PLOTTING) & set(loaded), sorted(set(PLOTTING) & set(loaded))
