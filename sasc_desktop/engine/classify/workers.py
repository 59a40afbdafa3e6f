"""Worker processes for building feature rows in parallel.

Large batches of messages are split into shares of about equal text; all but the last go to a
pool of worker processes while the calling process works on the last. The pool is started from
a fork server (safe under a GUI's threads) once and kept alive between calls, since starting it
costs about 0.5 s. Work stays in one process for small batches and when the machine is already
heavily loaded, where extra processes were measured to be slower.

Functions sent to the pool are pickled by reference: they must be top-level functions of an
importable module (the workers import it by name). Feature code marks a worker by setting
``_IN_WORKER`` so that it never starts workers of its own.
"""
from __future__ import annotations

import os
import threading
from importlib import import_module
from typing import Callable, Optional, Sequence

import numpy as np

# Below this many messages one process is as fast: a share costs the workers ~10-30 ms to ship
# and return, and the pool is started once per process (about 0.5 s, then kept).
PARALLEL_MIN_DOCS = 2_000

_IN_WORKER = False                         # True in a worker process: it never starts workers


def _workers() -> int:
    """Shares to split work into: the usable cores (up to 8) unless the machine is already
    heavily loaded (1-minute load of twice the cores or more), then 1. Workers are started once
    and kept, read their own messages and this process works on a share too, so a share costs
    little beyond its work; an earlier pool started per call, with everything pickled, was
    slower than one process at load 8-9 on 2 cores (19.9 s against 17.5 s for 20,000
    messages), hence the cut-off. At load ~1 on 2 cores two shares score 5,000 messages in
    ~0.75 s against ~1.4 s in one process."""
    if _IN_WORKER:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    return max(1, min(cpus, 8)) if busy < 2 * cpus else 1


def _shares(sizes: np.ndarray, min_items: Optional[int] = None) -> list[tuple[int, int]]:
    """[start, end) ranges splitting items of these sizes into ``_workers()`` runs of about
    equal total size; one range when there are too few items or one worker."""
    n, w = len(sizes), _workers()
    if n < (PARALLEL_MIN_DOCS if min_items is None else min_items) or w < 2:
        return [(0, n)]
    cum = np.cumsum(sizes.astype(np.float64) + 200.0)  # + fixed cost per message
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, w) / w)
    bounds = [0] + sorted({int(min(max(c, 1), n - 1)) for c in cuts}) + [n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _chunks(items: Sequence, size: Callable[[object], int]) -> list[Sequence]:
    """``items`` split as :func:`_shares` splits them, each item weighing ``size(item)``."""
    sizes = np.fromiter(map(size, items), dtype=np.int64, count=len(items))
    return [items[a:b] for a, b in _shares(sizes)]


_POOL = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def _pool(n: int):
    """The worker pool (started once, from a fork server: safe under a GUI's threads), with at
    least n processes."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or _POOL_SIZE < n or getattr(_POOL, "_broken", False):
            from ..procpool import process_pool
            if _POOL is not None:  # another thread may still be waiting on its futures: let them finish
                _POOL.shutdown(wait=False)
            if _POOL is None:
                import atexit
                atexit.register(_close_pool)
            _POOL, _POOL_SIZE = process_pool(n), n
        return _POOL


def _ready(modules: Sequence[str] = ()) -> int:
    """Import these modules (in a worker) and return the process id."""
    for name in modules:
        import_module(name)
    return os.getpid()


def _warm_pool(modules: Sequence[str] = ()) -> None:
    """Start the worker processes now, each importing these modules (those of the functions it
    will run), without waiting for them."""
    n = _workers() - 1
    if n >= 1:
        try:
            pool = _pool(n)
            for _ in range(n):
                pool.submit(_ready, tuple(modules))
        except (OSError, RuntimeError, ValueError):
            pass


def _close_pool() -> None:
    """Stop the worker processes (at exit: before interpreter teardown, which would otherwise
    collect the pool half-way and print an ignored exception)."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        pool, _POOL, _POOL_SIZE = _POOL, None, 0
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def _parallel(fn, args: list, local=None) -> Optional[list]:
    """fn (a top-level function) over args in worker processes, in order, then ``local()`` (run
    in this process while the workers work) appended; None when processes cannot be used here
    (the caller then works in-process)."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool
    try:
        pool = _pool(len(args))
        futures = [pool.submit(fn, a) for a in args]
    except (OSError, RuntimeError, ValueError, BrokenProcessPool):
        return None
    mine = local() if local is not None else None
    try:
        out = [f.result() for f in futures]
    except (OSError, BrokenProcessPool, CancelledError):
        return None
    return out + [mine] if local is not None else out
