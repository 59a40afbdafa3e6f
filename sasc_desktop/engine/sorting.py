"""How senders and subjects are shown and sorted, the same in the engine's whole-result sort and
the GUI's table (an archivist sorts by what the list shows, not by the raw header)."""
from __future__ import annotations

import unicodedata
from email.utils import parseaddr
from functools import lru_cache

_QUOTES = "\"'`\u2018\u2019\u201c\u201d "


def display_name(sender: str) -> str:
    """'Jessica Tran <jessica.tran@x>' -> 'Jessica Tran'; the address when there is no name;
    quotes a mail program left around the name ("'Jeff Dasovich'") dropped."""
    name, addr = parseaddr(sender or "")
    name = name.strip(_QUOTES)
    return name or addr or (sender or "").strip()


@lru_cache(maxsize=1 << 16)
def text_sort_key(text: str) -> str:
    """Case- and accent-blind key: 'Émile' and 'emile' sort together, between 'e' and 'f' (SQLite's
    NOCASE folds A-Z only and puts every accented letter after 'z')."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().strip()


# Cached: a sorted search asks for a key per match, and senders repeat (parseaddr costs ~30 us).
@lru_cache(maxsize=1 << 16)
def sender_sort_key(sender: str) -> str:
    return text_sort_key(display_name(sender))
