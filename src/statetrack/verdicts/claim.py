"""A claim's declaration: ``Claim``, the one object each ``claims/<id>/claim.py`` ends with (``CLAIM = Claim(...)``),
and what declarations read: the papers' numbers (``paper_numbers``, ``paper_lookup``, ``bl_numbers``, ``paper_at``)
and one display name per model (``MODEL_NAMES``).

Everything the registry, the pages, the scoreboard and the sweep read of a claim is a field here, so a misspelt part
fails when its module is imported, never silently. ``judge`` turns a declaration and one preset's records into a
``Verdict`` (``decide``); ``paper_at`` builds a ``paper_of`` from a claim's table of paper numbers, read from
``data/paper`` (one row per reported number, with its ``source`` and ``provenance``). ``MODEL_NAMES`` holds the names
the model configs declare (``models.display_names``) and bilinear's block model at b = 2, as the claims' cells and
tables write them.

Used in: every claim module; ``statetrack.verdicts.registry``, ``statetrack.verdicts.pilots``,
``statetrack.tools.sweep``, ``statetrack.display.page``, ``statetrack.site.scoreboard``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import csv
from dataclasses import dataclass, field, replace
from typing import Any

from statetrack.check import Check
from statetrack.verdicts.check_cache import cached_checks
from statetrack.verdicts.statements import Statement, Verdict, decide
from statetrack.verdicts import cpu, cpu_plan
from statetrack.verdicts.cpu import checks_at_cpu, grid_at_cpu, records_at_cpu
from statetrack.config import ConfigError, RunConfig
from statetrack.models import display_names, display_of, model_config
from statetrack.runs.store import RecordError, paper_dir, stored

Record = dict[str, Any]
CellFields = dict[str, Any]

#: The recorded pilots' seeds (``verdicts.pilots``): 100 and up, apart from every verdict's.
PILOT_SEEDS = (100, 101, 102)
PILOT_PRESET = "quick"  # the preset whose recipes the recorded pilots test


@dataclass(frozen=True)
class Pilot:
    """One alternative to a recipe: ``changes`` (``"model.d_conv": 0``) applied to the cells ``where`` matches."""

    name: str
    why: str  # the choice it tests, in the page's words
    where: dict[str, Any]  # dotted config fields → value, matched on the claim's quick cells
    changes: dict[str, Any] = field(default_factory=dict)  # empty: the recipe itself
    seeds: tuple[int, ...] = PILOT_SEEDS


DELTANET_NEG = {"model.name": "deltanet", "model.eig_range": "[-1,1]"}
ROTATION_ONE_BLOCK = {"model.variant": "rotation", "model.d_model": 2}
FULL = {"model.variant": "full"}
RECIPE = "the quick recipe"


@dataclass(frozen=True)
class RecipePilots:
    """A claim's quick-recipe pilots (its declared ``recipe_pilots``): the summary metric they are judged on, whether
    lower is better, and the pilots."""

    metric: str
    lower: bool
    pilots: tuple[Pilot, ...]


def _field(cfg: RunConfig, dotted: str) -> Any:
    section, name = dotted.split(".")
    return getattr(getattr(cfg, section), name, None)


def _changed(cfg: RunConfig, changes: dict[str, Any], seed: int) -> RunConfig:
    parts: dict[str, dict[str, Any]] = {}
    for dotted, value in changes.items():
        section, name = dotted.split(".")
        parts.setdefault(section, {})[name] = value
    return replace(cfg, seed=seed, **{s: replace(getattr(cfg, s), **kw) for s, kw in parts.items()})


def pilot_configs(declared: RecipePilots, cells: Sequence[RunConfig], claim_id: str = "") -> list[tuple[Pilot, RunConfig]]:
    """Every (pilot, config) of a claim's ``declared`` pilots: each pilot's matching ``cells`` (its quick grid on one
    seed), changed, on the pilot's seeds."""
    out = []
    for pilot in declared.pilots:
        chosen = [c for c in cells if all(_field(c, k) == v for k, v in pilot.where.items())]
        if not chosen:
            raise ConfigError(f"{claim_id}'s pilot {pilot.name!r} matches no quick cell: {pilot.where}")
        out += [(pilot, _changed(c, pilot.changes, s)) for c in chosen for s in pilot.seeds]
    return out


MODEL_NAMES = {**display_names(), "block2": display_of(model_config("bilinear", variant="block", block_size=2))}


#: The longest title the scoreboard's first column takes (a longer title gives the claim a ``short``).
SHORT_TITLE = 44


@dataclass(frozen=True)
class Claim:
    """One claim: its grid per preset, its statements, how a record maps to a cell, and its optional parts.

    ``grid(preset, seeds=None, **options)``: every run at ``preset``; ``statements()``: its pre-registered
    statements; ``cell_of(record)``: the fields naming the record's cell; ``headline``: the id of the statement the
    scoreboard shows first. Optional: ``label_of(cell)`` a cell's row label (default: its values joined by spaces);
    ``paper_of(cell)`` the paper's numbers for a cell (``paper_at``); ``checks(preset)`` the exact, training-free part;
    ``not_run(records, preset)`` the paper's cells a preset does not run; ``judged_records(records, preset)`` the
    records with the statements' own metrics added; ``keep_weights`` whether each run keeps its trained weights
    beside its record (x2); ``pilot_grid()`` the claim's own recorded pilots, run at ``pilot_preset``;
    ``recipe_pilots`` its quick recipe's pilots (``verdicts.pilots.RecipePilots``); ``cpu_grid(seeds=None,
    **options)`` its cpu grid where it is not the paper cells' derivation (``verdicts.cpu``); ``own_verdict`` a verdict
    that adds to ``judge`` (called as ``own_verdict(records, preset, checks, **extra)``; x2 reads its runs' weights first).
    Named, always: ``title``, ``paper``, ``source`` and ``notebook``; ``short`` where the title is longer than
    ``SHORT_TITLE`` characters.
    """

    id: str
    grid: Callable[..., list[RunConfig]]
    statements: Callable[[], list[Statement]]
    cell_of: Callable[[Record], CellFields]
    headline: str
    label_of: Callable[[CellFields], str] | None = None
    paper_of: Callable[[CellFields], dict[str, Any]] | None = None
    checks: Callable[[str], list[Check]] | None = None
    not_run: Callable[[list[Record], str], list[dict[str, Any]]] | None = None
    judged_records: Callable[[list[Record], str], list[Record]] | None = None
    keep_weights: bool = False
    pilot_grid: Callable[[], list[RunConfig]] | None = None
    pilot_preset: str = "quick"
    recipe_pilots: RecipePilots | None = None
    own_verdict: Callable[..., Verdict] | None = None
    cpu_grid: Callable[..., list[RunConfig]] | None = None  # the cpu grid where not derived from paper's (verdicts.cpu)
    title: str = field(kw_only=True)  # the claim in one line, as its page and the table of contents read it
    paper: str = field(kw_only=True)  # "NE", "BL" or "both"
    source: str = field(kw_only=True)  # where in the paper: "Thm 1, Fig 1"; "" for a claim of both papers
    notebook: str = field(kw_only=True)  # the notebook's stem in notebooks/: "<id>_<slug>"
    short: str = field(default="", kw_only=True)  # the scoreboard's title (SHORT_TITLE characters at most): the title where empty

    def __post_init__(self) -> None:
        # the cpu preset derives from the paper grid and reads the quick sizes' exact part (verdicts.cpu)
        object.__setattr__(self, "grid", grid_at_cpu(self.grid, self.cpu_grid))
        if self.checks is not None:
            object.__setattr__(self, "checks", checks_at_cpu(self.checks))
        for name in ("not_run", "judged_records"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, records_at_cpu(getattr(self, name)))

    def verdict(self, records: Sequence[Record], preset: str, checks: Sequence[Check] | None = None,
                **extra: Any) -> Verdict:
        """The statements judged on one preset's records and the exact checks (computed when None): ``judge``, or
        the claim's ``own_verdict``."""
        if self.own_verdict is not None:
            return self.own_verdict(records, preset, checks, **extra)
        return judge(self, records, preset, checks)


def judge(claim: Claim, records: Sequence[Record], preset: str, checks: Sequence[Check] | None = None) -> Verdict:
    """A claim's verdict at ``preset`` (``decide``) from its declaration: its records through ``judged_records``
    where it has one, its exact ``checks`` (``checks`` given: a page that already computed them) and its ``not_run``
    cells."""
    records = claim.judged_records(records, preset) if claim.judged_records else records
    exact = () if claim.checks is None else list(checks) if checks is not None else cached_checks(claim, preset)
    statements = claim.statements()
    if preset == cpu.PRESET:  # a statement reading a table the cpu plan does not run: not run, with the plan's why
        statements = cpu_plan.with_reasons(claim, statements)
    return decide(claim.id, preset, records, statements, cell_of=claim.cell_of, label_of=claim.label_of,
                  paper_of=claim.paper_of, checks=exact,
                  not_run=claim.not_run(records, preset) if claim.not_run else (),
                  pilots=recipe_pilot_records(claim) if preset == PILOT_PRESET else ())


def recipe_pilot_records(claim: Claim) -> list[Record]:
    """The recorded runs of a claim's quick recipe itself on its pilot seeds (``RECIPE``): the evidence of whether
    the quick budget can fit a cell, read where a learning side did not fit."""
    if claim.recipe_pilots is None:
        return []
    cfgs = [cfg for pilot, cfg in pilot_configs(claim.recipe_pilots, claim.grid(PILOT_PRESET, seeds=[0]), claim.id)
            if pilot.name == RECIPE]
    return [r for r in map(stored, dict.fromkeys(cfgs)) if r is not None]


def paper_at(rows: Callable[[], dict[Any, dict[str, Any]]], *fields: str,
             key: Callable[[CellFields], Any] | None = None) -> Callable[[CellFields], dict[str, Any]]:
    """A ``paper_of``: ``rows()`` (a claim's paper numbers by key) read at ``key(cell)``, else at the cell's
    ``fields`` (several: the tuple of their values; one: its value)."""
    def paper_of(cell: CellFields) -> dict[str, Any]:
        at = key(cell) if key else tuple(cell[f] for f in fields) if len(fields) > 1 else cell[fields[0]]
        return rows().get(at, {})

    return paper_of


def paper_numbers(table: str) -> list[dict[str, Any]]:
    """Rows of ``data/paper/<table>.csv``: each reported number with its ``source`` and ``provenance``."""
    path = paper_dir() / f"{table}.csv"
    if not path.exists():
        known = sorted(p.stem for p in paper_dir().glob("*.csv"))
        raise RecordError(f"unknown paper table {table!r}; allowed: {', '.join(known)}")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("value", "spread"):
            if r.get(k) not in (None, ""):
                r[k] = float(r[k])
            elif k in r:
                r[k] = None
    return rows


#: What makes two rows of data/paper the same reported number: a summary may repeat a table's number as its own row.
NUMBER_FIELDS = ("paper", "model", "variant", "task", "setting", "metric", "value")


def number_groups() -> dict[tuple, list[str]]:
    """Every reported number of data/paper (``NUMBER_FIELDS``) → the ids of the rows that report it."""
    out: dict[tuple, list[str]] = {}
    for path in sorted(paper_dir().glob("*.csv")):
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                if row.get("model") is not None and row.get("value") not in (None, ""):
                    out.setdefault(tuple(row.get(k) or "" for k in NUMBER_FIELDS), []).append(row["id"])
    return out


def same_number(ids: Sequence[str]) -> tuple[str, ...]:
    """``ids`` with every row that reports the same number as one of them (``number_groups``): one statement
    reads a number in all its rows, so no other statement can judge it again under another id."""
    out = list(ids)
    for group in number_groups().values():
        if set(group) & set(ids):
            out += [i for i in group if i not in out]
    return tuple(out)


def paper_lookup(tables: dict[str, str], key_of: Callable[[dict[str, Any]], Any]) -> dict[Any, dict[str, Any]]:
    """The papers' numbers for a claim, keyed by cell: ``{key: {"paper_<field>": value, ..., "paper_source": [...],
    "paper_ids": [row ids]}}``.

    ``tables``: ``data/paper`` table → the field its value fills, e.g. ``{"ne_table3": "best"}`` (a table whose rows
    carry a spread also fills ``paper_mad``); ``key_of``: a paper row → its cell key, or None to skip the row."""

    out: dict[Any, dict[str, Any]] = {}
    for table, column in tables.items():
        for row in paper_numbers(table):
            key = key_of(row)
            if key is None:
                continue
            entry = out.setdefault(key, {"paper_source": [], "paper_provenance": row["provenance"]})
            entry[f"paper_{column}"] = row["value"]
            if row.get("spread") is not None:
                entry["paper_mad"] = row["spread"]
            entry["paper_source"].append(row["source"])
            entry.setdefault("paper_ids", []).append(row["id"])
    return out


def bl_numbers(tables: Sequence[str], models: dict[str, Any], task: str | None = None) -> dict[tuple, dict[str, Any]]:
    """BL's numbers (``paper_best``) in ``tables`` by (our model, m of the setting "m=<m>"): ``models`` maps
    data/paper model names to ours; a row of another model, or of a task other than ``task`` (when given), is
    skipped."""
    def key(row):
        ok = row["model"] in models and task in (None, row["task"])
        return (models[row["model"]], int(row["setting"].removeprefix("m="))) if ok else None

    return paper_lookup(dict.fromkeys(tables, "best"), key)
