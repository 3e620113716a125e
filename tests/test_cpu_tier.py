"""The book's cpu tier table: every paper table once, with its claims, its budget or its reason, and its runs."""

from statetrack.runs.provenance import repo_root
from statetrack.site.cpu_tier import cpu_plan_markdown
from statetrack.verdicts import cpu, cpu_plan


def test_every_paper_table_is_a_row_with_its_budget_or_why_not(monkeypatch):
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(repo_root() / "data" / "results"))  # read only
    cpu_plan._ladders.cache_clear()
    text = cpu_plan_markdown()
    cpu_plan._ladders.cache_clear()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| paper table")]
    tables = cpu_plan.plan()
    assert len(rows) == len(tables)
    for t in tables.values():
        row = next(r for r in rows if r.startswith(f"| {t.name} |"))
        if t.name in cpu.BUDGETS:
            assert f"| {cpu.BUDGETS[t.name]:,} steps |" in row and " of " in row.split("|")[-2]
        else:
            assert "not run: " in row
