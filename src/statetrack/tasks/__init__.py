"""Tasks: one protocol (``base.Task``) and a registry from names to task classes.

| name                 | module       | what is tracked                                              | papers |
|----------------------|--------------|--------------------------------------------------------------|--------|
| ``parity``           | parity.py    | number of ones mod 2                                         | NE, BL |
| ``modular_addition`` | modular.py   | running sum mod m (Z_m)                                      | BL     |
| ``modular_arithmetic``| modular.py  | value of an expression mod m, with or without brackets       | NE, BL |
| ``modular_arithmetic_mult``| modular_mult.py | value of a bracketed expression with + − × mod m  | NE     |
| ``fsm``              | fsm.py       | state of a random finite state machine                       | BL     |
| ``word_problem``     | groups.py    | running product in S3, S5 (and variants), A5, Z60            | NE, BL |
| ``byte_lm``          | byte_lm.py   | the next byte of code or prose (language modelling)          | NE     |

Used in: every claim.
"""

from __future__ import annotations

from statetrack.config import ConfigError, TaskConfig, register_section
from statetrack.tasks.base import IGNORE, Batch, Task

TASKS: dict[str, type[Task]] = {}


def register(cls: type[Task]) -> type[Task]:
    """Class decorator: add a task class to ``TASKS`` under its config's name."""
    TASKS[cls.Config.name] = cls
    register_section("task", cls.Config)  # so that config.RunConfig.from_dict can rebuild it
    return cls


def task_config(name: str, **fields) -> TaskConfig:
    """The config of task ``name`` with the given fields (others at their defaults)."""
    if name not in TASKS:
        raise ConfigError(f"unknown task {name!r}; allowed: {', '.join(sorted(TASKS))}")
    return TASKS[name].Config(**fields)


def make_task(cfg: TaskConfig) -> Task:
    """Instantiate the task that ``cfg`` describes."""
    if cfg.name not in TASKS:
        raise ConfigError(f"unknown task {cfg.name!r}; allowed: {', '.join(sorted(TASKS))}")
    return TASKS[cfg.name](cfg)


# Importing the modules registers them.
from statetrack.tasks import byte_lm, fsm, groups, modular, modular_mult, parity  # noqa: E402,F401

__all__ = ["IGNORE", "TASKS", "Batch", "Task", "make_task", "register", "task_config"]
