"""Errors raised by the evaluation package (all are :class:`SascError` subclasses)."""
from __future__ import annotations

from ..errors import InputError, SascError


class MeasureError(SascError):
    """A measure name or one of its parameters is unknown or invalid."""


class EvalFileError(InputError):
    """A qrels / sensitivity / run / LETOR file is malformed.

    ``path`` and ``line`` (1-based, or ``None`` when the problem is not on one line) say where.
    """

    def __init__(self, path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class JudgmentsError(SascError):
    """Judgments cannot be used as asked (e.g. several personas and none chosen)."""
