"""Whoosh schema. Stored fields are kept to the id: the record lives in SQLite."""
from __future__ import annotations

import re

from whoosh.analysis import LowercaseFilter, RegexTokenizer, StemmingAnalyzer
from whoosh.fields import DATETIME, ID, NUMERIC, TEXT, Schema

# Bump when the schema or analysis changes: the index is then rebuilt from the store.
INDEX_VERSION = 1

SEARCH_FIELDS = ("subject", "body", "attachments")
DEFAULT_FIELD_WEIGHTS = {"subject": 2.0, "body": 1.0, "attachments": 0.7}


def text_analyzer():
    return StemmingAnalyzer(minsize=2, maxsize=40)


def address_analyzer():
    return RegexTokenizer(r"[^\s,;<>\"'()\[\]]+") | LowercaseFilter()


def build_schema() -> Schema:
    return Schema(
        doc_id=ID(stored=True, unique=True),
        id=NUMERIC(int, bits=64, stored=True, signed=False),
        subject=TEXT(analyzer=text_analyzer()),
        body=TEXT(analyzer=text_analyzer()),
        attachments=TEXT(analyzer=text_analyzer()),
        all=TEXT(analyzer=text_analyzer(), phrase=False),
        **{"from": TEXT(analyzer=address_analyzer(), phrase=False)},
        to=TEXT(analyzer=address_analyzer(), phrase=False),
        date=DATETIME(),
        thread=ID(),
        folder=ID(),
    )


def address_terms(header: str, addrs: list[str] | tuple[str, ...]) -> str:
    """Address text to index: the header's words, each full address, its local part and domain,
    so that from:fossum, from:drew.fossum@enron.com and from:enron.com all match."""
    parts = [header]
    for a in addrs:
        local, _, domain = a.partition("@")
        parts.extend([a, local, domain, *re.split(r"[._+-]+", local)])
    return " ".join(parts)
