"""Models: pure recurrences (``ops``), sequence mixers (``layers``), the wrapper (``model``), a registry.

Every registered model maps token ids (B, T) to per-position logits (B, T, K) and is built from its
frozen config with ``make_model(cfg, vocab_size, num_classes)``.

| name           | module         | transition / cell                                           | papers |
|----------------|----------------|-------------------------------------------------------------|--------|
| ``mamba``        | lrnn.py        | diagonal, eigenvalues in [0,1] or [-1,1]                    | NE     |
| ``deltanet``     | lrnn.py        | generalized Householder, [0,1] or [-1,1]                    | NE     |
| ``deltaproduct`` | lrnn.py        | product of n_h generalized Householder matrices per token   | NE     |
| ``bilinear``     | bilinear.py    | h_t = A(x_t) h_{t-1}: full, cp, block, diagonal, rotation   | BL     |
| ``elman``        | rnn.py         | tanh RNN (native kernel)                                    | BL     |
| ``lstm``         | rnn.py         | LSTM (native kernel)                                        | BL     |
| ``mlstm``        | xlstm.py       | xLSTM matrix memory, exponential gating                     | NE     |
| ``slstm``        | xlstm.py       | xLSTM scalar memory with recurrent gates                    | NE     |
| ``transformer``  | transformer.py | GPT-2-style causal attention, learned or rotary positions   | NE, BL |
| ``gated_deltanet`` | gated_deltanet.py | α(x)(I − β k kᵀ), a gated generalized Householder, [0,1] or [-1,1] | Yang et al. 2025 |
| ``pd_ssm``       | pd_ssm.py      | P(x) D(x): column-one-hot times complex diagonal of modulus < 1 | Terzić et al. 2025 |
| ``complex_diagonal`` | complex_diagonal.py | diag(r(x) e^{iθ(x)}), data-dependent rotations (Mamba-3) | Lahoti et al. 2026 |

Every config has ``backend``: "fast" (the default) or "reference" (the sequential oracle), and
"fla" for DeltaNet/DeltaProduct on a GPU with flash-linear-attention.

Every config also declares what the rest of the package knows about its model, as class constants
(``ClassVar``, never fields: a field would change every run key) or properties where a field decides:

| constant             | what it is                                                        | read by               |
|----------------------|-------------------------------------------------------------------|-----------------------|
| ``transition``         | its transition class, one of ``TRANSITIONS``                       | ``transition_of``       |
| ``transition_param``   | the class's parameter (``PARAMETRIZED``: n factors, block size b) | ``transition_param_of`` |
| ``contractive_exact``  | whether every A(x) has spectral norm < 1 in exact arithmetic     | theory.predictions    |
| ``transition_note``    | one line on why its A(x) is in its class                          | theory.predictions    |
| ``display_names``      | family → the name pages show ("mamba" → "Mamba")                  | ``display_of``, ``display_names`` |
| ``colors``             | family → its colour on every figure                               | ``family_colors``       |
| ``family`` (optional)  | which of its families a config is (default: its ``name``)         | ``family_of``           |
| ``display`` (optional) | its own display label (default: family name, then eig_range)     | ``display_of``          |
| ``activation_floats``  | (first layer, each further layer, eval share) per token and width | runs.memory           |
| ``transition_reader``  | how spectra reads A(x): "mixer" (the first block's ``mixer.transition_matrices(x)``), "tokens" (the model's ``transition_blocks()``, one per token) or None | spectra |

A plug-in declares ``transition`` (and ``transition_param`` where parametrized) and may declare the rest;
what it leaves out takes the defaults these functions give.

Used in: every claim that trains a model.
"""

from __future__ import annotations

from torch import nn

from statetrack.config import ConfigError, ModelConfig, register_section

MODELS: dict[str, type[nn.Module]] = {}


def register(cls: type[nn.Module]) -> type[nn.Module]:
    """Class decorator: add a model class to ``MODELS`` under its config's name."""
    MODELS[cls.Config.name] = cls
    register_section("model", cls.Config)  # so that config.RunConfig.from_dict can rebuild it
    return cls


def model_config(name: str, **fields) -> ModelConfig:
    """The config of model ``name`` with the given fields (others at their defaults)."""
    if name not in MODELS:
        raise ConfigError(f"unknown model {name!r}; allowed: {', '.join(sorted(MODELS))}")
    return MODELS[name].Config(**fields)


def make_model(cfg: ModelConfig, vocab_size: int, num_classes: int) -> nn.Module:
    """Instantiate the model that ``cfg`` describes (parameters on the CPU, fp32)."""
    if cfg.name not in MODELS:
        raise ConfigError(f"unknown model {cfg.name!r}; allowed: {', '.join(sorted(MODELS))}")
    return MODELS[cfg.name](cfg, vocab_size, num_classes)


# Importing the modules registers the models.
from statetrack.models import bilinear, lrnn, rnn, transformer, xlstm  # noqa: E402,F401
from statetrack.models import complex_diagonal, gated_deltanet, pd_ssm  # noqa: E402,F401

__all__ = ["MODELS", "make_model", "model_config", "register"]


# ----------------------------------------------------------------------------- plug-ins: models from outside the package
#
# A model from another distribution registers with ``register_model(cls)`` (also ``statetrack.register_model``)
# or through an entry point of group ``statetrack.models`` (its value names the model class, or a module that
# calls ``register_model`` when imported). Entry points load the first time ``MODELS`` (or the config classes
# that ``RunConfig.from_dict`` reads) is read. The class follows the built-in contract (``Config``, a frozen
# ``ModelConfig`` subclass with a unique ``name``; ``cls(cfg, vocab_size, num_classes)``; tokens (B, T) → logits
# (B, T, K)) and its ``Config`` declares two class constants:
#
#     transition: ClassVar[str] = "complex_diagonal"   # one of TRANSITIONS (or a property of the config)
#     transition_param: ClassVar[int] = 2              # only for PARAMETRIZED classes (n factors, block size b)
#     lrs: ClassVar[tuple[float, ...]] = (1e-2, 3e-3)  # optional: its learning-rate grid
#
# See "Extending" in README.md and examples/custom_model/.

import dataclasses as _dataclasses  # noqa: E402
import inspect as _inspect  # noqa: E402
import math as _math  # noqa: E402
import re as _re  # noqa: E402
import warnings as _warnings  # noqa: E402
from pathlib import Path as _Path  # noqa: E402

import statetrack.config as _config  # noqa: E402

ENTRY_POINT_GROUP = "statetrack.models"

#: The transition classes a model declares (``Config.transition``): the shape of A(x_t) in
#: h_t = A(x_t) h_{t-1} + b(x_t), which decides what the theories of NE and BL predict for it. The names are
#: those of ``statetrack.theory.predictions.CLASSES`` (tests/test_plugins.py keeps the two equal); a class with
#: a parameter (``PARAMETRIZED``) reads it from ``Config.transition_param`` (n factors per token, block size b).
TRANSITIONS: dict[str, str] = {
    "positive_diagonal": "real diagonal A(x), entries >= 0 (Mamba [0,1], mLSTM)",
    "signed_diagonal": "real diagonal A(x), negative entries allowed (Mamba [-1,1], the bilinear real diagonal)",
    "complex_diagonal": "complex diagonal A(x) or 2x2 rotation blocks: commuting, any phases (bilinear rotation)",
    "householder_nonneg": "a product of n generalized Householder factors with eigenvalues in [0, 1] (DeltaNet [0,1])",
    "reflection": "one generalized Householder factor per token, eigenvalue 1 - b in [-1, 1] (DeltaNet [-1,1])",
    "reflections_n": "a product of n >= 2 generalized Householder factors in [-1, 1] (DeltaProduct)",
    "permutation_diagonal": "a column-one-hot P(x) times a complex diagonal D(x) (PD-SSM)",
    "block_diagonal": "independent dense b x b blocks (the bilinear block model)",
    "dense": "a full matrix (the bilinear full model)",
    "low_rank_cp": "U diag(W^T x) V^T of rank R (the bilinear CP model)",
    "nonlinear": "not a linear recurrence (Elman, LSTM, sLSTM)",
    "attention": "no recurrence (the Transformer)",
}
PARAMETRIZED = {"householder_nonneg": "n", "reflections_n": "n", "block_diagonal": "b"}


@_dataclasses.dataclass(frozen=True)
class Plugin:
    """A model registered from outside the package: where its code lives and what it declares."""

    name: str
    cls: type
    file: str
    distribution: str | None  # the installed distribution that holds it (importlib.metadata), None for a loose file
    version: str | None
    entry_point: str | None  # "name = module:attr" when it came through the entry point group
    transition: str | None  # None when the config computes it (a property): see ``transition_of``
    lrs: tuple[float, ...] | None

    def provenance(self) -> dict:
        """What a record stores about the plug-in (``provenance.provenance``)."""
        return {"model": self.name, "class": f"{self.cls.__module__}.{self.cls.__qualname__}",
                "distribution": self.distribution, "version": self.version, "entry_point": self.entry_point}


#: Plug-in models by name; ``PLUGIN_ERRORS``: entry points that failed to load, name → the reason (one line).
PLUGINS: dict[str, Plugin] = {}
PLUGIN_ERRORS: dict[str, str] = {}
_plugin_state = {"loaded": False, "entry_point": None}


def is_builtin(name: str) -> bool:
    """Whether model ``name`` is one of the package's own (its class lives in ``statetrack.models``)."""
    cls = dict.get(MODELS, name)
    return cls is not None and cls.__module__.startswith("statetrack.models.")


def known_model(name: str) -> bool:
    """Whether model ``name`` can be built here: a built-in model or an installed, loaded plug-in."""
    return name in MODELS


def _distribution_of(module: str) -> tuple[str | None, str | None]:
    """The installed distribution (name, version) whose top-level package is ``module``'s, else (None, None)."""
    import importlib.metadata as md

    top = module.split(".")[0]
    try:
        names = md.packages_distributions().get(top) or []
    except Exception:  # a broken distribution on sys.path must not stop registration
        names = []
    for name in names:
        try:
            return name, md.version(name)
        except md.PackageNotFoundError:
            continue
    return None, None


def _check_lrs(qual: str, lrs) -> tuple[float, ...] | None:
    if lrs is None:
        return None
    ok = isinstance(lrs, (tuple, list)) and len(lrs) > 0 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and _math.isfinite(x) and x > 0 for x in lrs)
    if not ok:
        raise ConfigError(f"bad lrs {lrs!r} of model class {qual}: expected a non-empty tuple of numbers > 0")
    return tuple(float(x) for x in lrs)


def check_transition(value, where: str) -> str:
    """``value`` if it is a transition class of ``TRANSITIONS``, else ``ConfigError`` naming it and the allowed ones."""
    if not isinstance(value, str) or value not in TRANSITIONS:
        raise ConfigError(f"unknown transition class {value!r} for {where}; allowed: {', '.join(TRANSITIONS)}")
    return value


def register_model(cls: type[nn.Module], *, _entry_point: str | None = None,
                   _distribution: tuple[str | None, str | None] | None = None) -> type[nn.Module]:
    """Register a model class from outside the package (usable as a class decorator); returns ``cls``.

    Checks (each failure is a ``ConfigError`` naming the value and what is allowed): ``cls`` is an
    ``nn.Module`` with a ``Config`` that is a frozen dataclass subclassing ``ModelConfig``; the config's
    ``name`` is new (not a built-in's, not another plug-in's); ``Config.transition`` is one of
    ``TRANSITIONS`` (or a property, checked per config by ``transition_of``); ``Config.lrs``, if given, is a
    tuple of positive rates; the class is defined in a Python file (its code is hashed into every record).
    Registering the same class again (a re-import) is a no-op.
    """
    qual = f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls)!s}"
    if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
        raise ConfigError(f"cannot register {qual}: allowed: a torch.nn.Module subclass with a Config")
    cfg_cls = getattr(cls, "Config", None)
    if not (isinstance(cfg_cls, type) and issubclass(cfg_cls, ModelConfig) and _dataclasses.is_dataclass(cfg_cls)
            and cfg_cls.__dataclass_params__.frozen):
        raise ConfigError(f"model class {qual} has Config {cfg_cls!r}; allowed: a @dataclass(frozen=True) "
                          "subclass of statetrack.config.ModelConfig")
    name = cfg_cls.name
    if not isinstance(name, str) or not _re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ConfigError(f"model class {qual} has name {name!r}; allowed: lower-case letters, digits and _, "
                          "starting with a letter")
    old = dict.get(MODELS, name)
    if old is cls:
        return cls
    if old is not None:
        same = (old.__module__, old.__qualname__) == (cls.__module__, cls.__qualname__) and name in PLUGINS
        if not same:
            owner = "the built-in model" if is_builtin(name) else f"plug-in {old.__module__}.{old.__qualname__}"
            raise ConfigError(f"model name {name!r} of {qual} is taken by {owner}; allowed: a name not in "
                              f"{', '.join(sorted(dict.keys(MODELS)))}")
    raw = _inspect.getattr_static(cfg_cls, "transition", None)
    transition = None if isinstance(raw, property) else check_transition(raw, f"model {name!r} ({qual})")
    lrs = _check_lrs(qual, getattr(cfg_cls, "lrs", None))
    try:
        file = _inspect.getfile(cls)
    except (TypeError, OSError):
        file = ""
    if not file.endswith(".py") or not _Path(file).is_file():
        raise ConfigError(f"model class {qual} is defined in {file or 'no file'!r}; allowed: a class defined in a "
                          ".py file (its code is hashed into every record)")
    dist, version = _distribution if _distribution is not None else _distribution_of(cls.__module__)
    register(cls)
    PLUGINS[name] = Plugin(name, cls, str(_Path(file).resolve()), dist, version,
                           _entry_point or _plugin_state["entry_point"], transition, lrs)
    return cls


def unregister_model(name: str) -> None:
    """Remove plug-in ``name`` (tests; a built-in model cannot be removed)."""
    if name not in PLUGINS:
        raise ConfigError(f"unknown plug-in model {name!r}; allowed: {', '.join(sorted(PLUGINS)) or 'none registered'}")
    del PLUGINS[name]
    dict.pop(MODELS, name, None)
    dict.pop(_config.SECTION_CLASSES["model"], name, None)


def transition_of(cfg: ModelConfig) -> str:
    """The transition class of a model config, built-in or plug-in (its ``transition`` constant or property),
    checked: the one answer to "which transition class?"."""
    value, name = getattr(cfg, "transition", None), getattr(cfg, "name", type(cfg).__name__)
    if value is None:
        raise ConfigError(f"model {name!r} declares no transition class; allowed: {', '.join(TRANSITIONS)}")
    return check_transition(value, f"model {name!r}")


def transition_param_of(cfg: ModelConfig) -> int | None:
    """The parameter of a config's transition class (``PARAMETRIZED``: n factors per token, block size b), or None;
    a parametrized class without one, or a parameter that is not an integer >= 1, is a ``ConfigError``."""
    cls, value = transition_of(cfg), getattr(cfg, "transition_param", None)
    if cls in PARAMETRIZED and value is None:
        raise ConfigError(f"model {cfg.name!r} has transition class {cls!r}, which needs transition_param "
                          f"({PARAMETRIZED[cls]}); allowed: an integer >= 1")
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ConfigError(f"bad transition_param {value!r} of model {cfg.name!r}; allowed: an integer >= 1")
    return value


def family_of(cfg: ModelConfig) -> str:
    """The family a config belongs to, the key of its display name and colour: its ``family``, else its ``name``."""
    return getattr(cfg, "family", None) or cfg.name


def display_names() -> dict[str, str]:
    """Family → display name, over every registered model (a plug-in without ``display_names``: its own name)."""
    out: dict[str, str] = {}
    for name, cls in MODELS.items():
        out.update(getattr(cls.Config, "display_names", None) or {name: name})
    return out


def family_colors() -> dict[str, str]:
    """Family → colour (a hex string), over every registered model that declares ``colors``."""
    out: dict[str, str] = {}
    for cls in MODELS.values():
        out.update(getattr(cls.Config, "colors", None) or {})
    return out


def display_of(cfg: ModelConfig) -> str:
    """The label pages show for a config: its ``display`` where it declares one, else its family's display name
    followed by its eigenvalue range where it has one ("Mamba [-1,1]")."""
    own = getattr(cfg, "display", None)
    if own is not None:
        return own
    name = (getattr(cfg, "display_names", None) or {}).get(family_of(cfg), cfg.name)
    eig = getattr(cfg, "eig_range", None)
    return f"{name} {eig}" if eig else name


def load_plugins(reload: bool = False) -> dict[str, Plugin]:
    """Load every entry point of group ``statetrack.models`` (once; ``reload`` scans sys.path again).

    An entry point that fails (an import error, a bad class) is skipped with a warning and its reason kept
    in ``PLUGIN_ERRORS``, so one broken plug-in never stops the package.
    """
    import importlib.metadata as md

    if _plugin_state["loaded"] and not reload:
        return PLUGINS
    _plugin_state["loaded"] = True
    seen = set()
    for ep in md.entry_points(group=ENTRY_POINT_GROUP):
        if (ep.name, ep.value) in seen:
            continue
        seen.add((ep.name, ep.value))
        dist = getattr(ep, "dist", None)
        where = (dist.metadata["Name"], dist.version) if dist is not None else (None, None)
        line = f"{ep.name} = {ep.value}"
        _plugin_state["entry_point"] = line
        try:
            obj = ep.load()
            if isinstance(obj, type):
                register_model(obj, _entry_point=line, _distribution=where)
            for p in PLUGINS.values():  # a module that registered itself on import: name its distribution
                if p.entry_point == line and p.distribution is None and where[0] is not None:
                    PLUGINS[p.name] = _dataclasses.replace(p, distribution=where[0], version=where[1])
            PLUGIN_ERRORS.pop(ep.name, None)
        except Exception as e:  # noqa: BLE001 - reported, never fatal
            why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            PLUGIN_ERRORS[ep.name] = f"{type(e).__name__}: {why}" if not isinstance(e, ConfigError) else why
            _warnings.warn(f"statetrack: plug-in model entry point {line!r} "
                           f"({where[0] or 'unknown distribution'}) was not loaded: {PLUGIN_ERRORS[ep.name]}",
                           stacklevel=2)
        finally:
            _plugin_state["entry_point"] = None
    return PLUGINS


class _Registry(dict):
    """A dict that loads the plug-in entry points the first time it is read (writes never trigger it)."""

    def _ready(self) -> None:
        if not _plugin_state["loaded"]:
            load_plugins()

    def __getitem__(self, key):
        self._ready()
        return super().__getitem__(key)

    def __contains__(self, key) -> bool:
        self._ready()
        return super().__contains__(key)

    def __iter__(self):
        self._ready()
        return super().__iter__()

    def __len__(self) -> int:
        self._ready()
        return super().__len__()

    def __eq__(self, other) -> bool:
        self._ready()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._ready()
        return super().__repr__()

    def get(self, key, default=None):
        self._ready()
        return super().get(key, default)

    def keys(self):
        self._ready()
        return super().keys()

    def values(self):
        self._ready()
        return super().values()

    def items(self):
        self._ready()
        return super().items()

    def copy(self) -> dict:
        self._ready()
        return dict(super().items())


# The registries become lazy: the same entries, and reading them (here, or RunConfig.from_dict rebuilding a
# record's config) loads the plug-ins first.
MODELS = _Registry(MODELS)
_config.SECTION_CLASSES["model"] = _Registry(_config.SECTION_CLASSES["model"])

__all__ += ["ENTRY_POINT_GROUP", "PARAMETRIZED", "PLUGINS", "PLUGIN_ERRORS", "TRANSITIONS", "Plugin", "check_transition",  # noqa: E402
            "display_names", "display_of", "family_colors", "family_of", "is_builtin", "known_model", "load_plugins", "register_model", "transition_of",
            "transition_param_of", "unregister_model"]
