"""Helpers of the index tests: searches run by Whoosh itself or by the fast path, and the first
and last moments of the period a date value names."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta

from sasc_desktop.engine.index import fastscore


@contextmanager
def run_by_whoosh(whoosh: bool):
    """Searches inside run by Whoosh itself (``whoosh``) or by the fast path where it can;
    the fast path again after."""
    fastscore.FORCE_WHOOSH = whoosh
    try:
        yield
    finally:
        fastscore.FORCE_WHOOSH = False


def period(value: str, last_step: timedelta) -> tuple[datetime, datetime]:
    """The first moment of the year, month or day ``value`` names (2019, 2019-06, 2019-06-30),
    and its last, ``last_step`` before the next period's first."""
    parts = [int(p) for p in value.split("-")]
    first = datetime(*parts, *([1] * (3 - len(parts))))
    if len(parts) == 1:
        nxt = first.replace(year=first.year + 1)
    elif len(parts) == 2:
        nxt = (first + timedelta(days=32)).replace(day=1)
    else:
        nxt = first + timedelta(days=1)
    return first, nxt - last_step
