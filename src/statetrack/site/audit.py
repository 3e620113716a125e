"""The audit of a built page's tables: what a reader would miss, read back from the HTML (a table cut by pandas, a
row-label column, a raw ``NaN``, a long table left open), against the promises of ``statetrack.display.tables``.

Used in: tests/test_site.py, tests/test_book.py, benchmarks/site_tables.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from statetrack.display.tables import FOLD_ROWS, RAW_MISSING


@dataclass
class Table:
    """One ``<table>`` of a page: its attributes, its header rows and body rows as (tag, text) cells, and whether
    it sits inside a ``<details>`` (folded)."""

    attrs: dict[str, str]
    head: list[list[tuple[str, str]]] = field(default_factory=list)
    body: list[list[tuple[str, str]]] = field(default_factory=list)
    folded: bool = False

    @property
    def pandas(self) -> bool:
        """Written by pandas: ``DataFrame.to_html`` (class "dataframe") or a ``Styler`` (id "T_...")."""
        return "dataframe" in self.attrs.get("class", "").split() or self.attrs.get("id", "").startswith("T_")


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self._open: list[Table] = []
        self._section, self._row, self._cell, self._details = "body", None, None, 0

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self._details += 1
        elif tag == "table":
            self._open.append(Table({k: v or "" for k, v in attrs}, folded=self._details > 0))
        elif not self._open:
            return
        elif tag in ("thead", "tbody", "tfoot"):
            self._section = "head" if tag == "thead" else "body"
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = [tag, ""]

    def handle_endtag(self, tag):
        if tag == "details":
            self._details -= 1
        elif not self._open:
            return
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append((self._cell[0], " ".join(self._cell[1].split())))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            t = self._open[-1]
            (t.head if self._section == "head" else t.body).append(self._row)
            self._row = None
        elif tag in ("thead", "tbody", "tfoot"):
            self._section = "body"
        elif tag == "table":
            self.tables.append(self._open.pop())

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data


def tables_in(page: str) -> list[Table]:
    """Every ``<table>`` of an HTML page, in document order of their ends."""
    p = _Tables()
    p.feed(page)
    return p.tables


def truncated(t: Table) -> bool:
    """Cut by pandas: a body row whose every cell is "..." (the rows it left out), a "..." heading (the columns it
    left out), or a cell of exactly ``display.max_colwidth`` (50) characters ending in "..." (a text it cut)."""
    if any(row and all(text == "..." for _, text in row) for row in t.body):
        return True
    if any(text == "..." for row in t.head for _, text in row):
        return True
    return t.pandas and any(len(text) == 50 and text.endswith("...") for row in t.body for _, text in row)


def indexed(t: Table) -> bool:
    """A pandas table with a row-label column: a header row that opens with a blank ``<th>`` or a body row that
    opens with a ``<th>`` (pandas' index; a table a page writes itself has neither)."""
    if not t.pandas:
        return False
    return any(row and row[0] == ("th", "") for row in t.head[:1]) or any(row and row[0][0] == "th"
                                                                         for row in t.body)


def raw_missing(t: Table) -> list[str]:
    """The cells that print a missing value the way pandas or Python do (``NaN``, ``nan``, ``None``...)."""
    return [text for row in t.body for _, text in row if text in RAW_MISSING]


def long_open(t: Table, rows: int = FOLD_ROWS) -> bool:
    """A table of more than ``rows`` rows shown open on the page (not inside a ``<details>``)."""
    return len(t.body) > rows and not t.folded


@dataclass
class Audit:
    """What a page's tables hide from a reader: counts over its tables, by what is wrong."""

    tables: int
    indexed: int
    truncated: int
    raw_missing: int
    long_open: int

    def problems(self) -> list[str]:
        """What fails the page: a cut table, an index column, a raw missing value (a long open table is only
        counted)."""
        return [f"{n} {what}" for n, what in ((self.truncated, "table(s) cut by pandas"),
                                              (self.indexed, "table(s) with an index column"),
                                              (self.raw_missing, "table(s) printing NaN/None")) if n]


def audit(page: str) -> Audit:
    """Count a built page's tables and those cut by pandas, with an index column, printing a raw missing value,
    or open past ``FOLD_ROWS`` rows."""
    ts = tables_in(page)
    return Audit(len(ts), sum(map(indexed, ts)), sum(map(truncated, ts)), sum(bool(raw_missing(t)) for t in ts),
                 sum(map(long_open, ts)))


def audit_pages(pages: Iterable[tuple[str, str]]) -> dict[str, Audit]:
    """``audit`` of each (name, HTML) page."""
    return {name: audit(text) for name, text in pages}
