"""Claim x1 (both papers): one leaderboard, every model family of NE and BL on the tasks of both, judged by theory.

Neither paper has this table. Its rows are the transition families of both papers (Mamba and
DeltaNet with eigenvalues in [0,1] or [-1,1]; the bilinear full, block-diagonal b = 2, real
diagonal and rotation (R2) models; the LSTM, sLSTM, mLSTM and the Transformer), its columns five
tasks, each trained and tested with the protocol of the claim that owns it. DeltaNet rows are one
layer (NE Thm 6: two layers of reflections add mod m, so its "cannot" holds for one layer only);
the other rows take the owner's depth (their predictions hold at any depth).

| column   | task                                             | protocol of | train lengths → test lengths |
|----------|--------------------------------------------------|-------------|------------------------------|
| parity   | parity, a label after every bit                  | ne4 (= ne1) | 40 → 40–256                  |
| Z3       | modular addition mod 3                           | ne2         | 2–10 → 11–500                |
| S3       | the S3 word problem (all six elements as tokens) | bl7         | 2–10 → 11–500                |
| S5 swaps | the S5 word problem, transpositions only         | ne5         | 32 → 33–128 (33–500 bilinear)|
| perm FSM | 25 states, 4 letters, every letter a permutation | bl3         | 2–10 → 500                   |

Grid: a cell (row × column) that the owning claim runs at the preset is *that claim's run*: x1
takes its config from the owner's ``grid`` (nothing duplicated), so the run key is the owner's and
the one stored record serves both (its ``claim`` says which claim it was made for). The other cells
are *fills*: the column's protocol (task, training and test settings of the owner's bilinear or
recurrent reference cell) with the family's model as another claim configures it (Mamba, DeltaNet:
the column owner's if it has the family, else ne1's; sLSTM, mLSTM, Transformer: ne4's; LSTM: bl3's;
bilinear: the column's bilinear width). The quick preset trains only the fills listed in
``FILLS["quick"]`` (about five minutes of a 2-core CPU); the rest are "not run at this preset".

Verdict rules, the theories' predictions cell by cell (``prediction``; score = mean normalized
accuracy over the test lengths, 0 = chance, every seed must meet the rule):

- *cannot* (an impossibility theorem applies): ≤ 0.1; on S3 the commuting families may learn the
  sign of the permutation, so their bound is bl7's count-only ceiling; a 1-layer DeltaNet [-1,1]
  on a task with a letter of order ≥ 3 (it can still track the swaps) must stay ≤ 0.5 (not solved);
- *can, and a paper reports it learned*: ≥ 0.9;
- every other cell (no theorem applies: LSTM, sLSTM, Transformer; or a construction exists but
  neither paper reports training it) is shown, not judged.

Exact checks (training-free facts the rules rely on): the permutation machine's letters do not
commute and one has a cycle of length ≥ 3; S3 and S5 (swaps) are not abelian.

Used in: notebooks/x1_leaderboard.md, ``statetrack verify``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from statetrack.claims import Verdict, check_preset
from statetrack.claims.common import Check, Rule, at_least, at_most, check_choice, check_seeds, judge
from statetrack.config import ModelConfig, RunConfig
from statetrack.models import model_config

ID = "x1"
ROWS = ("mamba_pos", "mamba_neg", "deltanet_pos", "deltanet_neg", "full", "block2", "diagonal", "rotation",
        "lstm", "slstm", "mlstm", "transformer")
NAMES = {"mamba_pos": "Mamba [0,1]", "mamba_neg": "Mamba [-1,1]", "deltanet_pos": "DeltaNet [0,1], 1 layer",
         "deltanet_neg": "DeltaNet [-1,1], 1 layer", "full": "bilinear full", "block2": "bilinear block b=2",
         "diagonal": "bilinear real diagonal", "rotation": "bilinear rotation (R2)", "lstm": "LSTM",
         "slstm": "sLSTM", "mlstm": "mLSTM", "transformer": "Transformer"}
TASKS = ("parity", "Z3", "S3", "S5_swaps", "fsm_perm")
TASK_NAMES = {"parity": "parity", "Z3": "Z3 (sum mod 3)", "S3": "S3 word problem", "S5_swaps": "S5, swaps only",
              "fsm_perm": "permutation FSM (25 states)"}
OWNER = {"parity": "ne4", "Z3": "ne2", "S3": "bl7", "S5_swaps": "ne5", "fsm_perm": "bl3"}
BILINEAR = ("full", "block2", "diagonal", "rotation")
PASS, FAIL, NOT_SOLVED = 0.9, 0.1, 0.5
HEADLINE = "DeltaNet [-1,1], 1 layer · S5, swaps only"  # the scoreboard's row

#: column → (the owner's cell whose protocol bilinear fills copy, the one recurrent fills copy); where the
#: owner does not run it at a preset, another of its cells of the same kind.
REFERENCE = {"parity": ("mamba_neg", "mamba_neg"), "Z3": ("diagonal", "mamba_neg"), "S3": ("full", "full"),
             "S5_swaps": ("full", "deltanet_neg"), "fsm_perm": ("full", "lstm")}
FSM_STATES = {"smoke": 5, "quick": 25, "paper": 25}  # the permutation machine of bl3's grid on the board
_BILINEAR_WIDTH = {"smoke": 4, "quick": 16, "paper": 64}  # fills' H where the column has no bilinear cell to copy
#: The fills (row, column) trained at each preset; every other cell not owned by a claim is "not run".
FILLS: dict[str, tuple[tuple[str, str], ...]] = {
    "smoke": (("block2", "parity"), ("mamba_pos", "fsm_perm")),
    "quick": (("full", "parity"), ("block2", "parity"), ("diagonal", "parity"),
              ("mamba_pos", "Z3"), ("full", "Z3"), ("block2", "Z3"),
              ("block2", "S3"), ("mamba_neg", "S3"), ("deltanet_neg", "S3"),
              ("diagonal", "S5_swaps"), ("block2", "S5_swaps"),
              ("diagonal", "fsm_perm"), ("block2", "fsm_perm"), ("mamba_neg", "fsm_perm")),
    "paper": tuple((r, t) for r in ROWS for t in TASKS),
}


# ----------------------------------------------------------------------------- rows and columns of a config


def row_of(model: dict[str, Any]) -> str | None:
    """A model config (as a dict) → its leaderboard row, or None for a model the board does not show."""
    name = model["name"]
    if name in ("mamba", "deltanet"):
        if name == "deltanet" and model.get("num_layers", 1) != 1:
            return None  # Thm 6: two layers of reflections add mod m, so DeltaNet's predictions hold for one layer only
        return f"{name}_{'neg' if model['eig_range'] == '[-1,1]' else 'pos'}"
    if name == "bilinear":
        if model.get("additive") or model.get("normalize") != "every_step" or model.get("input") != "onehot":
            return None
        if model["variant"] == "block":
            return "block2" if model["block_size"] == 2 else None
        return model["variant"] if model["variant"] in BILINEAR else None
    if name in ("lstm", "slstm", "mlstm", "transformer"):
        return name
    return None


def column_of(task: dict[str, Any]) -> str | None:
    """A task config (as a dict) → its leaderboard column, or None."""
    name = task["name"]
    if name == "parity":
        return "parity"
    if name == "modular_addition" and task["modulus"] == 3:
        return "Z3"
    if name == "word_problem" and task.get("tokens_per_element", 1) == 1:
        if task["group"] == "S3" and task["elements"] == "all":
            return "S3"
        if task["group"] == "S5" and task["elements"] == "swaps":
            return "S5_swaps"
    if name == "fsm" and task["num_permutation_letters"] == task["alphabet_size"]:
        return "fsm_perm"
    return None


def cell_of(record: dict[str, Any]) -> dict[str, Any]:
    cfg = record["config"]
    return {"task": column_of(cfg["task"]), "model": row_of(cfg["model"])}


def label_of(cell: dict[str, Any]) -> str:
    return f"{NAMES[cell['model']]} · {TASK_NAMES[cell['task']]}"


# ----------------------------------------------------------------------------- the grid


def _claim(claim_id: str):
    import importlib

    return importlib.import_module(f"statetrack.claims.{claim_id}")


def owned(preset: str, seeds: list[int] | None = None) -> dict[tuple[str, str], list[RunConfig]]:
    """The owners' runs that fall on the board, by (row, column): their configs exactly, so their records are reused.

    Where an owner runs one family twice in one column (bl7's rotation at H = 2 and 64), the first
    config in its grid order is kept, so each cell has one setting.
    """
    out: dict[tuple[str, str], list[RunConfig]] = {}
    setting: dict[tuple[str, str], Any] = {}
    for column, owner in OWNER.items():
        for cfg in _claim(owner).grid(preset, seeds=seeds):
            d = cfg.to_dict()
            row = row_of(d["model"])
            if row is None or column_of(d["task"]) != column:
                continue
            if column == "fsm_perm" and d["task"]["num_states"] != FSM_STATES[preset]:
                continue
            key = (row, column)
            what = (cfg.task, cfg.model, cfg.eval)
            if setting.setdefault(key, what) != what:
                continue
            out.setdefault(key, []).append(cfg)
    return out


def _reference(cells: dict[tuple[str, str], list[RunConfig]], column: str, bilinear: bool) -> list[RunConfig]:
    """The owner's cell (its runs) whose protocol a fill copies: a bilinear one for bilinear fills, else a recurrent."""
    mine = [(row, cfgs) for (row, col), cfgs in cells.items() if col == column]
    if not mine:
        raise ValueError(f"x1: the owner {OWNER[column]} runs nothing in column {column!r}")
    preferred = REFERENCE[column][0 if bilinear else 1]
    kind = [cfgs for row, cfgs in mine if row == preferred]
    kind += [cfgs for row, cfgs in mine if (row in BILINEAR) == bilinear]
    return (kind or [cfgs for _, cfgs in mine])[0]


def fill_model(preset: str, row: str, column: str, cells: dict[tuple[str, str], list[RunConfig]]) -> ModelConfig:
    """The model config of a fill: the family as another claim configures it (see the module docstring)."""
    if row in ("mamba_pos", "mamba_neg", "deltanet_pos", "deltanet_neg"):
        family, eig = row.split("_")
        eig = "[-1,1]" if eig == "neg" else "[0,1]"
        same_column = [cfgs[0].model for (r, c), cfgs in cells.items() if c == column and r.startswith(family)]
        ne1 = [c.model for c in _claim("ne1").grid(preset) if c.model.name == family]
        return replace((same_column or ne1)[0], eig_range=eig, **({"num_layers": 1} if family == "deltanet" else {}))
    if row in ("slstm", "mlstm", "transformer"):
        return next(c.model for c in _claim("ne4").grid(preset) if c.model.name == row
                    and c.task.name == "parity")
    if row == "lstm":
        return _claim("bl3").model_of(preset, "lstm")
    ref = _reference(cells, column, bilinear=True)[0].model
    width = ref.d_model if ref.name == "bilinear" else _BILINEAR_WIDTH[preset]
    variant = {"block2": dict(variant="block", block_size=2)}.get(row, dict(variant=row))
    return model_config("bilinear", d_model=width, **variant)


def fills(preset: str, seeds: list[int] | None = None,
          cells: dict | None = None) -> dict[tuple[str, str], list[RunConfig]]:
    """The x1-only runs of ``preset``: ``FILLS[preset]`` minus the cells an owner already runs."""
    cells = owned(preset, seeds) if cells is None else cells
    out = {}
    for row, column in FILLS[preset]:
        if (row, column) in cells:
            continue
        runs = _reference(cells, column, row in BILINEAR)
        ref = runs[0]
        model = fill_model(preset, row, column, cells)
        longest = max(ref.train.max_len, ref.eval.max_len)
        if model.name == "transformer" and model.max_len < longest:
            model = replace(model, max_len=longest)
        lrs = sorted({c.train.lr for c in runs}, reverse=True)  # the reference cell's rates (paper: the owner's sweep)
        ref_seeds = sorted({c.seed for c in runs})
        out[(row, column)] = [RunConfig(task=ref.task, model=model, train=replace(ref.train, lr=lr), eval=ref.eval,
                                        seed=s) for lr in lrs for s in ref_seeds]
    return out


def grid(preset: str, seeds: list[int] | None = None, models: list[str] | None = None,
         tasks: list[str] | None = None) -> list[RunConfig]:
    """Every run of x1 at ``preset``: the owners' runs on the board, then the fills, in row × column order.

    Args:
        preset: smoke, quick or paper.
        seeds: training seeds (default: each owner's at the preset; a fill takes its reference cell's).
        models: a subset of ``ROWS`` (default: all).
        tasks: a subset of ``TASKS`` (default: all).
    """
    check_preset(preset)
    seeds = check_seeds(seeds, ()) if seeds is not None else None
    models = check_choice(ID, "model", models, ROWS)
    tasks = check_choice(ID, "task", tasks, TASKS)
    cells = owned(preset, seeds)
    every = {**cells, **fills(preset, seeds, cells)}
    return [c for row in ROWS for col in TASKS if row in models and col in tasks for c in every.get((row, col), [])]


def not_run(preset: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The board's cells without a run in ``records``."""
    ran = {(c["model"], c["task"]) for c in map(cell_of, records)}
    return [{"task": t, "model": r} for r in ROWS for t in TASKS if (r, t) not in ran]


# ----------------------------------------------------------------------------- the theories' predictions


@dataclass(frozen=True)
class Prediction:
    """What theory says about one cell: "can", "cannot" or "open", why, and the rule it implies (None: not judged)."""

    says: str
    why: str
    rule: Rule | None


@functools.lru_cache(maxsize=None)
def _s3_ceiling(preset: str) -> float:
    return round(_claim("bl7").ceiling_normalized(preset), 4)


def prediction(row: str, task: str, preset: str = "quick") -> Prediction:
    """The theories' prediction for (row, task); the rule every run of that cell must meet."""
    if row not in ROWS or task not in TASKS:
        raise ValueError(f"unknown cell ({row!r}, {task!r}); rows: {', '.join(ROWS)}; tasks: {', '.join(TASKS)}")
    if row in ("mamba_pos", "deltanet_pos", "mlstm"):
        return Prediction("cannot", "NE Thm 1: every eigenvalue in [0,1], so on a repeated letter of order ≥ 2 the "
                                    "finite-precision state becomes constant; every task here has such a letter",
                          at_most(FAIL))
    if row == "full":
        return Prediction("can", "BL Prop 1: a full bilinear RNN simulates any finite state machine; BL and NE's "
                                 "full-matrix baseline learn it", at_least(PASS))
    if row in ("lstm", "slstm", "transformer"):
        return Prediction("open", "no theorem of either paper applies (a non-linear recurrence or attention)", None)
    commuting = row in ("mamba_neg", "diagonal", "rotation", )
    if task == "parity":
        if row == "rotation":
            return Prediction("can", "a rotation by π is −1 (NE Thm 1 allows it), but neither paper reports R2 "
                                     "learning parity at these lengths", None)
        if row == "block2":
            return Prediction("can", "BL: block-diagonal b = 2 holds a sign flip; BL reports 1.00 at m = 2",
                              at_least(PASS))
        src = {"mamba_neg": "NE Thm 1 and Fig 1 (Mamba [-1,1] learns parity)",
               "deltanet_neg": "NE Thm 3 (A ∈ {−1, 1}) and Table 3 (DeltaNet [-1,1] learns parity)",
               "diagonal": "NE Thm 1 allows a negative real eigenvalue; BL Prop 3 (the real diagonal learns parity)"}
        return Prediction("can", src[row], at_least(PASS))
    if task == "Z3":
        if row == "rotation":
            return Prediction("can", "NE Thm 2 and Thm 3: a 2×2 rotation by 2π/3 counts mod 3; NE (ne2) reports "
                                     "rotations learn it", at_least(PASS))
        if row == "block2":
            return Prediction("can", "a b = 2 block holds the rotation by 2π/3; BL reports 1.00 for b = 2 at every m",
                              at_least(PASS))
        return Prediction("cannot", "NE Thm 2: one layer whose transition matrices have only real eigenvalues "
                                    "cannot count mod 3 (its state on 1^k is eventually 2-periodic)", at_most(FAIL))
    if task == "S3":
        if commuting:
            return Prediction("cannot", "BL Prop 2: a shared eigenbasis makes the transitions commute, so only the "
                                        "letter counts reach the state; the sign of the permutation is learnable, so "
                                        "the bound is bl7's count-only ceiling", at_most(_s3_ceiling(preset)))
        if row == "block2":
            return Prediction("can", "S3 has a faithful 2-dimensional representation, so one b = 2 block can hold it; "
                                     "neither paper trains b = 2 on S3", None)
        return Prediction("cannot", "NE Thm 2: the 3-cycle token is one generalized Householder matrix (real "
                                    "eigenvalues), so one layer cannot count its repetitions mod 3; the swaps remain "
                                    "trackable, so the rule is only 'not solved'", at_most(NOT_SOLVED))
    if task == "S5_swaps":
        if commuting:
            return Prediction("cannot", "BL Prop 2: commuting transitions see only letter counts, and the swaps "
                                        "generate the non-abelian S5", at_most(FAIL))
        if row == "block2":
            return Prediction("cannot", "bl5 (theory.block_size): blocks of size b < 4 hold only the sign of a "
                                        "permutation of S5", at_most(FAIL))
        return Prediction("can", "NE Thm 3: a swap is one reflection (a generalized Householder matrix with β = 2); "
                                 "NE Fig 4 (DeltaNet [-1,1], 1 layer, learns swaps)", at_least(PASS))
    # fsm_perm
    if commuting:
        return Prediction("cannot", "BL Prop 2: commuting transitions see only letter counts, and this machine's "
                                    "letters do not commute (exact check)", at_most(FAIL))
    if row == "block2":
        return Prediction("cannot", "bl5 (theory.block_size): a b = 2 block holds only groups with a faithful "
                                    "representation of dimension ≤ 2; these letters generate a large permutation "
                                    "group (exact check: not abelian, a letter of order ≥ 3)", at_most(FAIL))
    return Prediction("cannot", "NE Thm 2 / Thm 3: one generalized Householder matrix per letter has real eigenvalues, "
                                "so a letter with a cycle of length ≥ 3 cannot be followed around it (exact check); "
                                "letters that swap can, so the rule is only 'not solved'", at_most(NOT_SOLVED))


def rule_of(cell: dict[str, Any], preset: str = "quick") -> Rule | None:
    return prediction(cell["model"], cell["task"], preset).rule


# ----------------------------------------------------------------------------- exact checks


def letter_facts(preset: str) -> dict[str, Any]:
    """The permutation machine of the ``fsm_perm`` column: its letters' cycle lengths and whether they commute."""
    import torch

    from statetrack.tasks import make_task

    cfg = next(c for cfgs in owned(preset).values() for c in cfgs if column_of(c.task.to_dict()) == "fsm_perm")
    table = make_task(cfg.task).table  # (m, k)
    m, k = table.shape
    cycles = []
    for a in range(k):
        seen, lengths = set(), []
        for q in range(m):
            if q in seen:
                continue
            n, p = 0, q
            while p not in seen:
                seen.add(p)
                p, n = int(table[p, a]), n + 1
            lengths.append(n)
        cycles.append(sorted(lengths, reverse=True))
    commute = all(torch.equal(table[table[:, a], b], table[table[:, b], a]) for a in range(k) for b in range(k))
    return {"states": m, "letters": k, "cycles": cycles, "commute": commute}


def checks(preset: str) -> list[Check]:
    """Training-free facts the rules rely on (seconds)."""
    from statetrack.tasks import make_task, task_config

    check_preset(preset)
    facts = letter_facts(preset)
    longest = max(max(c) for c in facts["cycles"])
    out = [Check(f"perm FSM ({facts['states']} states): letters do not commute", float(not facts["commute"]),
                 "= 1 (some pair ab ≠ ba)", not facts["commute"],
                 "δ(δ(q, a), b) vs δ(δ(q, b), a) over all q, a, b"),
           Check(f"perm FSM ({facts['states']} states): a letter with a cycle of length ≥ 3", float(longest),
                 "≥ 3", longest >= 3, f"cycle lengths per letter: {facts['cycles']}")]
    for group, elements in (("S3", "all"), ("S5", "swaps")):
        task = make_task(task_config("word_problem", group=group, elements=elements))
        mul = task.mul_table
        drawn = [int(x) for x in task.elements_drawn]
        abelian = all(int(mul[a, b]) == int(mul[b, a]) for a in drawn for b in drawn)
        out.append(Check(f"{group} ({elements}) tokens do not commute", float(not abelian), "= 1", not abelian,
                         f"{len(drawn)} token elements, |G| = {task.group_order}"))
    return out


# ----------------------------------------------------------------------------- verdict


def verdict(records: list[dict[str, Any]], preset: str, checks: list[Check] | None = None) -> Verdict:
    """Every run meets its cell's predicted rule (``prediction``) and every exact check holds."""
    exact = globals()["checks"](preset) if checks is None else checks
    records = [r for r in records if None not in cell_of(r).values()]
    return judge(ID, preset, records, cell_of=cell_of, rule_of=lambda c: rule_of(c, preset), label_of=label_of,
                 checks=exact, not_run=not_run(preset, records),
                 legend=f"(cannot: <= {FAIL} or the stated bound; can and reported learned: >= {PASS})")


def board(verdict_rows: list[dict[str, Any]], records: list[dict[str, Any]], preset: str = "quick") -> Any:
    """The leaderboard as a tidy frame: one row per cell with the theory, ours over seeds, and where the runs came from.

    Columns: model, task, theory (can / cannot / open), rule, median, min, max, seeds, pass, source
    (the claim whose run this is, "x1" for a fill, "" when not run), why.
    """
    import pandas as pd

    source: dict[tuple[str, str], set[str]] = {}
    for r in records:
        c = cell_of(r)
        origin = r["claim"]
        source.setdefault((c["model"], c["task"]), set()).add(origin)
    out = []
    for v in verdict_rows:
        if v.get("part") not in ("trained", "not run"):
            continue
        p = prediction(v["model"], v["task"], preset)
        ran = v["part"] == "trained"
        out.append({"model": NAMES[v["model"]], "task": TASK_NAMES[v["task"]], "theory": p.says,
                    "rule": str(p.rule) if p.rule else "shown, not judged",
                    "median": v.get("ours_median") if ran else None, "min": v.get("ours_min") if ran else None,
                    "max": v.get("ours_max") if ran else None, "seeds": v.get("seeds", 0) if ran else 0,
                    "pass": {True: "PASS", False: "FAIL", None: "–"}[v.get("pass")] if ran else "not run",
                    "source": ", ".join(sorted(source.get((v["model"], v["task"]), ()))), "why": p.why,
                    "row": v["model"], "column": v["task"]})
    return pd.DataFrame(out)


__all__ = ["FILLS", "HEADLINE", "ID", "NAMES", "OWNER", "ROWS", "TASKS", "TASK_NAMES", "Prediction", "board",
           "cell_of", "checks", "column_of", "fills", "grid", "label_of", "letter_facts", "not_run", "owned",
           "prediction", "row_of", "rule_of", "verdict"]
