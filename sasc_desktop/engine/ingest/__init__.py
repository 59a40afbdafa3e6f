"""Mailboxes in: sources (mbox, maildir, folders, PST) -> parsed Message records -> the project."""
from .parse import parse_message, MalformedMessage
from .sources import iter_source, RawItem

__all__ = ["parse_message", "MalformedMessage", "iter_source", "RawItem"]
