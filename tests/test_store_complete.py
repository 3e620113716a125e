"""The committed store holds only runs that some grid names: every record under data/results belongs to a claim's
grid at quick or paper, or to a claim's recorded pilots (``pilots.of``, seeds 100 and up; ``statetrack sweep --pilot``). A record no grid
names is invisible to every page and verdict; removing a cell from a grid must remove its records too."""

from __future__ import annotations

from statetrack.claims import pilots
from statetrack.claims import get_claim, implemented
from statetrack.runs.provenance import repo_root
from statetrack.runs.store import record_path


def test_every_committed_record_is_named_by_a_grid_or_a_pilot(monkeypatch):
    store = repo_root() / "data" / "results"
    monkeypatch.setenv("STATETRACK_RESULTS_DIR", str(store))  # read only
    named = set()
    for cid in implemented():
        claim = get_claim(cid)
        for preset in ("quick", "paper"):
            named |= {record_path(c).resolve() for c in claim.grid(preset)}
        named |= {record_path(c).resolve() for cfgs in pilots.of(cid).values() for c in cfgs}
    orphans = sorted(str(p.relative_to(store)) for p in store.rglob("*.json") if p.resolve() not in named)
    assert not orphans, f"records no grid names: {orphans}"
