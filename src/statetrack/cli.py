"""The ``statetrack`` command (also ``python -m statetrack``).

    statetrack list [--json]                               tasks, models and claims
    statetrack train --task T --model M [--set k=v ...]    train one run and print its record
              [--preset P] [--seed N] [--device D] [--json] [--out FILE] [--ignore-memory]
    statetrack reproduce [IDS ...] --preset P [--force]    execute claim notebooks with papermill
              [--device D] [--confirm-long] [--workers N] [-p NAME VALUE ...] [--ignore-memory]
    statetrack sweep [IDS|all] --preset P [--workers N]    run claims' grids (local pool or Slurm); resumable
              [--executor local|slurm|submitit-local] [--dry-run] [--stale] [--force] [--partition ... --time ...]
    statetrack verify [IDS ...] [--json] [--preset P]      paper number, ours, preset, verdict per claim
    statetrack verify --records DIR [--add] [--stale]      check records made elsewhere; --add copies the ok ones
              [--replay N [--sample K]] [--json]           into data/results (never over a different record)
    statetrack retire (--orphans | PATH ...) --why TEXT    move records no grid names to data/retired (never delete)
              [--dry-run]
    statetrack leaderboard --model M --preset P            one model (a plug-in too) on x1's board, judged by theory
              [--set model.k=v ...] [--device D] [--json] [--out FILE] [--force]
    statetrack book                                        build the HTML book from executed notebooks
    statetrack bench [--device D] [--scale S] [--json]     fast path vs reference: speed and precision
              [--out FILE] [--pairs ...] [--models ...]
    statetrack bench --peers [--scale tiny] [--out F]      ours vs mamba.py / fla's naive torch code (extra [peers])

Bad input (an unknown task, model, claim id, preset or config key; a value of the wrong type; a
corrupt record) stops with a message naming the value and what is allowed, exit status 2, and
nothing written.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from statetrack.config import ConfigError, RunConfig, overrides_from_strings, preset_sections
from statetrack.display.parameters import check_parameter_names
from statetrack.models import MODELS, PLUGIN_ERRORS, PLUGINS, model_config
from statetrack.models.ops import PAIRS
from statetrack.runs import intake
from statetrack.runs.execute import run
from statetrack.runs.memory import IGNORE_ENV, check_memory
from statetrack.runs.replay import HORIZON, REPLAY_COST, TOLERANCE
from statetrack.runs.retired import results_record, retire, retired_dir
from statetrack.runs.store import RecordError, check_writable, forced_since, forcing, results_dir, write_record
from statetrack.site import book
from statetrack.tasks import TASKS, task_config
from statetrack.tools import bench, peers
from statetrack.tools.sweep import default_workers, sweep
from statetrack.training import resolve_device
from statetrack.verdicts.plan import dry_run, plan
from statetrack.verdicts.recipes import PRESETS, check_preset, scratch_for_smoke
from statetrack.verdicts.registry import CLAIMS, all_verdicts, get_claim, orphans, preflight, select, verify_claim


def _fields(cfg_cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in fields(cfg_cls) if f.default is not MISSING}


def _first_line(obj: Any) -> str:
    return (obj.__doc__ or "").strip().splitlines()[0] if obj.__doc__ else ""


class Parser(argparse.ArgumentParser):
    """argparse with the project's error contract: one line on stderr, exit 2, naming what is allowed.

    argparse's own message says what is wrong (an unknown flag, a missing value); the line adds what the
    command accepts: its choices where argparse names none, else the command's usage on one line.
    """

    argv: list[str] = []  # the arguments being parsed (an unknown flag is reported by the top-level parser)

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        Parser.argv = list(sys.argv[1:] if args is None else args)
        return super().parse_args(args, namespace)

    def _command(self) -> argparse.ArgumentParser:
        """The subcommand's parser named in ``argv`` (unknown flags surface at the top level), else this one."""
        sub = next((a for a in self._actions if isinstance(a, argparse._SubParsersAction)), None)
        if sub is not None:
            for token in Parser.argv:
                if token in sub.choices:
                    return sub.choices[token]
        return self

    def error(self, message: str):  # type: ignore[override]
        parser = self._command()
        if "choose from" in message or "allowed:" in message:
            line = message
        else:
            usage = " ".join(parser.format_usage().split())
            line = f"{message}; allowed: {usage.removeprefix('usage: ')}"
        self.exit(2, f"statetrack: error: {line}\n")


def at_least(low: int, unit: str = ""):
    """An argparse type: an integer >= ``low``; anything else is named with the allowed range."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected an integer >= {low}{unit}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def _check_out(out: str | None) -> None:
    """``--out`` must name a file that can be written: refuse a folder (or anything but a file) by name."""
    if out is None:
        return
    path = Path(out)
    if path.exists() and not path.is_file():
        raise ConfigError(f"--out {out!r} exists and is not a file; allowed: the path of a new or existing file")
    check_writable(path.parent)  # before any work, not after


def cmd_list(args: argparse.Namespace) -> int:
    data = {
        "tasks": [{"name": n, "description": _first_line(c.Config), "fields": _fields(c.Config)} for n, c in TASKS.items()],
        "models": [{"name": n, "description": _first_line(c.Config), "fields": _fields(c.Config),
                    **({"plugin": PLUGINS[n].provenance(), "transition": PLUGINS[n].transition,
                        "lrs": list(PLUGINS[n].lrs) if PLUGINS[n].lrs else None} if n in PLUGINS else {})}
                   for n, c in MODELS.items()],
        **({"plugin_errors": dict(PLUGIN_ERRORS)} if PLUGIN_ERRORS else {}),
        "claims": [{"id": c.id, "paper": c.paper, "source": c.source, "title": c.title,
                    "notebook": c.notebook, "implemented": True} for c in CLAIMS.values()],
    }
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    print("tasks:")
    for t in data["tasks"]:
        print(f"  {t['name']:<20} {t['description']}")
    print("models:")
    for m in data["models"]:
        plugin = m.get("plugin")
        origin = "" if plugin is None else (f"  [plug-in {plugin['distribution']} {plugin['version']}, "
                                            if plugin["distribution"] else "  [plug-in, ") + f"{m['transition']}]"
        print(f"  {m['name']:<20} {m['description']}{origin}")
    for name, why in data.get("plugin_errors", {}).items():
        print(f"  {name:<20} (plug-in not loaded: {why})")
    print("claims:")
    for c in data["claims"]:
        print(f"  {c['id']:<5} {c['paper']:<5} {c['source']:<24} {c['title']}")
    return 0


def build_config(task: str, model: str, sets: list[str], preset: str, seed: int | None) -> RunConfig:
    train, ev = preset_sections(preset)
    cfg = RunConfig(task=task_config(task), model=model_config(model), train=train, eval=ev)
    overrides = overrides_from_strings(sets)
    if seed is not None:
        overrides["seed"] = str(seed)
    return cfg.override(overrides)


def cmd_train(args: argparse.Namespace) -> int:
    cfg = build_config(args.task, args.model, args.set or [], args.preset, args.seed)
    dev = resolve_device(args.device)  # reject a bad device before any work
    _check_out(args.out)
    out = Path(args.out) if args.out else None
    check_memory(cfg, dev, ignore=args.ignore_memory)  # before any tensor exists
    record = run(cfg, claim="adhoc", device=args.device, progress=not args.json, preset=args.preset)
    if out is not None:
        write_record(out, record)
    if args.json:
        print(json.dumps(record, indent=1, sort_keys=True))
    else:
        s = record.get("summary", {})
        print(f"run {record['key']}  {cfg.task.name} / {cfg.model.label}  seed {cfg.seed}  status {record['status']}")
        if record["status"] == "ok":
            print(f"  test lengths {cfg.eval.min_len}-{cfg.eval.max_len}: acc {s['ood_acc']:.3f}, "
                  f"normalized {s['ood_normalized']:.3f}; in-distribution acc {s['id_acc']:.3f}")
        else:
            print(f"  {record['reason']} (step {record['diverged_step']})")
        print(f"  train {record['provenance']['train_time_s']:.1f} s, wall {record['provenance']['wall_time_s']:.1f} s"
              + (f"; record written to {out}" if out else ""))
    return 0 if record["status"] == "ok" else 1


def _papermill_value(text: str) -> Any:
    """A ``-p NAME VALUE`` value as papermill's own command line reads it: True/False/None, a number, else the text."""
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    for tp in (int, float):
        try:
            return tp(text)
        except ValueError:
            pass
    return text


def cmd_reproduce(args: argparse.Namespace) -> int:
    check_preset(args.preset)
    scratch_for_smoke(args.preset)  # smoke never writes into data/results; the kernels inherit the folder
    resolve_device(args.device)
    if args.workers is None:

        args.workers = default_workers(args.device)
    if args.workers < 1:
        raise ConfigError(f"--workers {args.workers!r} is not allowed: it must be an integer >= 1")
    if args.ignore_memory:  # the notebooks' kernels inherit it (memory.check_memory)

        os.environ[IGNORE_ENV] = "1"
    ids = select(args.ids)
    extra = {name: _papermill_value(text) for name, text in args.parameter or []}
    for name, flag in (("PRESET", "--preset"), ("FORCE", "--force"), ("DEVICE", "--device"),
                       ("CONFIRM_LONG", "--confirm-long")):
        if name in extra:
            raise ConfigError(f"-p {name} {extra[name]!r} is not allowed here: set it with {flag}")
    for i in ids:  # every claim id, parameter, record, folder and cost is checked before anything runs
        get_claim(i)
        check_parameter_names(i, dict(args.parameter or []), book.declared_parameters(i))  # values as typed
    check_writable(book.executed_dir())
    for i in ids:
        preflight(i, args.preset, force=args.force, device=args.device, confirm_long=args.confirm_long,
                  ignore_memory=args.ignore_memory)
    forced_since()  # a bad value set by hand stops here, before anything runs
    total = 0.0
    # --force retrains each run once, however many claims hold it (results.forcing)
    with forcing() if args.force else contextlib.nullcontext():
        if args.workers > 1:  # train the grids in a process pool first; the notebooks then load the records

            t0 = time.perf_counter()
            counts = sweep(ids, args.preset, workers=args.workers, device=args.device, confirm_long=args.confirm_long,
                           force=args.force, ignore_memory=args.ignore_memory)
            seconds = time.perf_counter() - t0
            total += seconds
            print(f"training: {counts['trained']} run(s) trained by {args.workers} workers, {counts['done']} recorded "
                  f"or shared, {counts['failed']} failed, in {seconds:.1f} s", flush=True)
        t0 = time.perf_counter()
        for i, path, seconds in book.execute_notebooks(ids, args.preset, workers=args.workers, force=args.force,
                                                  device=args.device, confirm_long=args.confirm_long,
                                                  extra=extra or None):
            print(f"{i}: executed at preset {args.preset} in {seconds:.1f} s -> {path}", flush=True)
        total += time.perf_counter() - t0
    print(f"total: {len(ids)} notebook(s) at preset {args.preset} in {total:.1f} s ({total / 60:.1f} min)")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    scratch_for_smoke(args.preset)  # smoke never writes into data/results
    if args.measure and not args.dry_run:
        raise ConfigError(f"--measure {args.measure} is allowed only with --dry-run (it times steps, trains nothing)")
    if args.dry_run:
        items = plan(args.ids, args.preset, args.pilot, args.source)
        dev = resolve_device(args.device).type if args.executor != "slurm" else "cuda"
        rows = dry_run(items, dev, stale=args.stale, measure_steps=args.measure or 0)
        if args.json:
            print(json.dumps(rows, indent=1))
            return 0
        print(f"{'claim':<6} {'runs':>6} {'shared':>7} {'missing':>8} {'est. hours':>11}  (throughput measured on "
              f"{rows[0]['throughput_from'] if rows else dev}; shared: the same run as a claim above, trained once)")
        for r in rows:
            extra = f"  ({r['unmeasured']} runs of unbenchmarked models not estimated)" if r["unmeasured"] else ""
            print(f"{r['claim']:<6} {r['runs']:>6} {r['shared']:>7} {r['missing']:>8} {r['hours']:>11.2f}{extra}")
        print(f"{'total':<6} {sum(r['runs'] for r in rows):>6} {sum(r['shared'] for r in rows):>7} "
              f"{sum(r['missing'] for r in rows):>8} "
              f"{sum(r['hours'] for r in rows):>11.2f}  (training only, one device; divide by the workers)")
        return 0
    if args.workers is None:

        args.workers = 1 if args.executor != "local" else default_workers(args.device)
    slurm = {"partition": args.partition, "time": args.time, "gpus_per_job": args.gpus_per_job,
             "array": args.array_parallelism, "log_folder": args.log_folder}
    counts = sweep(args.ids, args.preset, executor=args.executor, workers=args.workers, device=args.device,
                   slurm=slurm, progress=not args.json, confirm_long=args.confirm_long, stale=args.stale,
                   force=args.force, ignore_memory=args.ignore_memory, pilot=args.pilot, source=args.source)
    print(json.dumps(counts) if args.json else
          f"sweep done: {counts['trained']} trained, {counts['done']} already recorded, {counts['busy']} in progress "
          f"elsewhere, {counts['failed']} failed, of {counts['total']}")
    return 0 if counts["failed"] == 0 else 1


def cmd_verify(args: argparse.Namespace) -> int:
    if args.records is not None:
        return verify_records(args)
    for flag, value in (("--add", args.add), ("--stale", args.stale), ("--replay", args.replay),
                        ("--sample", args.sample)):
        if value:
            raise ConfigError(f"{flag} needs --records DIR; allowed: statetrack verify --records DIR [--add] "
                              "[--stale] [--replay N [--sample K]] [--json]")
    if args.preset:

        check_preset(args.preset)
        scratch_for_smoke(args.preset)  # smoke records live in the scratch folder
    out = []
    wanted = {get_claim(i).id for i in select(args.ids)} if args.ids and args.ids != ["all"] else None
    for c in CLAIMS.values():
        if wanted is not None and c.id not in wanted:
            continue
        v = verify_claim(c.id, args.preset)
        if v is None:
            out.append({"claim": c.id, "status": "not run", "title": c.title})
            continue
        out.append({"status": "verified", "title": c.title, **v.to_dict()})
        paper = all_verdicts(c.id, ["paper"]).get("paper") if not args.preset and v.preset != "paper" else None
        if paper is not None:  # the paper preset beside the one shown, where all its runs are recorded
            out[-1]["paper"] = paper.to_dict()
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    for o in out:
        print(f"{o['claim']:<5} {o['title']}")
        if o["status"] != "verified":
            print(f"      {o['status']}")
            continue
        for v in (o, o.get("paper")):
            if v is None:
                continue
            print(f"      {v['line']}" + ("  [STALE: the code changed since these runs]" if v["stale"] else ""))
            for st in v["statements"]:
                print("      " + statement_line(st))
    print("k/n pass [the exact 95 % interval]; * where the learning rate was chosen on the same seeds. The word comes "
          "from the experiments; theory (exact checks) is counted apart. Schema of --json: book/verdict_schema.md")
    return 0


def verify_records(args: argparse.Namespace) -> int:
    """``statetrack verify --records DIR``: one line per record (ok, stale, bad: why), then a summary; exit 0 when
    every record is ok (with ``--stale``, ok or stale) and ``--add`` refused none, else 1."""

    if args.ids or args.preset:
        raise ConfigError(f"--records checks files, not claims: {' '.join(args.ids) or '--preset ' + args.preset!r} "
                          "is not allowed with it; allowed: statetrack verify --records DIR [--add] [--stale] "
                          "[--replay N [--sample K]] [--json]")
    if args.sample is not None and args.replay is None:
        raise ConfigError(f"--sample {args.sample} needs --replay N; allowed: statetrack verify --records DIR "
                          "--replay N --sample K")
    checks = intake.check_folder(args.records, replay=args.replay, sample=args.sample)
    if args.add:
        intake.add(checks, stale=args.stale)
    if args.json:
        print(json.dumps([c.to_dict() for c in checks.records], indent=1))
    else:
        for c in checks.records:
            print(c.line())
        print(intake.summary(checks))
    return 0 if intake.accepted(checks, stale=args.stale) else 1


def statement_line(st: dict[str, Any]) -> str:
    """One statement as a line of ``statetrack verify``: id, source, rule, paper's number, ours, then best, median,
    k of n seeds passing with its 95 % interval, the seeds that fitted, and the outcome."""
    def num(x):
        return "–" if x is None else f"{x:.3g}"

    stats = ""
    if st["part"] == "experiment" and st["seeds"] and st["interval"] is None:  # not judged: too few seeds fitted
        stats = f"  fitted {st['fitted']} of {st['seeds']}"
    elif st["part"] == "experiment" and st["seeds"]:
        lo, hi = st["interval"]
        stats = (f"  best {num(st['best'])} median {num(st['median'])}  {st['seeds_pass']}/{st['seeds']} pass "
                 f"[{lo:.2f}, {hi:.2f}]" + ("*" if st["optimistic"] else ""))
        stats += f"  fitted {st['fitted']}" if st["fitted"] is not None else ""
    elif st["seeds"] is not None and st["seeds_pass"] is not None:
        stats = f"  {st['seeds_pass']}/{st['seeds']} checks"
    tail = f" ({st['reason']})" if st["reason"] else ""
    return (f"{st['id']:<28} {st['source'] + (' (ours)' if st['ours'] else ''):<22} {st['rule']:<30} "
            f"paper {num(st['paper'])}  ours {num(st['value'])}{stats}: {st['outcome'].upper()}{tail}")


def cmd_retire(args: argparse.Namespace) -> int:
    """Move records out of the results store into the retired store (``statetrack.runs.retired``), saying why."""
    if args.orphans == bool(args.paths):
        raise ConfigError("retire needs either --orphans or record paths, not both; allowed: "
                          "statetrack retire (--orphans | PATH ...) --why TEXT [--dry-run]")
    if not args.why.strip():
        raise ConfigError("--why '' is not allowed: say which grid the cells left and why")
    if args.orphans:

        paths = orphans()
    else:

        paths = [results_record(p) for p in args.paths]  # a bad path stops here, before anything moves
    root = results_dir().resolve()
    if not paths:
        print(f"nothing to retire: every record in {results_dir()} is named by a grid or a pilot")
        return 0
    if args.dry_run:
        for p in paths:
            print(f"would retire {p.resolve().relative_to(root)}")
        print(f"{len(paths)} record(s) would move to {retired_dir()} (dry run: nothing moved)")
        return 0
    entries = retire(paths, args.why)
    for p in paths:
        print(f"retired {p.resolve().relative_to(root)}")
    print(f"{len(paths)} record(s) moved to {retired_dir()}, {len(entries)} new index entr"
          f"{'y' if len(entries) == 1 else 'ies'}")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """One model on x1's board (``statetrack.tools.leaderboard``): input checked, cost printed, runs trained or loaded."""
    # start-up: the board is x1's page reading, which loads the plotting libraries; `statetrack verify` loads none
    from statetrack.tools import leaderboard as lb

    cfg = lb.model_of(args.model, args.set)
    resolve_device(args.device)
    _check_out(args.out)
    scratch_for_smoke(args.preset)  # smoke never writes into data/results
    planned = lb.plan(cfg, args.preset, args.device, confirm_long=args.confirm_long, ignore_memory=args.ignore_memory)
    print(lb.cost_line(cfg, planned), file=sys.stderr if args.json else sys.stdout, flush=True)
    entry = lb.run(cfg, args.preset, args.device, force=args.force, progress=not args.json, planned=planned)
    if args.out:
        write_record(Path(args.out), entry)
    print(json.dumps(entry, indent=1) if args.json else lb.format_entry(entry))
    return 0


def cmd_book(args: argparse.Namespace) -> int:
    path, seconds = book.build_book()
    print(f"book built in {seconds:.1f} s: {path}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    _check_out(args.out)
    if args.models and not args.peers:

        unknown = [m for m in args.models if m not in MODELS]
        if unknown:
            raise ConfigError(f"unknown models {unknown} for --models; allowed: {', '.join(sorted(MODELS))}")
    if args.pairs and not args.peers:

        unknown = [n for n in args.pairs if n not in PAIRS]
        if unknown:
            raise ConfigError(f"unknown op pairs {unknown} for --pairs; allowed: {', '.join(sorted(PAIRS))}")
    if args.peers:

        try:
            res = peers.run(lengths=(32,) if args.scale == "tiny" else peers.LENGTHS, scale=args.scale or "cpu",
                            names=args.pairs)
        except peers.PeersMissing as e:
            print(e, file=sys.stderr)
            return 2
        if args.out:
            write_record(Path(args.out), res)
        print(json.dumps(res, indent=1) if args.json else peers.format_table(res))
        return 0
    res = bench.run(device=args.device, scale=args.scale, pairs=args.pairs, models=args.models,
                    precision=not args.no_precision)
    if args.out:
        write_record(Path(args.out), res)
    print(json.dumps(res, indent=1) if args.json else bench.format_tables(res))
    return 0


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="statetrack", description="Reproduce state-tracking claims of the NE and BL papers.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="tasks, models and claims")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_list)

    s = sub.add_parser("train", help="train one run and print its record")
    s.add_argument("--task", required=True)
    s.add_argument("--model", required=True)
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a config field, e.g. model.eig_range=[-1,1] or train.lr=3e-3 (repeatable)")
    s.add_argument("--preset", default="quick", choices=PRESETS)
    s.add_argument("--seed", type=at_least(0))
    s.add_argument("--device", default="auto")
    s.add_argument("--json", action="store_true", help="print the whole record as JSON")
    s.add_argument("--out", help="also write the record to this JSON file")
    s.add_argument("--ignore-memory", action="store_true", help="run even if the estimated peak memory exceeds the device's free memory")
    s.set_defaults(fn=cmd_train)

    s = sub.add_parser("reproduce", help="execute claim notebooks with papermill")
    s.add_argument("ids", nargs="*", help="claim ids, or all (default: every claim)")
    s.add_argument("--preset", required=True, choices=PRESETS)
    s.add_argument("--force", action="store_true", help="retrain even when a record exists (once per command: a run two claims share is trained for the first and copied for the second)")
    s.add_argument("--device", default="auto")
    s.add_argument("--confirm-long", action="store_true", help="allow the paper preset on a CPU")
    s.add_argument("--workers", type=at_least(1), default=None,
                   help="train the claims' runs in this many processes first (each run with one CPU thread), "
                        "then execute the notebooks N at a time; they load the records (default: the number "
                        "of CPU cores, or one per GPU on a GPU box; 1: each notebook trains its own runs)")
    s.add_argument("--ignore-memory", action="store_true", help="run even if a run's estimated peak memory exceeds the device's free memory")
    s.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                   help="a notebook parameter, as papermill's -p (e.g. -p SEEDS '[0, 1]'); only the notebook's declared ones")
    s.set_defaults(fn=cmd_reproduce)

    s = sub.add_parser("sweep", help="run claims' grids: a local process pool or Slurm (submitit); resumable")
    s.add_argument("ids", nargs="*", help="claim ids, or all (default: all)")
    s.add_argument("--preset", required=True, choices=PRESETS)
    s.add_argument("--executor", default="local", choices=("local", "slurm", "submitit-local"))
    s.add_argument("--workers", type=at_least(1), default=None,
                   help="local processes (default: the number of CPU cores, or one per GPU on a GPU box)")
    s.add_argument("--device", default="auto")
    s.add_argument("--dry-run", action="store_true", help="print the grid and its estimated cost; run nothing")
    s.add_argument("--source", metavar="TABLE",
                   help='only the runs one table or figure of the papers reads, as its statements cite it, e.g. '
                        '"NE Table 3" (the GPU runbook lists them)')
    s.add_argument("--measure", type=at_least(1, " steps"), default=None, metavar="STEPS",
                   help="with --dry-run: time STEPS training steps of each distinct setting on this machine (one "
                        "thread per run, as the sweep trains) instead of reading the records and the benchmark")
    s.add_argument("--confirm-long", action="store_true", help="allow the paper preset on a CPU")
    s.add_argument("--pilot", action="store_true",
                   help="run the claims' recorded pilots (pilot_grid, seeds 100 and up) instead of their grids")
    s.add_argument("--stale", action="store_true",
                   help="also retrain runs whose record is stale (made by other code than the code here)")
    s.add_argument("--force", action="store_true",
                   help="retrain every run, each once (a run several claims hold is trained for one, copied to the rest)")
    s.add_argument("--partition", help="Slurm partition")
    s.add_argument("--time", type=at_least(1, " (minutes)"), default=240, help="Slurm time limit per run, minutes")
    s.add_argument("--gpus-per-job", type=at_least(0), default=1)
    s.add_argument("--array-parallelism", type=at_least(1), default=64, help="Slurm array tasks running at once")
    s.add_argument("--ignore-memory", action="store_true", help="run even if a run's estimated peak memory exceeds the device's free memory")
    s.add_argument("--log-folder", help="submitit's folder (default: data/results/.submitit/<time>)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_sweep)

    s = sub.add_parser("verify", help="the paper's number, ours, the preset and the verdict for every claim")
    s.add_argument("ids", nargs="*", help="claim ids, or all (default: all)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--preset", choices=PRESETS)
    s.add_argument("--records", metavar="DIR",
                   help="instead: check the run records under DIR (made elsewhere, laid out as data/results): "
                        "ok, stale (made by other code) or bad, one line each; exit 0 only when all are ok")
    s.add_argument("--add", action="store_true",
                   help="with --records: copy the ok records into the results store, atomically, never over a "
                        "different record under the same key")
    s.add_argument("--stale", action="store_true",
                   help="with --records: accept stale records too (exit status, --add); the store flags them stale")
    s.add_argument("--replay", type=at_least(1, " (logged steps)"), metavar="N",
                   help="with --records: retrain the first N logged steps of each ok record from its config and "
                        "seed on the CPU and compare the losses: bit for bit where the record was made on this "
                        f"CPU kind with as many threads, else to {TOLERANCE:g} relative up to step {HORIZON} (other "
                        f"rounding drifts after); a prefix, not a retrain: {REPLAY_COST}")
    s.add_argument("--sample", type=at_least(1, " (records)"), metavar="K",
                   help=f"with --replay: replay K of the ok records, drawn with seed {intake.SAMPLE_SEED}")
    s.set_defaults(fn=cmd_verify)

    s = sub.add_parser("retire", help="move records no grid names from data/results to data/retired, with the reason")
    s.add_argument("paths", nargs="*", metavar="PATH", help="records of the results store to retire")
    s.add_argument("--orphans", action="store_true",
                   help="retire every record that no grid (quick, paper) and no recorded pilot names")
    s.add_argument("--why", required=True, help="which grid the cells left, and for what reason (kept in the index)")
    s.add_argument("--dry-run", action="store_true", help="list what would move; move nothing")
    s.set_defaults(fn=cmd_retire)

    s = sub.add_parser("bench", help="fast path vs reference: speed (ops, training steps) and precision")
    s.add_argument("--device", default="cpu")
    s.add_argument("--scale", choices=("tiny", "cpu", "gpu"), help="default: the device's (cpu or gpu)")
    s.add_argument("--pairs", nargs="+", metavar="PAIR", help="op pairs to time (default: all)")
    s.add_argument("--models", nargs="+", metavar="MODEL", help="models to time (default: all)")
    s.add_argument("--no-precision", action="store_true", help="skip the fp32/bf16 precision table")
    s.add_argument("--peers", action="store_true",
                   help="time our fast paths against mamba.py and fla's naive torch code (extra [peers]); "
                        "--pairs then names peer comparisons")
    s.add_argument("--json", action="store_true")
    s.add_argument("--out", help="also write the results as JSON to this file")
    s.set_defaults(fn=cmd_bench)

    s = sub.add_parser("leaderboard", help="one model (built-in or plug-in) on x1's board, judged by theory")
    s.add_argument("--model", required=True, help="a model name (statetrack list), e.g. a plug-in's")
    s.add_argument("--set", action="append", metavar="model.KEY=VALUE",
                   help="override a field of the model's config, e.g. model.d_model=32 (repeatable)")
    s.add_argument("--preset", required=True, choices=PRESETS)
    s.add_argument("--device", default="auto")
    s.add_argument("--force", action="store_true", help="retrain the model's runs even when recorded")
    s.add_argument("--confirm-long", action="store_true", help="allow the paper preset on a CPU")
    s.add_argument("--ignore-memory", action="store_true", help="run even if a run's estimated peak memory exceeds the device's free memory")
    s.add_argument("--json", action="store_true", help="print the entry as JSON (the cost line goes to stderr)")
    s.add_argument("--out", help="also write the entry as JSON to this file (atomically)")
    s.set_defaults(fn=cmd_leaderboard)

    s = sub.add_parser("book", help="build _build/html from the notebooks executed by reproduce")
    s.set_defaults(fn=cmd_book)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except (ConfigError, RecordError, ValueError) as e:  # bad input: nothing ran, nothing was written
        print(f"statetrack: error: {e}", file=sys.stderr)
        return 2
    except book.NotebookError as e:  # a failure during work: earlier records stay, the partial notebook is named
        print(f"statetrack: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("statetrack: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `statetrack verify | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
