"""Run configuration: frozen dataclasses, strict dotted overrides, canonical JSON.

A run is ``RunConfig(task, model, train, eval, seed)``. ``task`` and ``model`` are instances of
per-name config classes registered by the task and model registries (``ParityConfig``,
``MambaConfig``, ...); ``train`` and ``eval`` are shared by every run. Everything is frozen, so a
config is a value: it hashes to the run key of ``results.run_key`` and is stored inside every record.

Overrides use dotted keys, as in nanoGPT and minGPT, and are type-checked against the field
annotations::

    cfg.override({"model.eig_range": "[-1,1]", "train.lr": "3e-3", "seed": "2"})

An unknown key, a value of the wrong type, or a value outside a ``Literal`` stops with a
``ConfigError`` that names the value and what is allowed.
"""

from __future__ import annotations

import functools
import json
import math
import typing
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Literal, get_args, get_origin


class ConfigError(ValueError):
    """A config key or value that is not allowed; the message names it and what is allowed."""

    def _render_traceback_(self) -> list[str]:
        """In a notebook (IPython, papermill) show the one-line message, not a traceback: it is bad input."""
        return [f"{type(self).__name__}: {self}"]


# ----------------------------------------------------------------------------- base classes


@dataclass(frozen=True)
class Section:
    """A frozen config section; subclasses validate their fields in ``check``."""

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_type(f"{self._prefix()}{f.name}", getattr(self, f.name), _hints(type(self))[f.name])
        self.check()

    def check(self) -> None:
        """Raise ``ConfigError`` for values that have the right type but are not allowed."""

    def _prefix(self) -> str:
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class NamedSection(Section):
    """A section chosen by name from a registry (a task or a model); ``name`` is a class constant."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = ""  # "task" or "model"

    def _prefix(self) -> str:
        return f"{self.kind}.{self.name}: "

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **super().to_dict()}


@dataclass(frozen=True)
class TaskConfig(NamedSection):
    """Base of every task config. ``supervision``: "every" labels each position, "final" only the last."""

    kind: ClassVar[str] = "task"
    supervision: Literal["every", "final"] = "every"


@dataclass(frozen=True)
class ModelConfig(NamedSection):
    """Base of every model config: width D (``d_model``) and depth (``num_layers``)."""

    kind: ClassVar[str] = "model"
    d_model: int = 64
    num_layers: int = 1

    def check(self) -> None:
        positive(self, "d_model", "num_layers")

    def check_lengths(self, longest: int) -> None:
        """Raise ``ConfigError`` if the model cannot read sequences of ``longest`` tokens (run-level check)."""

    @property
    def label(self) -> str:
        """A short, file-name-safe description used in record names and plots."""
        return self.name


@dataclass(frozen=True)
class TrainConfig(Section):
    """Optimisation settings shared by every model (one ``fit()``).

    Lengths are numbers of input tokens. Each training sequence draws its length uniformly from
    ``[min_len, max_len]``; with ``supervision="every"`` one sequence of length L also teaches every
    shorter prefix.
    """

    num_steps: int = 500
    batch_size: int = 64
    lr: float = 1e-3
    min_lr_ratio: float = 0.0  # final lr = lr * min_lr_ratio after the cosine decay
    warmup_steps: int = 25  # linear warm-up from 0
    weight_decay: float = 0.01  # AdamW, on matrices only
    beta1: float = 0.9
    beta2: float = 0.999
    grad_clip: float = 1.0  # max global grad norm; 0 disables clipping
    min_len: int = 3
    max_len: int = 40
    eval_every: int = 0  # steps between in-training evaluations; 0 = only at the end
    log_every: int = 10  # steps between recorded loss values

    def check(self) -> None:
        positive(self, "num_steps", "batch_size", "min_len", "max_len", "log_every")
        if self.lr <= 0:
            raise ConfigError(f"train.lr={self.lr!r} is not allowed: it must be > 0")
        if not 0.0 <= self.min_lr_ratio <= 1.0:
            raise ConfigError(f"train.min_lr_ratio={self.min_lr_ratio!r} is not allowed: it must lie in [0, 1]")
        if self.warmup_steps < 0 or self.warmup_steps > self.num_steps:
            raise ConfigError(
                f"train.warmup_steps={self.warmup_steps!r} is not allowed: it must lie in [0, num_steps={self.num_steps}]"
            )
        for name in ("weight_decay", "grad_clip", "eval_every"):
            if getattr(self, name) < 0:
                raise ConfigError(f"train.{name}={getattr(self, name)!r} is not allowed: it must be >= 0")
        for name in ("beta1", "beta2"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ConfigError(f"train.{name}={getattr(self, name)!r} is not allowed: it must lie in [0, 1)")
        if self.min_len > self.max_len:
            raise ConfigError(
                f"train length range [{self.min_len}, {self.max_len}] is empty: min_len must be <= max_len"
            )


@dataclass(frozen=True)
class EvalConfig(Section):
    """Evaluation at exact lengths: every ``stride``-th length in ``[min_len, max_len]`` (out of distribution).

    The test set is drawn from its own seed, so every training seed sees the same test sequences.
    """

    min_len: int = 40
    max_len: int = 256
    stride: int = 1
    num_seqs: int = 512  # test sequences per length (one shared batch for prefix-closed tasks)
    seed: int = 1234
    batch_size: int = 256  # sequences per forward pass; only memory, never the result

    def check(self) -> None:
        positive(self, "min_len", "max_len", "stride", "num_seqs", "batch_size")
        if self.min_len > self.max_len:
            raise ConfigError(
                f"eval length range [{self.min_len}, {self.max_len}] is empty: min_len must be <= max_len"
            )

    @property
    def lengths(self) -> list[int]:
        out = list(range(self.min_len, self.max_len + 1, self.stride))
        if out[-1] != self.max_len:
            out.append(self.max_len)
        return out


# ----------------------------------------------------------------------------- the run config

_SECTION_NAMES = ("task", "model", "train", "eval")

#: Task and model config classes by kind and name, for ``RunConfig.from_dict``. The registries fill it
#: (``statetrack.tasks.register``, ``statetrack.models.register``): they import this module, and this
#: module imports no other module of the package, so imports run one way only (tests/test_imports.py).
SECTION_CLASSES: dict[str, dict[str, type[NamedSection]]] = {"task": {}, "model": {}}


def register_section(kind: str, cls: type[NamedSection]) -> None:
    """Make ``cls`` (a task or model config class) known to ``RunConfig.from_dict`` under its ``name``."""
    if kind not in SECTION_CLASSES:
        raise ConfigError(f"unknown section kind {kind!r}; allowed: {', '.join(SECTION_CLASSES)}")
    SECTION_CLASSES[kind][cls.name] = cls


@dataclass(frozen=True)
class RunConfig:
    """One training run: what to learn, which model, how to train and evaluate it, and the seed."""

    task: TaskConfig
    model: ModelConfig
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    seed: int = 0

    def __post_init__(self) -> None:
        _check_type("seed", self.seed, int)
        if self.seed < 0:
            raise ConfigError(f"seed={self.seed!r} is not allowed: it must be >= 0")
        self.model.check_lengths(max(self.train.max_len, self.eval.max_len))

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task.to_dict(),
            "model": self.model.to_dict(),
            "train": self.train.to_dict(),
            "eval": self.eval.to_dict(),
            "seed": self.seed,
        }

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no whitespace; the input of the run key."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        """Rebuild a config from ``to_dict`` output; unknown or missing sections are errors.

        Task and model config classes come from ``SECTION_CLASSES``, which the registries fill when
        they are imported (``statetrack.tasks``, ``statetrack.models``; ``statetrack.runs.store`` imports both).
        """
        if not isinstance(d, dict):
            raise ConfigError(f"a run config must be a mapping, got {type(d).__name__}")
        unknown = set(d) - set(_SECTION_NAMES) - {"seed"}
        if unknown:
            raise ConfigError(f"unknown config sections {sorted(unknown)}; allowed: {[*_SECTION_NAMES, 'seed']}")
        task = _named_from_dict(d.get("task"), SECTION_CLASSES["task"], "task")
        model = _named_from_dict(d.get("model"), SECTION_CLASSES["model"], "model")
        return cls(
            task=task,
            model=model,
            train=_section_from_dict(TrainConfig, d.get("train", {}), "train"),
            eval=_section_from_dict(EvalConfig, d.get("eval", {}), "eval"),
            seed=d.get("seed", 0),
        )

    def override(self, overrides: dict[str, Any]) -> RunConfig:
        """Return a copy with dotted keys replaced; string values are parsed by the field's type.

        Keys: ``seed``, ``task.<field>``, ``model.<field>``, ``train.<field>``, ``eval.<field>``. All keys
        of a section are applied together, so checks that relate two fields see the final values.
        """
        changes: dict[str, dict[str, Any]] = {name: {} for name in _SECTION_NAMES}
        seed = self.seed
        for key, value in overrides.items():
            if key == "seed":
                seed = parse_value("seed", value, int)
                continue
            section, _, name = key.partition(".")
            if section not in _SECTION_NAMES or not name:
                raise ConfigError(
                    f"unknown config key {key!r}; allowed: seed, task.<field>, model.<field>, "
                    "train.<field> or eval.<field>"
                )
            sec = getattr(self, section)
            allowed = [f.name for f in fields(sec)]
            if name not in allowed:
                owner = f"{section} {sec.name!r}" if isinstance(sec, NamedSection) else section
                raise ConfigError(f"unknown config key {key!r} for {owner}; allowed: {', '.join(allowed)}")
            changes[section][name] = parse_value(key, value, _hints(type(sec))[name])
        new = {s: replace(getattr(self, s), **c) for s, c in changes.items() if c}
        return replace(self, seed=seed, **new)


def overrides_from_strings(pairs: list[str]) -> dict[str, str]:
    """Parse ``["a.b=1", "seed=2"]`` (the CLI's ``--set``) into a dict, rejecting malformed items."""
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"bad --set item {item!r}: expected key=value, e.g. model.d_model=32")
        out[key.strip()] = value.strip()
    return out


def variants(base: RunConfig, key: str, values: list[Any]) -> list[RunConfig]:
    """An ablation: ``base`` with one dotted key set to each value in turn (one knob per ablation)."""
    return [base.override({key: v}) for v in values]


# ----------------------------------------------------------------------------- helpers


def positive(sec: Section, *names: str) -> None:
    """Raise ``ConfigError`` unless each named integer field is >= 1."""
    for n in names:
        v = getattr(sec, n)
        if v < 1:
            raise ConfigError(f"{sec._prefix()}{n}={v!r} is not allowed: it must be >= 1")


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    """The resolved field types of a config class (cached: every config built checks each field's type)."""
    return typing.get_type_hints(cls)


def _type_name(tp: Any) -> str:
    if get_origin(tp) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if get_origin(tp) is tuple:
        return f"a comma-separated list of {_type_name(get_args(tp)[0])}s"
    return {int: "an integer", float: "a finite number", bool: "true or false", str: "a string"}.get(tp, str(tp))


def parse_value(key: str, value: Any, tp: Any) -> Any:
    """Convert ``value`` (often a CLI string) to the annotated type ``tp``, or raise ``ConfigError``."""
    bad = ConfigError(f"bad value {value!r} for {key}: expected {_type_name(tp)}")
    origin = get_origin(tp)
    if origin is Literal:
        allowed = get_args(tp)
        if value in allowed:
            return value
        if isinstance(value, str):
            for a in allowed:
                if str(a) == value.strip():
                    return a
        raise bad
    if origin is tuple:
        inner = get_args(tp)[0]
        if isinstance(value, str):
            text = value.strip().strip("[]()")
            items = [s for s in (p.strip() for p in text.split(",")) if s]
        elif isinstance(value, (list, tuple)):
            items = list(value)
        else:
            raise bad
        return tuple(parse_value(key, v, inner) for v in items)
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("false", "0", "no"):
            return False
        raise bad
    if tp is int:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                raise bad from None
        raise bad
    if tp is float:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, (int, float)):
            out = float(value)
        elif isinstance(value, str):
            try:
                out = float(value.strip())
            except ValueError:
                raise bad from None
        else:
            raise bad
        if not math.isfinite(out):  # NaN and inf are refused by name, never trained on
            raise bad
        return out
    if tp is str:
        if isinstance(value, str):
            return value
        raise bad
    raise TypeError(f"unsupported config field type {tp!r} for {key}")


def _check_type(key: str, value: Any, tp: Any) -> None:
    origin = get_origin(tp)
    ok: bool
    if origin is Literal:
        ok = value in get_args(tp)
    elif origin is tuple:
        inner = get_args(tp)[0]
        ok = isinstance(value, tuple) and all(_isinstance(v, inner) for v in value)
    else:
        ok = _isinstance(value, tp)
    if not ok:
        raise ConfigError(f"bad value {value!r} for {key}: expected {_type_name(tp)}")


def _isinstance(value: Any, tp: Any) -> bool:
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, tp)


def _jsonable(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _section_from_dict(cls: type[Section], d: Any, where: str) -> Any:
    if not isinstance(d, dict):
        raise ConfigError(f"config section {where!r} must be a mapping, got {d!r}")
    hints = _hints(cls)
    allowed = [f.name for f in fields(cls)]
    unknown = set(d) - set(allowed)
    if unknown:
        raise ConfigError(f"unknown keys {sorted(unknown)} in {where}; allowed: {', '.join(allowed)}")
    return cls(**{k: parse_value(f"{where}.{k}", v, hints[k]) for k, v in d.items()})


def _named_from_dict(d: Any, registry: dict[str, type], kind: str) -> Any:
    if not isinstance(d, dict) or "name" not in d:
        raise ConfigError(f"config section {kind!r} must be a mapping with a 'name'; got {d!r}")
    name = d["name"]
    if not registry:
        raise ConfigError(f"no {kind} configs are registered, so {kind} {name!r} cannot be rebuilt: import "
                          f"statetrack.{kind}s first (its registry registers them)")
    if name not in registry:
        raise ConfigError(f"unknown {kind} {name!r}; allowed: {', '.join(sorted(registry))}")
    rest = {k: v for k, v in d.items() if k != "name"}
    return _section_from_dict(registry[name], rest, f"{kind}.{name}")




# ----------------------------------------------------------------------------- generic presets

#: Training and evaluation settings for ``statetrack train --preset P`` on any task and model.
#: Claims define their own grids (``statetrack.claims.<id>``); these are the defaults for one-off runs.
#: Every preset a claim's grid has and a record may name: cpu is the papers' cells at CPU budgets (verdicts.cpu).
PRESETS = ("smoke", "quick", "cpu", "paper")
PRESET_SECTIONS: dict[str, tuple[TrainConfig, EvalConfig]] = {
    "smoke": (TrainConfig(num_steps=10, batch_size=8, warmup_steps=2, min_len=4, max_len=8, log_every=1),
              EvalConfig(min_len=8, max_len=16, stride=4, num_seqs=16)),
    "quick": (TrainConfig(), EvalConfig()),
    "paper": (TrainConfig(num_steps=100_000, batch_size=1024, lr=1e-3, min_lr_ratio=1e-3, warmup_steps=10_000,
                          weight_decay=0.1, log_every=100, eval_every=5000),
              EvalConfig(num_seqs=8192)),
}


def preset_sections(preset: str) -> tuple[TrainConfig, EvalConfig]:
    if preset not in PRESET_SECTIONS:
        raise ConfigError(f"unknown preset {preset!r}; allowed: {', '.join(PRESET_SECTIONS)}")
    return PRESET_SECTIONS[preset]
