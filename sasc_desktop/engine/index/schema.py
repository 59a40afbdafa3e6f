"""Whoosh schema and text analysis. Stored fields are kept to the id: the record lives in SQLite.

Speed: analysis is the expensive part of indexing, so it runs where the parsing runs (in the
import's worker processes). :func:`analyse_document` turns a message's text into the exact
posting items Whoosh's own analysers would produce (same tokeniser, lower-casing, stop words,
Porter stems and position renumbering; a test checks equality against Whoosh), and the
:class:`PreText` field type accepts those items directly, so the writing process only adds
postings. Plain strings still work and are analysed the ordinary way.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from datetime import datetime, timezone

from whoosh.analysis import Filter, LowercaseFilter, RegexTokenizer, StemFilter, Token, Tokenizer
from whoosh.analysis.filters import STOP_WORDS
from whoosh.fields import DATETIME, ID, STORED, TEXT, Schema
from whoosh.lang.porter import stem
from whoosh.system import pack_uint

# Bump when the schema or analysis changes: the index is then rebuilt from the store.
#   2: pre-analysed fields (PreText); very long texts indexed up to INDEX_MAX_CHARS; id stored only.
#   3: date terms pre-computed too (PreDate).
#   4: dates on the sender's clock (the day the message says), not in UTC.
#   5: Latin and Greek accents folded in words and addresses (cafe finds café, from:jose José).
#   6: decomposed (NFD) accents kept in their words; stylised letters (𝐁𝐔𝐃𝐆𝐄𝐓) lower-cased; the
#      2-40 character limit and stop words on the word as written, before folding.
#   7: folder: any run of the folder path's parts, case and accents blind (indexes written by
#      version 6 code before this rule kept the exact path: bumped so they are rebuilt).
#   (tests/engine/index/test_index_version_guard.py fails when what is indexed changes without a bump.)
INDEX_VERSION = 7

SEARCH_FIELDS = ("subject", "body", "attachments")
DEFAULT_FIELD_WEIGHTS = {"subject": 2.0, "body": 1.0, "attachments": 0.7}
TEXT_FIELDS = ("subject", "body", "attachments", "all", "from", "to")

# The first INDEX_MAX_CHARS characters of a body or of the attachments' text are indexed (the
# whole text stays in the store): a 40 MB log file attached to one message must not stall an
# import. 200,000 characters is about 60 printed pages.
INDEX_MAX_CHARS = 200_000

_MINSIZE, _MAXSIZE = 2, 40
# Whoosh's default_pattern (without its capture group) with combining marks in words: mail written
# in decomposed form (NFD: "e" + U+0301) was cut at each accent ("re", "sume").
_WORD_CHARS = r"[\w\*\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a]"
_TOKEN_PATTERN = _WORD_CHARS + r"+(?:\." + "?" + _WORD_CHARS + "+)*"
_ADDRESS_PATTERN = r"[^\s,;<>\"'()\[\]]+"


# Letters folded beyond what dropping accents does (a searcher types "strasse", "aeroe").
_FOLD_LETTERS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "þ": "th",
                 "ı": "i", "ħ": "h", "ŧ": "t"}
_FOLDED_CHARS: dict[str, str] = {}


def _fold_char(c: str) -> str:
    out = _FOLD_LETTERS.get(c)
    if out is None and "\u0300" <= c <= "\u036f":
        out = ""   # a combining accent on its own ("İ".lower() is "i" + U+0307)
    if out is None:
        base = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x))
        # Only Latin and Greek letters lose their marks (and ligatures such as "ﬁ" split): in
        # Cyrillic or Japanese a mark makes another letter (й is not и, ガ is not カ).
        out = base.lower() if base and all(ord(x) < 0x400 for x in base) else c   # (𝐁 is B: b)
    return out


def fold(word: str) -> str:
    """A lower-cased word with Latin and Greek accents dropped: 'café' -> 'cafe', 'müller' ->
    'muller', 'straße' -> 'strasse'; ASCII, Cyrillic and CJK words unchanged. Index and queries
    both fold, so either spelling finds both. Decomposed letters are composed first (NFC: й
    written as и + U+0306 stays й)."""
    if word.isascii():
        return word
    word = unicodedata.normalize("NFC", word)
    chars = _FOLDED_CHARS
    out = []
    for c in word:
        f = chars.get(c)
        if f is None:
            f = chars[c] = c if c.isascii() else _fold_char(c)
        out.append(f)
    return "".join(out)


class FoldFilter(Filter):
    """Whoosh filter: each token's text through :func:`fold` (character offsets kept)."""

    def __eq__(self, other):
        return other is not None and self.__class__ is other.__class__

    def __call__(self, tokens):
        for t in tokens:
            t.text = fold(t.text)
            yield t


class FoldStopFilter(Filter):
    """Whoosh filter: Whoosh's StopFilter(minsize=2, maxsize=40), then :func:`fold`, in one pass
    (kept words renumbered as it does). Size and stop words are the word's as written: a
    40-letter word with "ß" is kept, as a query for it expects (the query's limit is on the word
    typed), and "thé" (tea) is a word, though folded it is "the". A word folded to nothing is
    dropped."""

    def __eq__(self, other):
        return other is not None and self.__class__ is other.__class__

    def __call__(self, tokens):
        pos = None
        for t in tokens:
            text = t.text
            folded = fold(text) if _MINSIZE <= len(text) <= _MAXSIZE and text not in _STOPS else ""
            if folded:
                t.text = folded
                if t.positions:
                    if pos is None:
                        pos = t.pos
                    else:
                        pos += 1
                        t.pos = pos
                t.stopped = False
                yield t
            elif not t.removestops:
                t.stopped = True
                yield t


def text_analyzer():
    """Whoosh's StemmingAnalyzer(minsize=2, maxsize=40) with combining marks in words and
    accents folded (:class:`FoldStopFilter`)."""
    return RegexTokenizer(_TOKEN_PATTERN) | LowercaseFilter() | FoldStopFilter() | StemFilter(cachesize=50000)


def folder_parts(path: str) -> list[str]:
    """A folder's path as the index keeps it: its parts, lower-cased and folded, without the
    separators ('\\Palmer_Holly\\Inbox' and 'palmer_holly/inbox' -> ['palmer_holly', 'inbox'])."""
    return [fold(p.lower()) for p in re.split(r"[/\\]+", path or "") if p.strip()]


class FolderTokenizer(Tokenizer):
    """The folder field's analyser. Indexed: every run of parts of the folder's path, the whole
    path too ('mail\\Palmer_Holly\\Inbox' -> 'mail', 'palmer_holly', 'inbox', 'mail/palmer_holly',
    'palmer_holly/inbox', 'mail/palmer_holly/inbox'); queried: the path typed, so folder:inbox finds
    every Inbox, folder:palmer_holly/inbox (or folder:"\\Palmer_Holly\\Inbox") that one, and
    folder:palmer_holly all of Holly's. It was the stored path, exact and case-sensitive:
    folder:inbox found nothing in the demo project."""

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        parts = folder_parts(value)
        whole = "/".join(parts)
        if mode == "index":   # (every run of parts: folder:holly/inbox, folder:mail/holly, folder:inbox)
            texts = list(dict.fromkeys("/".join(parts[i:j]) for i in range(len(parts))
                                       for j in range(i + 1, len(parts) + 1)))
        else:
            texts = [whole]
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for i, text in enumerate(texts if parts else []):
            t.text, t.boost, t.stopped = text, 1.0, False
            if positions:
                t.pos = start_pos + i
            if chars:
                t.startchar, t.endchar = start_char, start_char + len(value)
            yield t


def address_analyzer():
    return RegexTokenizer(_ADDRESS_PATTERN) | LowercaseFilter() | FoldFilter()


class PreText(TEXT):
    """A TEXT field that also takes pre-analysed posting items: a ``list`` of
    ``(term_bytes, frequency, weight, value_bytes)`` tuples, as :meth:`TEXT.index` yields them.
    A ``str`` is analysed as usual."""

    def index(self, value, **kwargs):
        if isinstance(value, list):
            return value
        return super().index(value, **kwargs)


class PreDate(DATETIME):
    """A DATETIME field that also takes its posting items pre-computed (a ``list``, see
    :func:`date_items`), so the index terms of a date are made in the import's workers."""

    def index(self, value, **kwargs):
        if isinstance(value, list):
            return value
        return super().index(value, **kwargs)


_DATE = DATETIME()


def date_items(value) -> list | None:
    """Posting items of the date field, None without a usable date. ``value``: the message's
    date as the store keeps it, ISO 8601 with the sender's UTC offset ('2001-03-18T23:53:00-08:00'),
    indexed on the sender's clock (the day the message says: 2001-03-18); or a POSIX timestamp,
    indexed in UTC (2001-03-19 07:53)."""
    if value is None:
        return None
    try:
        if isinstance(value, str):
            dt = datetime.fromisoformat(value).replace(tzinfo=None)
        else:
            dt = datetime.fromtimestamp(value, tz=timezone.utc).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None
    return list(_DATE.index(dt))


def build_schema() -> Schema:
    return Schema(
        doc_id=ID(stored=True, unique=True),
        id=STORED(),   # the project's row id (looked up, never searched)
        subject=PreText(analyzer=text_analyzer()),
        body=PreText(analyzer=text_analyzer()),
        attachments=PreText(analyzer=text_analyzer()),
        all=PreText(analyzer=text_analyzer(), phrase=False),
        **{"from": PreText(analyzer=address_analyzer(), phrase=False)},
        to=PreText(analyzer=address_analyzer(), phrase=False),
        date=PreDate(),
        thread=ID(),
        folder=ID(analyzer=FolderTokenizer()),
    )


def address_terms(header: str, addrs: list[str] | tuple[str, ...]) -> str:
    """Address text to index: the header's words, each full address, its local part and domain,
    so that from:fossum, from:drew.fossum@enron.com and from:enron.com all match."""
    parts = [header]
    for a in addrs:
        local, _, domain = a.partition("@")
        parts.extend([a, local, domain, *re.split(r"[._+-]+", local)])
    return " ".join(parts)


# --- fast analysis (identical output to the analysers above) -------------------------------
_tokens = re.compile(_TOKEN_PATTERN, re.UNICODE).findall
_address_tokens = re.compile(_ADDRESS_PATTERN, re.UNICODE).findall
_STOPS = frozenset(STOP_WORDS)
_STEMS: dict[str, str | None] = {}   # lower-cased word -> stem, or None for a dropped word
_STEM_CACHE_MAX = 500_000


def _stem_of(word: str):
    if len(word) < _MINSIZE or len(word) > _MAXSIZE or word in _STOPS:
        return None
    word = fold(word)
    return stem(word) if word else None


def analyse_terms(text: str) -> tuple[int, list[str]]:
    """(position of the first kept token, kept stems in order) as :func:`text_analyzer` gives them: kept tokens are renumbered consecutively from the first one."""
    stems = _STEMS
    if len(stems) > _STEM_CACHE_MAX:
        stems.clear()
    out: list[str] = []
    first = -1
    for i, word in enumerate(_tokens(text)):
        word = word.lower()
        s = stems.get(word, 0)
        if s == 0:
            s = stems[word] = _stem_of(word)
        if s is not None:
            if first < 0:
                first = i
            out.append(s)
    return max(first, 0), out



def positions_items(first: int, terms: list[str]) -> list[tuple]:
    """Posting items of a phrase-capable (Positions) field."""
    poses: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(terms, first):
        poses[t].append(i)
    encode = _POSITIONS.encode
    return [(t.encode("utf-8"), len(p), float(len(p)), encode(p)) for t, p in poses.items()]


def frequency_items(counts: Counter) -> list[tuple]:
    """Posting items of a Frequency field."""
    return [(t.encode("utf-8"), n, float(n), pack_uint(n)) for t, n in counts.items()]


def address_items(text: str) -> list[tuple]:
    return frequency_items(Counter(fold(w.lower()) for w in _address_tokens(text)))


def analyse_document(subject: str, body: str, attachment_text: str, sender: str, recipients: str,
                     cc: str, bcc: str, from_addr: str, recipient_addrs) -> dict[str, list]:
    """Pre-analysed items for every text field of one message."""
    subject, body, attachment_text = subject or "", (body or "")[:INDEX_MAX_CHARS], (attachment_text or "")[:INDEX_MAX_CHARS]
    sub = analyse_terms(subject)
    bod = analyse_terms(body)
    att = analyse_terms(attachment_text)
    everything = Counter(sub[1])
    everything.update(bod[1])
    everything.update(att[1])
    for header in (sender, recipients, cc):
        if header:
            everything.update(analyse_terms(header)[1])
    return {
        "subject": positions_items(*sub),
        "body": positions_items(*bod),
        "attachments": positions_items(*att),
        "all": frequency_items(everything),
        "from": address_items(address_terms(sender or "", [from_addr] if from_addr else [])),
        "to": address_items(address_terms(" ".join(x for x in (recipients, cc, bcc) if x), list(recipient_addrs))),
    }


def _positions_format():
    from whoosh.formats import Positions
    return Positions()


_POSITIONS = _positions_format()
