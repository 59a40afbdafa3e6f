"""Random mail for brute-force oracle tests of search: a seeded mix of a small vocabulary (so
that words, NOTs and filters overlap a lot), words the analyser splits (addresses, hyphenated
words, numbers with slashes), words a stem hides (EnergyOnline), a few senders and recipients,
and dates in several time zones, some just before or after midnight, a month's or a year's
end. Each message's :class:`Doc` is what a scan knows: its words as the index's own analyser
gives them (schema.analyse_terms, address_items), its date on its sender's clock and in UTC."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime, parsedate_to_datetime

from sasc_desktop.engine.index.schema import address_items, address_terms, analyse_terms

WORDS = ["power", "powers", "california", "gas", "energy", "price", "prices", "market", "budget", "meeting",
         "contract", "report", "review", "plant", "year", "end", "kean", "steven", "enron", "com"]
SPECIAL = ["steven.kean@enron.com", "year-end", "year end", "end year", "11/22/99", "22/11/99", "EnergyOnline",
           "energyonline", "Energy-related", "2001-03", "kean steven", "enron.com"]
SENDERS = ["Ann Lee <ann@corp.com>", "bob@corp.com", "Holly Keiser <holly.keiser@corp.com>", "x@example.org"]
RECIPIENTS = ["ann@corp.com", "bob@corp.com", "holly.keiser@corp.com", "legal@firm.com"]
ZONES = [timedelta(hours=-8), timedelta(0), timedelta(hours=5, minutes=30), timedelta(hours=9)]
# (sender's clock, its UTC offset in hours): next to a day's, a month's or a year's end
EDGES = [((2000, 12, 31, 23, 30), -8), ((2001, 1, 1, 0, 10), 9), ((2001, 12, 31, 23, 50), -8),
         ((2002, 1, 1, 0, 5), 9), ((2001, 4, 30, 23, 0), -8), ((2001, 5, 1, 1, 0), 9),
         ((2001, 3, 18, 23, 53), -8), ((2001, 3, 19, 0, 30), 5.5), ((2001, 3, 5, 0, 0), 0),
         ((2001, 3, 5, 23, 59), 0), ((2001, 3, 4, 23, 59), 0), ((2001, 3, 6, 0, 0), 0)]
N = 160


@dataclass
class Doc:
    doc_id: str
    subject: list     # stems in order, as the index analyses the subject
    body: list
    frm: set          # the from field's terms
    to: set
    local: datetime   # naive: the Date header's own clock
    utc: datetime     # aware


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(SPECIAL) if rng.random() < 0.12 else rng.choice(WORDS) for _ in range(n))


def mails(seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(N):
        if i < len(EDGES):
            (y, mo, d, h, mi), off = EDGES[i]
            tz = timezone(timedelta(hours=off))
            when = datetime(y, mo, d, h, mi, tzinfo=tz)
        else:
            tz = timezone(rng.choice(ZONES))
            when = datetime(2000, 1, 1, tzinfo=tz) + timedelta(minutes=rng.randrange(3 * 366 * 24 * 60))
        to = rng.sample(RECIPIENTS, rng.randint(1, 2))
        out.append(dict(message_id=f"<o{i}@x>", subject=_text(rng, rng.randint(1, 4)),
                        body=_text(rng, rng.randint(3, 25)), frm=rng.choice(SENDERS), to=", ".join(to),
                        date=format_datetime(when)))
    return out


def _addresses(header: str) -> list[str]:
    return re.findall(r"[\w.+-]+@[\w.-]+", header)


def build(root):
    from mailfactory import ingested_project
    ms = mails()
    session = ingested_project(root, ms)
    docs = {}
    for m in ms:
        doc_id = m["message_id"].strip("<>")
        when = parsedate_to_datetime(m["date"])
        frm_addr = _addresses(m["frm"])
        docs[doc_id] = Doc(
            doc_id=doc_id, subject=analyse_terms(m["subject"])[1], body=analyse_terms(m["body"])[1],
            frm={t.decode() for t, *_ in address_items(address_terms(m["frm"], frm_addr))},
            to={t.decode() for t, *_ in address_items(address_terms(m["to"], _addresses(m["to"])))},
            local=when.replace(tzinfo=None), utc=when.astimezone(timezone.utc))
    return session, docs


# --- what a scan says a message matches -------------------------------------------------------
def stems(text: str) -> list[str]:
    return analyse_terms(text)[1]


def has_word(doc: Doc, word: str) -> bool:
    """A word as search takes it: all of its pieces in order next to each other in the subject
    or the body (one piece: anywhere in them)."""
    return has_phrase(doc, word)


def has_phrase(doc: Doc, text: str) -> bool:
    seq = stems(text)
    if not seq:
        return False
    for field in (doc.subject, doc.body):
        for i in range(len(field) - len(seq) + 1):
            if field[i:i + len(seq)] == seq:
                return True
    return False


def in_dates(doc: Doc, keep) -> bool | None:
    """``keep(datetime)`` of the message's date on its sender's clock and in UTC: the one
    answer when both clocks agree, None when they do not (which clock date: filters read is
    another test's subject)."""
    local, utc = keep(doc.local), keep(doc.utc.replace(tzinfo=None))
    return local if local == utc else None
