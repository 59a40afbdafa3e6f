"""Exceptions the engine raises. Every one carries a message fit to show a user."""


class SascError(Exception):
    """Base class: a problem the user can understand and act on (never a crash)."""


class Cancelled(SascError):
    """Raised inside long work when the user asked to cancel it."""

    def __init__(self, message: str = "cancelled by the user"):
        super().__init__(message)


class ProjectError(SascError):
    """The project folder is missing, damaged, or written by a newer version."""


class QueryError(SascError):
    """A search query could not be parsed."""


class InputError(SascError):
    """A source or input file could not be read (bad format, missing tool, ...)."""
