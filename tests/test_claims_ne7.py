"""ne7: the byte-level LM task (corpora, splits, windows, measures) and the claim's rules on synthetic records."""

import hashlib
import json
import math

import pytest
import torch

from helpers import fake_record, all_held_word
from statetrack.claims.ne7.page import lm_summary
from statetrack.claims.ne7 import claim as ne7
from statetrack.config import ConfigError, EvalConfig, TrainConfig
from statetrack.models import make_model, model_config
from statetrack.runs.store import run_key
from statetrack.tasks import make_task, task_config
from statetrack.tasks import byte_lm


# ----------------------------------------------------------------------------- corpora and splits


@pytest.mark.parametrize("corpus", byte_lm.BUILTIN_CORPORA)
def test_builtin_split_is_by_file_disjoint_and_complete(corpus):
    c = byte_lm.load_corpus(corpus)
    names = {s: [n for n, _ in c.documents[s]] for s in byte_lm.SPLITS}
    sets = {s: set(v) for s, v in names.items()}
    assert all(len(sets[s]) == len(names[s]) > 0 for s in byte_lm.SPLITS)
    assert not (sets["train"] & sets["val"]) and not (sets["train"] & sets["test"]) and not (sets["val"] & sets["test"])
    # Independently: rank every name by its SHA-256; the first k are test, the next k validation.
    everything = sorted(sets["train"] | sets["val"] | sets["test"], key=lambda n: hashlib.sha256(n.encode()).hexdigest())
    k = max(1, round(0.1 * len(everything)))
    assert set(everything[:k]) == sets["test"] and set(everything[k:2 * k]) == sets["val"]
    assert c.figures()["files"] == {s: len(names[s]) for s in byte_lm.SPLITS}


def test_code_corpus_leaves_out_tests_and_generated_tables():
    names = [n for s in byte_lm.SPLITS for n, _ in byte_lm.load_corpus("stdlib-code").documents[s]]
    assert all(n.endswith(".py") for n in names)
    assert not any(part in ("test", "tests", "idle_test", "site-packages", "encodings", "pydoc_data")
                   for n in names for part in n.split("/")[:-1])
    assert "argparse.py" in names or any(n.endswith("argparse.py") for n in names)


def test_own_directory_corpus_and_bad_corpora(tmp_path):
    for i in range(5):
        (tmp_path / f"doc{i}.txt").write_text(f"text number {i} " * 20)
    (tmp_path / ".hidden").write_text("never read")
    task = make_task(task_config("byte_lm", corpus=str(tmp_path)))
    names = [n for s in byte_lm.SPLITS for n, _ in task.corpus.documents[s]]
    assert sorted(names) == [f"doc{i}.txt" for i in range(5)]
    with pytest.raises(ConfigError, match="'/no/such/folder'.*stdlib-code, stdlib-docs"):
        task_config("byte_lm", corpus="/no/such/folder")
    few = tmp_path / "few"
    few.mkdir()
    (few / "a.txt").write_text("a")
    with pytest.raises(ConfigError, match="at least 3"):
        byte_lm.load_corpus(str(few))
    with pytest.raises(ConfigError, match="supervision"):
        task_config("byte_lm", supervision="final")
    with pytest.raises(ConfigError, match="'/no/such/folder'"):
        ne7.grid("quick", corpora=["/no/such/folder"])


def test_training_windows_are_next_byte_pairs_from_the_train_split():
    task = make_task(task_config("byte_lm", corpus="stdlib-docs"))
    batch = task.sample(torch.Generator().manual_seed(3), 4, 32)
    assert batch.inputs.shape == batch.targets.shape == (4, 32) and bool(batch.mask.all())
    assert torch.equal(batch.inputs[:, 1:], batch.targets[:, :-1])  # the answer is the next input
    stream = task.stream("train").tolist()
    text = bytes(b for b in stream if b < 256)
    for row_in, row_out in zip(batch.inputs.tolist(), batch.targets.tolist()):
        window = [*row_in, row_out[-1]]
        pieces = [bytes(p) for p in _split(window, byte_lm.EOD) if p]
        assert all(p in text for p in pieces)
    again = task.sample(torch.Generator().manual_seed(3), 4, 32)
    assert torch.equal(batch.inputs, again.inputs)
    assert task.vocab_size == 258 and task.num_classes == 257 and int(batch.inputs.max()) <= byte_lm.EOD


def _split(seq, sep):
    out, cur = [], []
    for x in seq:
        if x == sep:
            out.append(cur)
            cur = []
        else:
            cur.append(x)
    return [*out, cur]


# ----------------------------------------------------------------------------- measures


def test_bits_per_byte_and_perplexities_match_an_independent_computation():
    task = make_task(task_config("byte_lm", corpus="stdlib-docs"))
    torch.manual_seed(0)
    model = make_model(model_config("deltanet", d_model=8, num_heads=2, d_conv=0, mlp_ratio=0), task.vocab_size,
                       task.num_classes)
    train, ev = TrainConfig(min_len=16, max_len=16), EvalConfig(min_len=17, max_len=40, stride=8, num_seqs=6,
                                                                batch_size=4)
    out = task.evaluate(model, train, ev, "cpu")
    s = out["summary"]

    def nll(windows):  # log-softmax and gather, one window at a time
        rows = []
        with torch.no_grad():
            for w in windows:
                logp = torch.log_softmax(model(w[None, :-1])[0], dim=-1)  # (T, K)
                rows.append(-logp[torch.arange(len(w) - 1), w[1:]])
        return torch.stack(rows)  # (N, T)

    val, _ = task.windows("val", 16, 6, ev.seed)
    loss = nll(val).mean().item()
    assert s["val_loss"] == pytest.approx(loss, rel=1e-5)
    assert s["val_bpb"] == pytest.approx(loss / math.log(2), rel=1e-5)
    assert s["val_ppl"] == pytest.approx(math.exp(loss), rel=1e-5)
    test, _ = task.windows("test", 40, 6, ev.seed + 1)
    per_pos = nll(test).mean(0)  # (T,)
    assert s["test_loss_within"] == pytest.approx(per_pos[8:16].mean().item(), rel=1e-5)
    assert s["test_loss_beyond"] == pytest.approx(per_pos[16:].mean().item(), rel=1e-5)
    assert s["extrap_ratio"] == pytest.approx(s["test_ppl_beyond"] / s["test_ppl_within"], rel=1e-6)
    assert out["by_length"]["length"] == [8, 16, 24, 32, 40]
    assert out["by_length"]["loss"][2] == pytest.approx(per_pos[16:24].mean().item(), rel=1e-5)
    json.dumps(out)  # a record must be JSON


def test_eval_windows_lie_inside_one_document():
    task = make_task(task_config("byte_lm", corpus="stdlib-code"))
    windows, inside = task.windows("test", 200, 8, 1234)
    assert inside and windows.shape == (8, 201)
    docs = [d for _, d in task.corpus.documents["test"]]
    for w in windows.tolist():
        assert any(bytes(w) in d for d in docs)
    val_names = {n for n, _ in task.corpus.documents["val"]}
    assert not val_names & {n for n, _ in task.corpus.documents["test"]}


def test_smoke_run_is_recorded_as_json_with_provenance(tmp_path):
    from statetrack.runs.store import record_path
    from statetrack.runs.execute import load_or_run

    cfg = ne7.grid("smoke")[0]
    rec = load_or_run(cfg, "ne7", device="cpu", preset="smoke")
    assert rec["status"] == "ok" and record_path(cfg).exists()
    assert {"val_bpb", "val_ppl", "test_ppl_beyond", "extrap_ratio", "corpus"} <= set(rec["summary"])
    assert {"git_commit", "code_hash", "torch", "device", "train_time_s"} <= set(rec["provenance"])
    assert rec["history"]["loss"] and lm_summary.tokens_per_second(rec) > 0


# ----------------------------------------------------------------------------- grid and statements


def test_grid_pairs_differ_only_in_eig_range_and_sweep_expands_it():
    from statetrack.verdicts.plan import plan

    for preset in ("smoke", "quick", "paper"):
        cfgs = ne7.grid(preset)
        for c in cfgs:
            if c.model.name in ne7.FAMILIES and c.model.eig_range == "[-1,1]":
                twin = c.override({"model.eig_range": "[0,1]"})
                assert run_key(twin) in {run_key(x) for x in cfgs}
    assert [i.cfg for i in plan(["ne7"], "quick")] == ne7.grid("quick")
    # smoke: 2 corpora x (2 pairs + 1 reference); paper: 2 corpora x (2 pairs on 5 seeds + the reference on 3)
    assert len(ne7.grid("smoke")) == 2 * 5 and len(ne7.grid("paper")) == 2 * (2 * 2 * 5 + 3)


SEEDS = tuple(range(1000, 1005))  # five quick seeds for the paired sign tests


def test_quick_grid_is_both_families_code_pairs_on_five_seeds():
    cfgs = ne7.grid("quick")
    cells = sorted((c.task.corpus, c.model.name, getattr(c.model, "eig_range", ""), c.seed) for c in cfgs)
    assert cells == sorted([("stdlib-code", m, e, s) for m in ("deltanet", "mamba") for e in ("[0,1]", "[-1,1]")
                            for s in SEEDS])
    assert len({run_key(c) for c in cfgs}) == 20
    assert [c.seed for c in ne7.grid("quick", models=["transformer"])] == [1000]  # asked for: one reference seed
    d = next(c for c in cfgs if c.model.name == "deltanet")  # the quick recipe, unchanged
    m, t = d.model, d.train
    assert (m.d_model, m.num_layers, m.num_heads, m.d_conv, m.mlp_ratio) == (128, 2, 4, 4, 2)
    assert (t.num_steps, t.batch_size, t.lr, t.max_len, d.eval.max_len) == (300, 8, 3e-3, 256, 1024)
    # asked for, the docs corpus runs with the quick settings, pairs on the five seeds
    mamba = ne7.grid("quick", models=["mamba"], corpora=["stdlib-docs"])
    assert sorted((c.model.eig_range, c.seed) for c in mamba) == sorted((e, s) for e in ("[0,1]", "[-1,1]")
                                                                        for s in SEEDS)
    assert {c.task.corpus for c in mamba} == {"stdlib-docs"}


def test_loss_rise_and_final_loss_by_hand():
    assert ne7.loss_rise([3.0, 2.0, 1.0], window=1) == 0.0
    assert ne7.loss_rise([3.0, 1.0, 2.0, 0.5], window=1) == pytest.approx(1.0)
    assert ne7.smoothed([1.0, 3.0, 5.0], window=2) == [1.0, 2.0, 4.0]
    assert ne7.final_train_loss([5.0] * 18 + [1.0, 3.0]) == pytest.approx(2.0)
    assert math.isnan(ne7.loss_rise([])) and math.isnan(ne7.final_train_loss([]))  # no losses: no evidence


def test_statements_are_ne_section_5_3_table_4_and_fig_5():
    got = {s.id: s for s in ne7.statements()}
    # stability: a tenth of a uniform guess's loss over 257 classes, 0.1 * ln 257
    for m in ("deltanet", "mamba"):
        s = got[f"{m}-stable"]
        assert (s.kind, s.statistic, s.rule.op, s.rule.metric) == ("learns", "every", "<=", "loss_rise")
        assert s.rule.threshold == pytest.approx(0.1 * math.log(257), abs=1e-6)
    # Table 4, Wiki ppl (FineWeb rows): the largest gap is Mamba 370M's, ln(25.02 / 24.84)
    margin = math.log(25.02 / 24.84)
    paper = {"deltanet": math.log(24.54 / 24.68), "mamba": math.log(25.02 / 24.84)}
    for m in ("deltanet", "mamba"):
        for corpus in ("code", "docs"):
            s = got[f"{m}-{corpus}-ppl"]
            assert (s.kind, s.statistic, s.rule.op, s.rule.metric) == ("comparison", "median", "<=", "val_loss")
            assert s.rule.threshold == pytest.approx(margin, abs=1e-6) and s.paper == pytest.approx(paper[m], abs=1e-6)
            assert s.where == {"corpus": corpus, "model": m, "eig_range": "[-1,1]"}
            assert s.against == {"corpus": corpus, "model": m, "eig_range": "[0,1]"}
    # Fig. 5: the directions, threshold 0
    assert (got["deltanet-code-beyond"].rule.op, got["deltanet-code-beyond"].rule.threshold) == ("<=", 0.0)
    assert (got["mamba-code-beyond"].rule.op, got["mamba-code-beyond"].rule.threshold) == (">=", 0.0)
    assert {got[k].rule.metric for k in ("deltanet-code-beyond", "mamba-code-beyond")} == {"test_loss_beyond"}
    assert all(got[k].test == "sign" for k in ("deltanet-code-beyond", "mamba-code-beyond"))
    ours = {k for k, s in got.items() if s.ours}
    assert ours == {"deltanet-docs-ppl", "mamba-docs-ppl"} and all(not got[k].reads for k in ours)
    assert {k: got[k].reads for k in set(got) - ours} == {
        "deltanet-stable": ("ne7-s53-deltanet-stable",), "mamba-stable": ("ne7-s53-mamba-stable",),
        "deltanet-code-ppl": ("ne7-t4-deltanet-same-ppl",), "mamba-code-ppl": ("ne7-t4-mamba-same-ppl",),
        "deltanet-code-beyond": ("ne7-fig5-deltanet-code-beyond",),
        "mamba-code-beyond": ("ne7-fig10-mamba-code-beyond",)}
    quick = {k for k, s in got.items() if s.reason_not_run("quick") is None}
    assert quick == set(got) - ours
    for k in ours:  # the docs pair's cost: 2 ranges x 5 seeds beside the quick grid's 2 families x 2 x 5
        reason = got[k].reason_not_run("quick")
        assert "would add 10 runs" in reason and "to its 20" in reason, reason
    assert all(s.reason_not_run("paper") is None for s in got.values())
    assert ne7.CLAIM.headline == "deltanet-code-beyond"


_VAL, _BEYOND = math.log(3.0), math.log(2.5)


def _records(preset="quick", value=None, history=None, status=None):
    """Synthetic records of a preset's grid: ``value(cell, seed)`` → summary overrides."""
    out = []
    for c in ne7.grid(preset):
        cell = ne7.cell_of({"config": c.to_dict()})
        base = {"val_loss": _VAL, "test_loss_beyond": _BEYOND, "ood_normalized": 0.3}
        base.update((value or (lambda *_: {}))(cell, c.seed))
        losses = (history or (lambda *_: [5.0 - 0.01 * i for i in range(40)]))(cell, c.seed)
        st = (status or (lambda *_: "ok"))(cell, c.seed)
        out.append(fake_record(c, base.pop("ood_normalized"), st, summary=base, history={"loss": losses}))
    return out


def _neg(metric, ratio, seeds=range(5), model="deltanet", corpus="code"):
    """[-1,1]'s perplexity ``ratio`` times [0,1]'s (a loss ln ratio higher) in the given seeds (by place: 0 is the
    grid's first seed)."""
    def value(cell, seed):
        if (cell["eig_range"], cell["model"], cell["corpus"]) == ("[-1,1]", model, corpus) and seed % 1000 in seeds:
            return {metric: {"val_loss": _VAL, "test_loss_beyond": _BEYOND}[metric] + math.log(ratio)}
        return {}
    return value


def _failing(v):
    return sorted(o.statement.id for o in v.statements if o.outcome == "fails")


def _both(*values):
    def value(cell, seed):
        return {k: v for f in values for k, v in f(cell, seed).items()}
    return value


def test_the_papers_directions_hold_on_five_of_five_paired_seeds():
    lower, higher = _neg("test_loss_beyond", 0.98), _neg("test_loss_beyond", 1.02, model="mamba")
    v = ne7.CLAIM.verdict(_records(value=_both(lower, higher)), "quick")
    assert v.word == all_held_word(v) and v.reproduced is (v.word == "reproduced"), v.line
    assert v.line.startswith("ne7 verdict (quick): REPRODUCED: experiments: 6/6 of the paper's hold, ours none decided, "
                             "2 not run"), v.line
    o = {o.statement.id: o for o in v.statements}
    assert o["deltanet-code-beyond"].p_value == pytest.approx(0.5 ** 5)  # 5 of 5 signs: one-sided p = 1/32
    assert {o[k].outcome for k in ("deltanet-docs-ppl", "mamba-docs-ppl")} == {"not run"}
    paper = ne7.CLAIM.verdict(_records("paper", value=_both(lower, higher)), "paper")
    assert any(r["label"] == "code: Transformer" for r in paper.rows)  # shown at paper, never judged


@pytest.mark.parametrize("seeds,outcome", [
    pytest.param(range(4), "inconclusive", id="4-of-5-signs-p-0.19"),
    pytest.param(range(5), "holds", id="5-of-5"),
])
def test_a_direction_needs_every_one_of_five_paired_seeds(seeds, outcome):
    def value(cell, seed):  # DeltaNet [-1,1] lower beyond the context on ``seeds``, higher on the rest
        if (cell["model"], cell["eig_range"]) == ("deltanet", "[-1,1]"):
            return {"test_loss_beyond": _BEYOND + (-0.01 if seed % 1000 in seeds else 0.01)}
        return {}
    v = ne7.CLAIM.verdict(_records(value=value), "quick")
    assert {o.statement.id: o.outcome for o in v.statements}["deltanet-code-beyond"] == outcome


@pytest.mark.parametrize("metric,ratio,seeds,failing,unsure", [
    pytest.param("val_loss", 1.005, range(5), [], [], id="ppl-0.5%-worse-is-comparable"),
    pytest.param("val_loss", 1.01, range(5), ["deltanet-code-ppl"], [], id="ppl-1%-worse-beyond-table-4"),
    # about the same is two-sided: 10 % better on every seed is a difference too
    pytest.param("val_loss", 0.9, range(5), ["deltanet-code-ppl"], [], id="ppl-better-is-a-difference"),
    # 3 of 5 within the margin shows no equivalence (5 of 5 needed), 2 or 3 beyond it no difference: inconclusive
    pytest.param("val_loss", 1.5, (1, 3), [], ["deltanet-code-ppl"], id="two-worse-seeds"),
    pytest.param("val_loss", 1.5, (0, 2, 4), [], ["deltanet-code-ppl"], id="three-worse-seeds"),
    pytest.param("test_loss_beyond", 1.001, range(5), ["deltanet-code-beyond"], [], id="beyond-worse-on-every-seed"),
    pytest.param("test_loss_beyond", 1.0, range(5), [], [], id="beyond-equal-is-no-evidence"),
])
def test_about_the_same_is_an_equivalence_test_and_directions_sign_tests(metric, ratio, seeds, failing, unsure):
    v = ne7.CLAIM.verdict(_records(value=_neg(metric, ratio, seeds)), "quick")
    assert _failing(v) == failing, v.line
    got = {o.statement.id: o.outcome for o in v.statements}
    assert all(got[k] == "inconclusive" for k in unsure), got
    assert v.word == ("partly reproduced" if failing else all_held_word(v))


def test_mamba_is_judged_at_quick_and_docs_only_at_paper():
    v = ne7.CLAIM.verdict(_records(value=_neg("val_loss", 2.0, model="mamba")), "quick")
    assert _failing(v) == ["mamba-code-ppl"]
    docs = ne7.CLAIM.verdict(_records("paper", value=_neg("val_loss", 2.0, model="mamba", corpus="docs")), "paper")
    assert _failing(docs) == ["mamba-docs-ppl"]


def _spike(height, seeds=(1,)):
    def history(cell, seed):
        losses = [3.0] * 40
        if cell["eig_range"] == "[-1,1]" and cell["model"] == "deltanet" and seed % 1000 in seeds:
            losses[20:26] = [3.0 + height] * 6  # six logged losses: the smoothed loss rises by `height`
        return losses
    return history


@pytest.mark.parametrize("height,ok", [(0.5, True), (0.6, False)])
def test_stability_is_every_seed_below_a_tenth_of_chance_loss(height, ok):
    v = ne7.CLAIM.verdict(_records(history=_spike(height)), "quick")
    assert _failing(v) == ([] if ok else ["deltanet-stable"])
    o = next(o for o in v.statements if o.statement.id == "deltanet-stable")
    assert (o.seeds, o.seeds_pass) == (10, 10 if ok else 9) and o.value == pytest.approx(height)


def test_a_run_that_did_not_learn_breaks_stability():
    # a run that never learned (validation loss not below the unigram model's): NE says both ranges train, stably;
    # its flat loss never rises, so it counts against the bound, not for it
    def unlearned(cell, seed):
        return {"val_loss": 99.0} if cell["model"] == "deltanet" and seed % 1000 < 2 else {}
    v = ne7.CLAIM.verdict(_records(value=unlearned), "quick")
    o = {o.statement.id: o for o in v.statements}
    assert o["deltanet-stable"].outcome == "fails" and o["deltanet-stable"].seeds_pass == 6  # 2 of 5 per range
    assert o["deltanet-code-ppl"].outcome == "fails"  # about the same perplexity needs both ranges to learn
    assert "did not fit" in o["deltanet-code-ppl"].reason
    assert o["mamba-stable"].outcome == "holds"


def test_diverged_runs_count_against_the_comparisons():
    two = ne7.CLAIM.verdict(_records(status=lambda c, s: "diverged" if c["eig_range"] == "[-1,1]" and s % 1000 < 2
                                     else "ok"), "quick")
    o = {o.statement.id: o.outcome for o in two.statements}
    assert o["deltanet-stable"] == "fails"  # a diverged run breaks the stability bound, fitted or not
    assert o["deltanet-code-ppl"] == "fails"  # 3 of 5 seeds fitted: fewer than two thirds of a side that learns
    assert o["deltanet-code-beyond"] == "fails"  # the direction needs both ranges to have learned


def test_paper_preset_judges_every_statement():
    lower = _neg("test_loss_beyond", 0.98)
    v = ne7.CLAIM.verdict(_records("paper", value=_both(lower, _neg("test_loss_beyond", 1.05, model="mamba"))),
                          "paper")
    assert all(o.outcome == "holds" for o in v.statements), v.line
    assert all(o.seeds == 5 for o in v.statements if o.statement.kind == "comparison")
    bad = ne7.CLAIM.verdict(_records("paper", value=_both(lower, _neg("test_loss_beyond", 0.95, model="mamba"))),
                            "paper")
    assert _failing(bad) == ["mamba-code-beyond"]  # NE: Mamba [-1,1] is worse beyond the training context


def test_paper_rows_are_table_4():
    rows = ne7.paper_rows()
    assert {k: (r["paper_wiki_ppl"], r["paper_lambada_ppl"]) for k, r in rows.items()} == {
        ("deltanet", "[0,1]"): (24.68, 31.49), ("deltanet", "[-1,1]"): (24.54, 31.15),
        ("mamba", "[0,1]"): (24.84, 24.69), ("mamba", "[-1,1]"): (25.02, 24.71)}
    assert ne7.wiki_gaps()[("deltanet", "1.3B, FW-100B")] == pytest.approx(math.log(18.57 / 18.54))


def test_the_speed_table_names_one_thread_in_the_singular():
    """A record's device "AMD EPYC (1 threads)" reads "(1 thread)" in the speed table; "(2 threads)" stays."""
    import pandas as pd

    from statetrack.claims.ne7.page import readings

    runs = pd.DataFrame({"model": ["mamba"], "tokens/s": [10.0], "params": [5], "status": ["ok"]})
    assert list(readings.speed_table(runs, "AMD EPYC (1 threads)", "quick")["device"]) == ["AMD EPYC (1 thread)"]
    assert list(readings.speed_table(runs, "AMD EPYC (2 threads)", "quick")["device"]) == ["AMD EPYC (2 threads)"]
