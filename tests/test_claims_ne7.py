"""ne7: the byte-level LM task (corpora, splits, windows, measures) and the claim's rules on synthetic records."""

import hashlib
import json
import math

import pytest
import torch

from helpers import fake_record
from statetrack.claims import ne7
from statetrack.config import ConfigError, EvalConfig, TrainConfig
from statetrack.models import make_model, model_config
from statetrack.results import run_key
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
    assert ne7.bits_per_byte(s["val_loss"]) == pytest.approx(s["val_bpb"])
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
    from statetrack.results import record_path
    from statetrack.runs import load_or_run

    cfg = ne7.grid("smoke")[0]
    rec = load_or_run(cfg, "ne7", device="cpu", preset="smoke")
    assert rec["status"] == "ok" and record_path(cfg).exists()
    assert {"val_bpb", "val_ppl", "test_ppl_beyond", "extrap_ratio", "corpus"} <= set(rec["summary"])
    assert {"git_commit", "code_hash", "torch", "device", "train_time_s"} <= set(rec["provenance"])
    assert rec["history"]["loss"] and ne7.tokens_per_second(rec) > 0


# ----------------------------------------------------------------------------- grid and rules


def test_grid_pairs_differ_only_in_eig_range_and_sweep_expands_it():
    from statetrack.sweep import plan

    for preset in ("smoke", "quick", "paper"):
        cfgs = ne7.grid(preset)
        for c in cfgs:
            if c.model.name in ne7.FAMILIES and c.model.eig_range == "[-1,1]":
                twin = c.override({"model.eig_range": "[0,1]"})
                assert run_key(twin) in {run_key(x) for x in cfgs}
    assert len(ne7.grid("quick")) == 14 and len({run_key(c) for c in ne7.grid("quick")}) == 14
    assert [i.cfg for i in plan(["ne7"], "quick")] == ne7.grid("quick")


def test_loss_rise_and_final_loss_by_hand():
    assert ne7.loss_rise([3.0, 2.0, 1.0], window=1) == 0.0
    assert ne7.loss_rise([3.0, 1.0, 2.0, 0.5], window=1) == pytest.approx(1.0)
    assert ne7.smoothed([1.0, 3.0, 5.0], window=2) == [1.0, 2.0, 4.0]
    assert ne7.final_train_loss([5.0] * 18 + [1.0, 3.0]) == pytest.approx(2.0)


def _records(preset="quick", value=None, history=None, status=None):
    """Synthetic records of a preset's grid: ``value(cell, seed)`` → summary overrides."""
    out = []
    for c in ne7.grid(preset):
        cell = ne7.cell_of({"config": c.to_dict()})
        base = {"val_ppl": 3.0, "test_ppl_beyond": 2.5, "val_loss": math.log(3.0), "ood_normalized": 0.3}
        base.update((value or (lambda *_: {}))(cell, c.seed))
        losses = (history or (lambda *_: [5.0 - 0.01 * i for i in range(40)]))(cell, c.seed)
        st = (status or (lambda *_: "ok"))(cell, c.seed)
        out.append(fake_record(c, base.pop("ood_normalized"), st, summary=base, history={"loss": losses}))
    return out


def test_rules_pass_on_the_papers_direction():
    v = ne7.verdict(_records(), "quick")
    assert v.reproduced, v.line
    assert "12/12 runs" in v.line  # the Transformer runs are shown, not judged
    labels = [r["label"] for r in v.rows if r.get("part") == "comparison"]
    assert sum(x.startswith("S ") for x in labels) == 4 and sum(x.startswith("P ") for x in labels) == 4
    assert sum(x.startswith("E ") for x in labels) == 1


def _neg(metric, factor, corpus="code", model="deltanet"):
    def value(cell, seed):
        base = {"val_ppl": 3.0, "test_ppl_beyond": 2.5}
        if cell["eig_range"] == "[-1,1]" and cell["corpus"] == corpus and cell["model"] == model:
            return {metric: base[metric] * factor}
        return {}
    return value


@pytest.mark.parametrize("metric,factor,ok", [("val_ppl", 1.04, True), ("val_ppl", 1.06, False), ("val_ppl", 0.94, False),
                                              ("test_ppl_beyond", 1.019, True), ("test_ppl_beyond", 1.03, False),
                                              ("test_ppl_beyond", 0.5, True)])
def test_ppl_and_extrapolation_rules(metric, factor, ok):
    v = ne7.verdict(_records(value=_neg(metric, factor)), "quick")
    assert v.reproduced is ok, v.line


def test_extrapolation_rule_is_for_deltanet_on_code_only():
    assert ne7.verdict(_records(value=_neg("test_ppl_beyond", 1.5, model="mamba")), "quick").reproduced
    assert ne7.verdict(_records(value=_neg("test_ppl_beyond", 1.5, corpus="docs")), "quick").reproduced


def test_stability_rules():
    def spike(cell, seed):
        losses = [5.0 - 0.01 * i for i in range(40)]
        if cell["eig_range"] == "[-1,1]" and cell["model"] == "mamba" and seed == 1:
            losses[20:26] = [9.0] * 6  # a spike: the smoothed loss rises far above its minimum
        return losses
    v = ne7.verdict(_records(history=spike), "quick")
    assert not v.reproduced and "11/12 runs" in v.line

    def worse_end(cell, seed):
        losses = [5.0 - 0.01 * i for i in range(40)]
        return [x * 1.1 for x in losses] if cell["eig_range"] == "[-1,1]" and cell["model"] == "deltanet" else losses
    s = ne7.verdict(_records(history=worse_end), "quick")
    failed = [r["label"] for r in s.rows if r.get("part") == "comparison" and not r["pass"]]
    assert not s.reproduced and failed and all(x.startswith("S ") and "DeltaNet" in x for x in failed)

    diverged = ne7.verdict(_records(status=lambda c, s: "diverged" if c["eig_range"] == "[-1,1]" else "ok"), "quick")
    assert not diverged.reproduced and "diverged" in diverged.line
