"""Worker processes that end with the command that started them (``worker_pool``).

A ``ProcessPoolExecutor`` worker outlives its parent: killed with SIGKILL, a sweep leaves its workers training in
the background, still holding their runs' locks and writing records after the command is gone; interrupted with
Ctrl-C, the parent waits at exit for every running worker to finish its run. ``worker_pool`` closes both gaps:

- each worker watches its parent and exits at once when the parent is gone (any signal, any platform);
- an interrupt (``KeyboardInterrupt``, ``SystemExit``) in the parent cancels the queued items and kills the
  running workers, so the command stops now; what they were writing is left as a temporary file, never a record
  (records are written atomically).

Any other error cancels the queued items and waits for the running ones, which finish and write their records.

Used in: ``tools.sweep`` (runs), ``site.book.execute_notebooks`` (notebooks).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

POLL_SECONDS = 0.2


def _watch_parent(parent: int) -> None:
    """Exit this worker, without cleanup, as soon as its parent process is no longer ``parent``."""
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(1)


def _start(parent: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    if os.getppid() != parent:  # the parent died while this worker was starting
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="watch-parent").start()
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def worker_pool(workers: int, initializer: Callable[..., None] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[cf.ProcessPoolExecutor]:
    """A spawn-context ``ProcessPoolExecutor`` of ``workers`` processes that end with this one (module docstring)."""
    before = set(mp.active_children())
    pool = cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"), initializer=_start,
                                  initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    except (KeyboardInterrupt, SystemExit):
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in set(mp.active_children()) - before:
            proc.kill()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
