"""Small helpers shared by the CLI command modules."""
from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time
from typing import Any

from ..engine import session as _session
from ..engine.procpool import DEFER_SECONDS
from .text import cell, one_line, safe_text, stream_is_utf8  # noqa: F401  (re-exported for the command modules)


def print_note(note: str) -> None:
    """A note for the user on stderr, as 'sasc: note: ...' (beside stdout's results or JSON)."""
    print(f"sasc: note: {note}", file=sys.stderr)


# What opening a project did that the user should know (the index rebuilt, and why) is printed by
# every command that opens one, once (Session.open no longer logs it).
if print_note not in _session.NOTE_HANDLERS:
    _session.NOTE_HANDLERS.append(print_note)


def _clean(obj: Any) -> Any:
    """JSON-safe: NaN/inf become null (no NaN ever leaves the tool)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return _clean(obj.item())
    return obj



def print_json(obj: Any) -> None:
    # On a stdout that is not UTF-8 (a cp1252 console, LC_ALL=C) every character beyond ASCII is
    # written as a \uXXXX escape: still the same JSON, and no UnicodeEncodeError part-way.
    json.dump(_clean(obj), sys.stdout, ensure_ascii=not stream_is_utf8(sys.stdout), indent=None, allow_nan=False)
    sys.stdout.write("\n")


class TextProgressBar:
    """A Progress callback drawing a one-line bar on stderr (only when stderr is a terminal)."""

    def __init__(self, label: str, stream=None, force: bool = False):
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = force or self.stream.isatty()
        self._last = 0.0
        self._start = time.monotonic()

    def __call__(self, done: int, total: int | None, message: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and (total is None or done < total):
            return
        self._last = now
        rate = done / max(now - self._start, 1e-9)
        if total:
            frac = min(done / total, 1.0)
            bar = "#" * int(frac * 30)
            text = f"\r{self.label} [{bar:<30}] {done}/{total} ({rate:.0f}/s) {message[:40]}"
        else:
            text = f"\r{self.label} {done} ({rate:.0f}/s) {message[:40]}"
        self.stream.write(text.ljust(100)[:110])
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


class interrupt_once:
    """``with interrupt_once():`` the first Ctrl+C (SIGINT) raises KeyboardInterrupt as usual and
    the work stops, cleaning up as it goes (a demo build removes its temporary folder); the
    presses after it are ignored, so that a double press does not cut that cleanup short and
    leave it half done. One pressed more than DEFER_SECONDS after the last one that counted
    interrupts again (cleanup that long is stuck). Main thread only (elsewhere it does nothing)."""

    def __init__(self) -> None:
        self._old = None
        self._since: float | None = None

    def _handler(self, signum, frame) -> None:
        now = time.monotonic()
        if self._since is None or now - self._since > DEFER_SECONDS:
            self._since = now
            raise KeyboardInterrupt

    def __enter__(self) -> "interrupt_once":
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None
