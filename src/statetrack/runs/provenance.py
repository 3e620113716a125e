"""Provenance of a run: which code made it (the files it executes, hashed), from which commit, on what.

``code_files(cfg)`` is the import closure of what a run of ``cfg`` executes (training, evaluation,
its task's and its model's modules); ``code_hash`` hashes their ``executable_source`` (the source
without comments, docstrings and blank lines), so a record is *stale* exactly when that code changed:
editing a comment or a docstring stales nothing, changing a line of code does. ``provenance(device, cfg)`` is the block stored in every record: git commit (and
whether ``src`` was dirty), code hash, package/torch/CUDA/Python versions, device and its name,
threads, time of creation.

Used in: ``statetrack.runs.store`` (staleness), ``statetrack.runs.execute`` (records), ``statetrack.tools.bench``.
"""

from __future__ import annotations

import ast
import datetime as _dt
import functools
import hashlib
import inspect
import io
import platform
import subprocess
import tokenize
from pathlib import Path
from typing import Any

import torch

import statetrack
from statetrack.config import RunConfig
from statetrack.models import MODELS, PLUGINS, known_model
from statetrack.tasks import TASKS


def repo_root() -> Path:
    """The checkout this package was installed from (src layout, editable install), else the cwd."""
    here = Path(statetrack.__file__).resolve().parents[2]
    return here if (here / "pyproject.toml").exists() else Path.cwd()


def _local_imports(path: Path, pkg: Path) -> set[Path]:
    """The package's own modules that ``path`` imports (``from statetrack.x import y`` / ``import statetrack.x``).

    Parsed once per version of the file (its size and modification time): reading a claim's records
    hashes the same few files for every record.
    """
    return set(_parsed_imports(path, pkg, *_version(path)))


@functools.lru_cache(maxsize=512)
def _parsed_imports(path: Path, pkg: Path, mtime_ns: int, size: int) -> frozenset[Path]:
    import ast

    out: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [f"{node.module}.{a.name}" for a in node.names]  # `from pkg import module`
        for name in names:
            if not name.startswith("statetrack."):
                continue
            rel = Path(*name.split(".")[1:])
            for cand in (pkg / rel.with_suffix(".py"), pkg / rel / "__init__.py"):
                if cand.exists():
                    out.add(cand)
    return frozenset(out)


def code_files(cfg: RunConfig) -> list[Path]:
    """The source files a run of ``cfg`` executes: training, evaluation, its task's and its model's modules,
    and everything in the package they import, transitively. Left out: package ``__init__`` files (here
    they only hold registries and re-exports, so adding a model does not make other runs stale) and
    ``config.py`` (it parses and validates; the resolved config itself is stored in the record and is
    part of the run key). A plug-in model's files are followed too (see "code outside the package" below)."""
    pkg = Path(statetrack.__file__).resolve().parent
    roots = {pkg / "training.py", pkg / "evaluate.py", pkg / "tasks" / "base.py",
             Path(inspect.getfile(TASKS[cfg.task.name])), Path(inspect.getfile(MODELS[cfg.model.name]))}
    seen: set[Path] = set()
    todo = [p.resolve() for p in roots]
    while todo:
        f = todo.pop()
        inside = f.is_relative_to(pkg)
        if f in seen or (inside and (f.name == "__init__.py" or f == pkg / "config.py")):
            continue
        seen.add(f)
        todo.extend(_local_imports(f, pkg) - seen)
        if not inside:
            todo.extend(_own_imports(f) - seen)
    # Ours by their path in the package (the order of their absolute paths), then a plug-in's by their hashed
    # names: the hash never depends on where either is installed.
    return sorted(seen, key=lambda f: (0, f.relative_to(pkg).parts) if f.is_relative_to(pkg)
                  else (1, Path(hashed_name(f)).parts))


# ----------------------------------------------------------------------------- code outside the package (plug-ins)
#
# A plug-in model (``statetrack.models.register_model``) lives in its own distribution. Its files are hashed like
# ours, named by their path from the folder that holds its top-level package ("mypkg/model.py"), so the hash is
# the same wherever it is installed; its imports of its own package are followed (absolute and relative), and of
# ours as for our files. Unlike ours, its ``__init__`` files count: a plug-in may keep its code there. Built-in
# runs never reach a file outside the package, so their hashes are what they were.


def _top_package(path: Path) -> tuple[str, Path]:
    """(top-level package name, the folder holding it) for a file outside the package; a loose module is its own."""
    top = path.parent if (path.parent / "__init__.py").exists() else None
    while top is not None and (top.parent / "__init__.py").exists():
        top = top.parent
    return (top.name, top.parent) if top is not None else (path.stem, path.parent)


def _own_imports(path: Path) -> set[Path]:
    """The modules of its own top-level package that a file outside the package imports (absolute or relative)."""
    return set(_parsed_own_imports(path, *_version(path)))


@functools.lru_cache(maxsize=512)
def _parsed_own_imports(path: Path, mtime_ns: int, size: int) -> frozenset[Path]:
    top, base = _top_package(path)
    here = path.parent.relative_to(base).parts  # the importing module's package, as names
    if path.name != "__init__.py" and not (path.parent / "__init__.py").exists():
        here = ()
    out: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = list(here[: len(here) - (node.level - 1)]) if node.level - 1 <= len(here) else []
                if not parts:
                    continue
                mod = ".".join(parts + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names = [mod] + [f"{mod}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] != top:
                continue
            for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__.py and a/b/__init__.py too
                rel = Path(*parts[:i])
                for cand in (base / rel.with_suffix(".py"), base / rel / "__init__.py"):
                    if cand.exists():
                        out.add(cand.resolve())
    return frozenset(out)


def hashed_name(path: Path) -> str:
    """The name a code file is hashed under: its path in the package, or for a plug-in's file its path from
    the folder that holds its top-level package."""
    pkg = Path(statetrack.__file__).resolve().parent
    if path.is_relative_to(pkg):
        return path.relative_to(pkg).as_posix()
    _, base = _top_package(path)
    return path.relative_to(base).as_posix()


def plugin_provenance(cfg: RunConfig) -> dict[str, Any] | None:
    """What a record says about a plug-in model (``statetrack.models.Plugin.provenance``), None for a built-in."""

    if not known_model(cfg.model.name) or cfg.model.name not in PLUGINS:
        return None
    return PLUGINS[cfg.model.name].provenance()


def executable_source(path: Path) -> str:
    """The source of ``path`` as far as it executes: comments, docstrings, blank lines and trailing spaces removed.

    Comments are found by ``tokenize``, docstrings (the leading string of a module, class or function)
    by ``ast``; both report positions the same way on every Python version, so the result, and the
    hash of it, depends on the file's code alone. Cached per version of the file (size, mtime).
    """
    return _executable_source(path, *_version(path))


@functools.lru_cache(maxsize=512)
def _executable_source(path: Path, mtime_ns: int, size: int) -> str:
    text = path.read_text()
    lines = text.splitlines()
    spans = []  # (first line, first column, last line, end column), 1-based lines, columns in characters
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            doc = body[0]
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str):
                # ast's columns count UTF-8 bytes; the lines are characters.
                first = len(lines[doc.lineno - 1].encode()[: doc.col_offset].decode())
                last = len(lines[doc.end_lineno - 1].encode()[: doc.end_col_offset].decode())
                spans.append((doc.lineno, first, doc.end_lineno, last))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            spans.append((*tok.start, *tok.end))
    for l0, c0, l1, c1 in sorted(spans, reverse=True):  # from the end, so earlier positions stay valid
        head, tail = lines[l0 - 1][:c0], lines[l1 - 1][c1:]
        lines[l0 - 1: l1] = [head + tail]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def code_hash(cfg: RunConfig) -> str:
    """SHA-256 (12 hex digits) of the code that decides the numbers of a run of ``cfg`` (``executable_source``
    of each of ``code_files``, with its path: ``hashed_name``).

    Kept per task and model module while none of the hashed files changes (its size and modification time): a
    claim's records share a few (task, model) pairs, and reading them hashes the same files for every record."""
    key = (inspect.getfile(TASKS[cfg.task.name]), inspect.getfile(MODELS[cfg.model.name]))
    kept = _HASHES.get(key)
    try:
        if kept is not None and all(_version(f) == v for f, v in kept[0]):
            return kept[1]
    except OSError:  # a hashed file is gone: hash afresh
        pass
    files = code_files(cfg)
    h = hashlib.sha256()
    for f in files:
        h.update(hashed_name(f).encode())
        h.update(executable_source(f).encode())
    digest = h.hexdigest()[:12]
    _HASHES[key] = (tuple((f, _version(f)) for f in files), digest)
    return digest


#: ``code_hash``'s kept results: (task module file, model module file) → ((file, version) of each hashed file, hash)
_HASHES: dict[tuple[str, str], tuple[tuple[tuple[Path, tuple[int, int]], ...], str]] = {}


def _version(path: Path) -> tuple[int, int]:
    """A file's version, as the caches here key it: (modification time in ns, size)."""
    st = path.stat()
    return (st.st_mtime_ns, st.st_size)


def whole_file_hash(cfg: RunConfig) -> str:
    """The code hash of records made before ``code_hash`` left out comments and docstrings: the raw bytes of
    ``code_files``. Only ``results.migrate_code_hashes`` uses it, to carry such records over."""
    h = hashlib.sha256()
    for f in code_files(cfg):
        h.update(hashed_name(f).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=repo_root(), capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def cpu_name() -> str:
    """The CPU model and the threads torch uses, e.g. "Intel Xeon ... (2 threads)"."""
    name = platform.processor() or "CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name} ({torch.get_num_threads()} threads)"


def cpu_kind() -> dict[str, Any]:
    """What decides fp32 rounding on a CPU beyond its name: family, model, stepping and the vector extensions
    torch's kernels dispatch on (``torch.backends.cpu.get_cpu_capability``). Two "AMD EPYC" VMs of different
    generations round differently, so a record names its CPU kind and two records agree only on the same one."""
    out: dict[str, Any] = {"capability": torch.backends.cpu.get_cpu_capability()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("cpu family", "model", "stepping") and key not in out:
                out[key.replace(" ", "_")] = value.strip()
            if key == "flags":
                flags = value.split()
                out["avx512f"], out["avx2"] = "avx512f" in flags, "avx2" in flags
                break
    except OSError:
        pass
    return out


def provenance(device: torch.device, cfg: RunConfig) -> dict[str, Any]:
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "src")
    return {
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(dirty) if dirty is not None else None,
        "code_hash": code_hash(cfg),
        "statetrack": statetrack.__version__,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name(),
        "threads": torch.get_num_threads(),
        **({"cpu_kind": cpu_kind()} if device.type == "cpu" else {}),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **({"plugin": plugin} if (plugin := plugin_provenance(cfg)) else {}),  # a model from outside the package
    }
