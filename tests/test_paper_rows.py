"""One reading per paper row: every row of data/paper/ has a unique id, a statement's ``reads`` name existing rows,
each of the paper's trained statements reads at least one, and no row is judged by two statements."""

from __future__ import annotations

import re

from statetrack.verdicts.registry import CLAIMS, get_claim
from statetrack.site.paper_coverage import readers, rows, unjudged


def _statements():
    return [(c.id, s) for c in CLAIMS.values() if c.notebook for s in get_claim(c.id).statements()]


def test_every_row_has_a_unique_id():
    ids = [r["id"] for r in rows()]
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids), [i for i in ids if not re.fullmatch(
        r"[a-z0-9]+(-[a-z0-9]+)*", i)]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_statements_read_rows_that_exist():
    known = {r["id"] for r in rows()}
    missing = [f"{c}.{s.id}: {rid}" for c, s in _statements() for rid in s.reads if rid not in known]
    assert not missing, missing


def test_every_paper_experiment_names_the_rows_it_judges():
    bare = [f"{c}.{s.id}" for c, s in _statements() if not s.ours and s.checks is None and not s.reads]
    assert not bare, f"the paper's trained statements that name no row of data/paper/: {bare}"


def test_no_row_is_judged_twice():
    twice = {rid: who for rid, who in readers().items() if len(who) > 1}
    assert not twice, twice


def test_no_reported_number_is_judged_twice_under_other_ids():
    """Rows that report the same number (paper, model, variant, task, setting, metric, value: a summary repeating a
    table), grouped from the CSVs here, are read by one statement at most, and by it in every row of the group."""
    import csv

    from statetrack.runs.store import paper_dir

    groups: dict[tuple, set[str]] = {}
    for path in paper_dir().glob("*.csv"):
        for row in csv.DictReader(path.open(newline="")):
            if row.get("model") is not None and row.get("value"):
                key = tuple(row.get(k) or "" for k in ("paper", "model", "variant", "task", "setting", "metric"))
                groups.setdefault((*key, float(row["value"])), set()).add(row["id"])
    who = readers()
    for key, ids in groups.items():
        statements = {s for i in ids for s in who.get(i, [])}
        assert len(statements) <= 1, (key, statements)
        if statements:
            assert all(who.get(i) for i in ids), (key, {i: who.get(i) for i in ids})


def test_unjudged_rows_say_why():
    assert all(u["why"] for u in unjudged())
