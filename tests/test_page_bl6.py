"""bl6's page readings (``statetrack.claims.bl6.page``) on hand-built frozen rows and runs whose pure − affine gaps are
worked out by hand; its figures (``frozen_ablation``, ``additive_scores``) from tiny inputs."""

import matplotlib

matplotlib.use("Agg")

from helpers import fake_record  # noqa: E402

from statetrack.claims.bl6 import page as analysis
from statetrack.claims.bl6 import claim as bl6
from statetrack.check import Check  # noqa: E402
from statetrack.display.bilinear_figures import runs_explorer, runs_table  # noqa: E402
from statetrack.claims.bl6.page import additive_scores, frozen_ablation  # noqa: E402
from statetrack.theory.additive_terms import AblationRow  # noqa: E402

#: (variant, task) → (pure, affine) accuracy at 500 of every seed; the gaps: diagonal parity 0.8 (helps), block2
#: parity −0.2 (does not help), full parity 0.05 (no clear effect), full Z5 −0.3 (hurts), block2 Z5 0.4 (helps),
#: block2 Z25 0.5 (helps), full Z25 0 (no clear effect)
SCORES = {("diagonal", "parity"): (1.0, 0.2), ("block2", "parity"): (0.3, 0.5), ("full", "parity"): (0.9, 0.85),
          ("full", "Z5"): (0.5, 0.8), ("block2", "Z5"): (0.6, 0.2), ("block2", "Z25"): (0.7, 0.2),
          ("full", "Z25"): (1.0, 1.0)}


def _records():
    out = []
    for c in bl6.grid("quick"):  # eight paired seeds per arm
        cell = bl6.cell_of({"config": c.to_dict()})
        pure, affine = SCORES[(cell["variant"], cell["task"])]
        out.append(fake_record(c, pure if cell["form"] == "pure" else affine, claim="bl6", stale=False))
    return out


def _verdict():
    return bl6.CLAIM.verdict(_records(), "quick", checks=[Check("frozen H=1", 1.0, "≥ 1", True)])


def test_frozen_values_read_the_last_h_and_the_best_affine_rate():
    rows = [AblationRow(h, 10, 400, pure, affine, 0.0, 0.0, 1 - 2 ** -h)
            for h, pure, affine in ((1, 0.5, 0.1), (2, 0.7, 0.3), (4, 0.9, 0.2))]
    frozen = analysis.frozen_table(rows)
    assert list(frozen["H"]) == [1, 2, 4]
    v = analysis.frozen_values(frozen, "quick")
    assert (v["frozen_affine_max"], v["frozen_pure_top"], v["frozen_top_h"]) == (0.3, 0.9, 4)
    assert v["frozen_success"] == bl6.FROZEN_SUCCESS


def test_values_glue_each_cells_best_and_each_statements_outcome():
    v = analysis.values(_verdict())
    assert v["best_full_parity_pure"] == 0.9 and v["best_full_Z5_affine"] == 0.8
    assert v["outcome_diagonal-parity-helps"] == "holds" and v["outcome_block2-parity-helps"] == "fails"
    assert v["outcome_full-parity-same"] == "holds" and v["outcome_full-Z5-same"] == "fails"
    assert v["outcome_block2-Z25-helps"] == "holds" and v["outcome_full-Z25-same"] == "holds"
    assert v["failing"] == "block2-parity-helps, full-Z5-same"


def test_cell_table_has_one_row_per_trained_cell():
    table = analysis.cell_table(_verdict())
    assert len(table) == 2 * len(SCORES)
    assert list(table.columns) == list(analysis.CELL_COLUMNS.values())
    assert table["seeds"].tolist() == [8] * len(table)


def test_figures_draw_one_bar_pair_per_h_and_one_panel_per_task():
    rows = [AblationRow(h, 10, 400, 0.5, 0.1, 0.0, 0.0, 0.5) for h in (1, 2)]
    fig = frozen_ablation(analysis.frozen_table(rows), "quick")
    assert len(fig.axes[0].patches) == 4
    fig = additive_scores(_verdict(), _records(), "quick")
    assert [ax.get_title() for ax in fig.axes] == ["parity", "Z5", "Z25"]
    dots = [sum(len(c.get_offsets()) for c in ax.collections) for ax in fig.axes]
    assert dots == [6 * 8, 4 * 8, 4 * 8]  # one dot per run of 8 seeds: three pairs on parity, two on Z5 and Z25


def test_runs_table_names_each_run_by_its_cell_and_the_explorer_offers_the_metric():
    summary = {"id_normalized": 1.0, "chance": 0.5}
    records = [fake_record(c, 0.5, by_length=True, summary=summary, claim="bl6", stale=False)
               for c in bl6.grid("smoke")[:2]]
    frame = runs_table(records, bl6.cell_of, bl6.label_of)
    for r in records:
        rows = frame[frame["key"] == r["key"]]
        assert set(rows["model"]) == {bl6.label_of(bl6.cell_of(r))}
        assert rows["length"].tolist() == r["by_length"]["length"]
    assert all(", parity, " in name for name in frame["model"])
    assert [c["name"] for c in runs_explorer(records, 10, bl6.cell_of, bl6.label_of).controls()] == ["metric"]


def test_unit_table_steps_the_unit_by_hand():
    """The explorer's signs against h_t stepped in plain floats from h_0 = 1 on the same seeded word; its controls
    are w0, w1, u and the word."""
    import torch

    table = analysis.unit_table(w0s=(0.8,), w1s=(-0.9, 1.1), us=(0.0, 0.5), seeds=(2,), length=40)
    bits = torch.randint(0, 2, (1, 40), generator=torch.Generator().manual_seed(2))[0].tolist()
    for w1 in (-0.9, 1.1):
        for u in (0.0, 0.5):
            rows = table[(table["w1"] == w1) & (table["u"] == u)].sort_values("t")
            pure, affine, ones = 1.0, 1.0, 0
            for t, b in enumerate(bits):
                w = (0.8, w1)[b]
                pure, affine, ones = w * pure, w * affine + (u, -u)[b], ones + b
                assert rows["pure"].iloc[t] == (1 if pure > 0 else -1)
                assert rows["affine"].iloc[t] == (1 if affine > 0 else -1)
                assert rows["parity"].iloc[t] == (-1 if ones % 2 else 1)
    assert [c["name"] for c in analysis.unit_explorer(table).controls()] == ["w0", "w1", "u", "seed"]
