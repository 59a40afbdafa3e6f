"""Qt-free progress reporting and cancellation for long engine work.

Engine functions take an optional ``progress`` argument (a :class:`Progress`) and call
``progress.update(done, total, message)`` as they go; ``update`` raises :class:`Cancelled`
once ``cancel()`` has been called (from any thread). The GUI adapts this to signals, the CLI
to a text progress bar.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

from .errors import Cancelled

Callback = Callable[[int, Optional[int], str], None]


class Progress:
    def __init__(self, callback: Optional[Callback] = None):
        self._callback = callback
        self._cancel = threading.Event()
        self.done = 0
        self.total: Optional[int] = None
        self.message = ""

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled()

    def update(self, done: int, total: Optional[int] = None, message: str = "") -> None:
        self.done, self.message = done, message
        if total is not None:
            self.total = total
        if self._callback is not None:
            self._callback(done, self.total, message)
        self.check()


def ensure(progress: Optional[Progress]) -> Progress:
    """A Progress to report to: the one given, or a silent one."""
    return progress if progress is not None else Progress()
