"""A claim's declaration: ``Claim``, the one object each ``claims/<id>.py`` ends with (``CLAIM = Claim(...)``).

Everything the registry, the pages, the scoreboard and the sweep read of a claim is a field here, so a misspelt part
fails when its module is imported, never silently. ``judge`` turns a declaration and one preset's records into a
``Verdict`` (``decide``); ``paper_at`` builds a ``paper_of`` from a claim's table of paper numbers.

Used in: every claim module; ``statetrack.claims`` (``get_claim``, ``preflight``, ``run_claim``),
``statetrack.claims.pilots``, ``statetrack.claims.sweep``, ``statetrack.site.page``, ``statetrack.site.scoreboard``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from statetrack.claims.pilots import RecipePilots
from statetrack.check import Check
from statetrack.claims.check_cache import cached_checks
from statetrack.claims.statements import Statement, Verdict, decide
from statetrack.config import RunConfig

Record = dict[str, Any]
CellFields = dict[str, Any]


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
    ``recipe_pilots`` its quick recipe's pilots (``claims.pilots.RecipePilots``); ``own_verdict`` a verdict that adds
    to ``judge`` (called as ``own_verdict(records, preset, checks, **extra)``; x2 reads its runs' weights first).
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
    return decide(claim.id, preset, records, claim.statements(), cell_of=claim.cell_of, label_of=claim.label_of,
                  paper_of=claim.paper_of, checks=exact,
                  not_run=claim.not_run(records, preset) if claim.not_run else ())


def paper_at(rows: Callable[[], dict[Any, dict[str, Any]]], *fields: str,
             key: Callable[[CellFields], Any] | None = None) -> Callable[[CellFields], dict[str, Any]]:
    """A ``paper_of``: ``rows()`` (a claim's paper numbers by key) read at ``key(cell)``, else at the cell's
    ``fields`` (several: the tuple of their values; one: its value)."""
    def paper_of(cell: CellFields) -> dict[str, Any]:
        at = key(cell) if key else tuple(cell[f] for f in fields) if len(fields) > 1 else cell[fields[0]]
        return rows().get(at, {})

    return paper_of
