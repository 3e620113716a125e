"""Execute claim notebooks with papermill and build the Jupyter Book (version 1) from the results.

Papermill executes, the book never does (``execute_notebooks: "off"``). The flow::

    notebooks/<stem>.md --jupytext--> notebook --papermill (PRESET, FORCE, DEVICE)--> _build/executed/<stem>.ipynb
    _config.yml, _toc.yml, book/, _assets/, _build/executed/*.ipynb --copy--> _build/stage/
    jupyter-book build _build/stage --path-output .  -W -n --keep-going   --> _build/html

Staging keeps the committed, output-free ``notebooks/*.ipynb`` (for Colab) apart from the executed
copies, so a build never touches the source tree. ``-W`` turns every warning into an error. With
``STATETRACK_REPOSITORY`` set, staging turns on the launch buttons and fills each notebook's set-up cell
(``statetrack.site.launch``).

Used in: ``statetrack reproduce``, ``statetrack book``, ``make book``, tests/test_book.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from statetrack.runs.store import repo_root
from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.runs.store import check_writable
from statetrack.site.launch import add_launch_buttons, fill_setup_cells, launch_target
from statetrack.display.parameters import check_parameter_names
from statetrack.site.kernel_client import PatientKernelManager
from statetrack.runs.workers import worker_pool
from statetrack.site.api_page import api_markdown
from statetrack.site.theory_grid import theory_grid_markdown
from statetrack.site.cpu_tier import cpu_plan_markdown
from statetrack.site.scoreboard import budget_markdown, paper_cost_markdown, scoreboard_markdown
from statetrack.site.paper_coverage import coverage_markdown
from statetrack.site.paper_recipes import clone_markdown, recipes_markdown
from statetrack.verdicts.plan import plan
from statetrack.site.verdict_changes import changes_markdown

BUILD = "_build"


class NotebookError(RuntimeError):
    """A notebook failed while executing; the message names the failing cell's error and the partial notebook."""


#: The scripts the book serves itself instead of loading them from a CDN when a page is viewed: MathJax 3 (every
#: page) and Vega, Vega-Lite and vega-embed (the pages with explorers: ``statetrack.display.explorers``). Their versions
#: are pinned in package.json and package-lock.json; ``fetch_assets`` installs them with npm's own client and copies
#: the files the pages load. Each entry: file pattern under node_modules/ → folder in _assets/.
ASSETS = {
    "mathjax/es5/tex-mml-chtml.js": "mathjax",
    "mathjax/es5/output/chtml/fonts/woff-v2/*.woff": "mathjax/output/chtml/fonts/woff-v2",
    "vega/build/vega.min.js": "vega",
    "vega-lite/build/vega-lite.min.js": "vega",
    "vega-embed/build/vega-embed.min.js": "vega",
}


def assets_dir() -> Path:
    return repo_root() / "_assets"


def fetch_assets(dest: Path | None = None) -> Path:
    """Install the pinned scripts with ``npm ci`` (package-lock.json) and copy what the pages load into ``_assets/``.

    A set-up step, like pip: it needs npm and the registry once; the book build itself is offline.
    """
    root = repo_root()
    dest = dest or assets_dir()
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("the book's scripts are installed with npm, which was not found on PATH "
                           "(install Node.js 18 or later, then run `make assets`)")
    subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=root, check=True)
    for pattern, sub in ASSETS.items():
        found = sorted((root / "node_modules").glob(pattern))
        if not found:
            raise RuntimeError(f"node_modules/{pattern} is missing after `npm ci`; package-lock.json and ASSETS disagree")
        (dest / sub).mkdir(parents=True, exist_ok=True)
        for f in found:
            shutil.copy2(f, dest / sub / f.name)
    return dest


def executed_dir() -> Path:
    return repo_root() / BUILD / "executed"


def notebook_source(claim_id: str) -> Path:

    get_claim(claim_id)
    return repo_root() / "notebooks" / f"{CLAIMS[claim_id].notebook}.md"


def declared_parameters(claim_id: str) -> list[str]:
    """The names a claim notebook's ``parameters`` cell assigns, in order: what papermill may set."""
    import ast

    import jupytext

    nb = jupytext.read(notebook_source(claim_id))
    cell = next((c for c in nb.cells if "parameters" in c.metadata.get("tags", [])), None)
    if cell is None:
        return []
    return [t.id for n in ast.parse(cell.source).body if isinstance(n, ast.Assign)
            for t in n.targets if isinstance(t, ast.Name)]


def check_extra(claim_id: str, extra: dict | None) -> None:
    """Refuse ``extra`` parameters the claim's notebook does not declare (``parameters.check_parameter_names``)."""
    if extra:
        check_parameter_names(claim_id, {k: repr(v) for k, v in extra.items()}, declared_parameters(claim_id))


def execute_notebook(claim_id: str, preset: str, force: bool = False, device: str = "auto",
                     confirm_long: bool = False, out_dir: Path | None = None,
                     extra: dict | None = None, cell_timeout: int | None = None) -> tuple[Path, float]:
    """Run one claim notebook with papermill at ``preset``; returns the executed notebook's path and seconds.

    ``cell_timeout`` (seconds per cell; None: no limit, since a training cell at ``paper`` may run for
    hours) turns a cell that never answers into a ``NotebookError`` instead of a hang.
    """
    import jupytext
    import papermill as pm

    src = notebook_source(claim_id)
    check_extra(claim_id, extra)  # papermill would only warn and run with the defaults
    out_dir = check_writable(out_dir or executed_dir())
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{src.stem}.ipynb"
    nb = jupytext.read(src)
    params = {"PRESET": preset, "FORCE": force, "DEVICE": device, "CONFIRM_LONG": confirm_long, **(extra or {})}
    tmp = out.with_suffix(".partial.ipynb")
    t0 = time.perf_counter()
    # start-up: the page kit loads the plotting libraries, and the cli imports this module for `statetrack verify` too
    from statetrack.display.explorers import BUILDING

    os.environ[BUILDING] = "1"  # the kernel inherits it: exercise cells say where to run them (display.explorers)
    try:
        pm.execute_notebook(nb, str(tmp), parameters=params, kernel_name="python3", language="python",
                            cwd=str(src.parent), progress_bar=False, log_output=False,
                            execution_timeout=cell_timeout, kernel_manager_class=PatientKernelManager)
    except pm.PapermillExecutionError as e:
        raise NotebookError(f"notebook {src.name} failed at preset {preset!r} in cell {e.exec_count}: "
                            f"{e.ename}: {e.evalue} (the partly executed notebook is at {tmp})") from None
    except TimeoutError as e:  # nbclient's CellTimeoutError
        raise NotebookError(f"notebook {src.name} at preset {preset!r}: a cell did not finish within "
                            f"{cell_timeout} s ({e}; the partly executed notebook is at {tmp})") from None
    finally:
        os.environ.pop(BUILDING, None)
    fold_injected(tmp)
    os.replace(tmp, out)
    return out, time.perf_counter() - t0


def fold_injected(path: Path) -> None:
    """On the page, the parameters the notebook ran with appear once, folded: the cell papermill injects (tag
    ``injected-parameters``) is folded under "Show the parameters this page ran with", and the ``parameters`` cell
    it overrides, whose values are the defaults, is left out of the page (it stays in the notebook). The widget
    state nbclient saves (an exercise cell builds its ipywidgets controls before it finds no kernel to serve them)
    is dropped, so no page loads the ipywidgets runtime. Edits the executed notebook at ``path``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)
    injected = any("injected-parameters" in c.get("metadata", {}).get("tags", []) for c in nb.cells)
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags:
            cell.metadata["tags"] = [*tags, "hide-cell"] if "hide-cell" not in tags else tags
            cell.metadata.setdefault("mystnb", {})["code_prompt_show"] = "Show the parameters this page ran with"
        elif "parameters" in tags and injected:
            cell.metadata["tags"] = [*tags, "remove-cell"]
    nbformat.write(nb, path)


def _pool_start(threads: int) -> None:
    """A notebook worker's kernels see ``threads`` CPU threads (they inherit the environment)."""
    os.environ["OMP_NUM_THREADS"] = str(threads)


def execute_notebooks(ids: list[str], preset: str, workers: int = 1, **kwargs):
    """Run ``execute_notebook`` for each claim, ``workers`` at a time, those that ran longest last time first
    (``last_seconds``); yields (claim, path, seconds) in ``ids`` order.

    Several run in processes, not threads: papermill's ``cwd`` changes the process's directory. On a CPU
    each worker's kernels get cores / workers threads, as the sweep pool's runs do. The first failure stops
    the rest: notebooks not yet started are cancelled, those running finish, and the error is raised; an
    interrupt stops the running ones too (``runs.workers.worker_pool``).
    """
    if workers == 1:
        for i in ids:
            yield (i, *execute_notebook(i, preset, **kwargs))
        return
    threads = max(1, (os.cpu_count() or 1) // workers)
    kwargs.setdefault("out_dir", executed_dir())  # resolved here: a worker imports the module afresh
    longest_first = sorted(ids, key=lambda i: -last_seconds(i, kwargs["out_dir"]))  # no long tail on one worker
    with worker_pool(workers, initializer=_pool_start, initargs=(threads,)) as pool:
        futures = {i: pool.submit(execute_notebook, i, preset, **kwargs) for i in longest_first}
        for i in ids:
            yield (i, *futures[i].result())


def last_seconds(claim_id: str, out_dir: Path | None) -> float:
    """How long ``claim_id``'s notebook ran when last executed into ``out_dir``, as papermill recorded it in the
    notebook; 0 where it never ran there or the record is unreadable."""
    try:
        nb = json.loads((Path(out_dir or executed_dir()) / f"{notebook_source(claim_id).stem}.ipynb").read_text())
        return float(nb["metadata"]["papermill"]["duration"] or 0)
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def write_generated(folder: Path) -> None:
    """The tables computed at build time, as MyST files: from the run records (``statetrack.site.scoreboard``) and the
    theory's table of transition class × task (``theory_grid``, linking the claim pages)."""
    # start-up: matplotlib, which `statetrack verify` (through the cli's import of this module) never needs
    from statetrack.site import background_figures

    folder.mkdir(parents=True, exist_ok=True)
    paper = plan(list(CLAIMS), "paper")
    (folder / "paper_cost.md").write_text(paper_cost_markdown(paper))
    (folder / "paper_recipes.md").write_text(recipes_markdown(paper))
    (folder / "clone.md").write_text(clone_markdown())
    (folder / "cpu_plan.md").write_text(cpu_plan_markdown())
    (folder / "scoreboard.md").write_text(scoreboard_markdown())
    (folder / "budget.md").write_text(budget_markdown())
    pages = {c.id: f"../notebooks/{c.notebook}.html" for c in CLAIMS.values() if c.notebook}
    (folder / "theory_grid.md").write_text(theory_grid_markdown(pages))
    (folder / "verdict_changes.md").write_text(changes_markdown())
    (folder / "paper_coverage.md").write_text(coverage_markdown())
    (folder / "api.md").write_text(api_markdown())
    background_figures.write(folder)


def stage(executed: Path | None = None, dst: Path | None = None) -> Path:
    """Copy the book's sources and the executed notebooks into ``dst`` (``_build/stage``); returns it."""

    root = repo_root()
    executed = executed or executed_dir()
    dst = dst or root / BUILD / "stage"
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "notebooks").mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(root / name, dst / name)
    add_launch_buttons(dst / "_config.yml")
    shutil.copytree(root / "book", dst / "book")
    # the package's source, for the pages that show a model's lines with ``literalinclude`` (never built as pages)
    shutil.copytree(root / "src" / "statetrack", dst / "src" / "statetrack",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    write_generated(dst / "book" / "_generated")
    assets = assets_dir()
    for needed in ("mathjax/tex-mml-chtml.js", "vega/vega-embed.min.js"):
        if not (assets / needed).exists():
            raise FileNotFoundError(
                f"{assets / needed} is missing; run `make assets` (part of `make venv`) once while the npm registry "
                "is reachable; the book build itself is offline")
    shutil.copytree(assets, dst / "_assets")
    missing = []
    for c in CLAIMS.values():
        nb = executed / f"{c.notebook}.ipynb"
        if nb.exists():
            shutil.copy2(nb, dst / "notebooks" / nb.name)
        else:
            missing.append(c.id)
    target = launch_target(root)
    if target is not None:  # the page shows, and downloads, the repository and commit its set-up cell clones
        fill_setup_cells(sorted((dst / "notebooks").glob("*.ipynb")), *target)
    if missing:
        raise FileNotFoundError(
            f"no executed notebook for claims {missing} in {executed}; run `statetrack reproduce {' '.join(missing)} "
            f"--preset quick` first")
    return dst


def build_book(executed: Path | None = None, output: Path | None = None) -> tuple[Path, float]:
    """Stage and build the HTML book offline with warnings as errors; returns ``_build/html`` and seconds."""
    t0 = time.perf_counter()
    output = output or repo_root()
    src = stage(executed, output / BUILD / "stage")
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(src), "--path-output", str(output),
           "-W", "-n", "--keep-going", "-q"]
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"jupyter-book build failed (exit {proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return output / BUILD / "html", time.perf_counter() - t0
