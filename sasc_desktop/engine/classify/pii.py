"""Detectors for personally identifiable information, used as features and as evidence.

Every detector is a pure function of the text and returns :class:`PiiHit` records with
character offsets, so a viewer can highlight ``text[start:end]``. Checksums cut false alarms:
card numbers must pass the Luhn check, IBANs the ISO 13616 mod-97 check, US routing numbers the
ABA check, and US social security numbers must not use an area number that is never issued
(000, 666, 900-999) or an all-zero group or serial.

``detect_pii`` runs every detector and drops a hit that overlaps a hit of a stronger kind
(the order of :data:`PII_KINDS`), so a card number is not also reported as a phone number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

PII_KINDS: tuple[str, ...] = ("payment_card", "iban", "national_id", "date_of_birth", "bank_account",
                              "phone", "street_address")


@dataclass(frozen=True, slots=True)
class PiiHit:
    kind: str     # one of PII_KINDS
    start: int    # character offsets into the text searched: text[start:end] == self.text
    end: int
    text: str
    field: str = ""  # "subject", "body", "attachment:<name>" when known

    def to_json(self) -> dict:
        return {"kind": self.kind, "start": self.start, "end": self.end, "text": self.text, "field": self.field}


# ------------------------------------------------------------------------------ checksums
def luhn_valid(number: str) -> bool:
    """The Luhn (mod 10) check over the digits of ``number`` (other characters ignored)."""
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 2:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_valid(value: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to 10..35, mod 97 == 1."""
    raw = re.sub(r"[\s-]", "", value).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", raw):
        return False
    rearranged = raw[4:] + raw[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def aba_valid(number: str) -> bool:
    """The ABA routing number check: 3-7-1 weighted digit sum divisible by 10."""
    d = [int(c) for c in number if c.isdigit()]
    if len(d) != 9:
        return False
    s = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])
    return s % 10 == 0 and s > 0


# ------------------------------------------------------------------------------ detectors
# 13-19 digits, optionally grouped by single spaces or dashes; not glued to other digits.
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_SSN = re.compile(r"(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
_PHONE = re.compile(
    r"(?<![\w+])(?:"
    r"(?:\+?1[ .-]?)?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[ .-])[2-9]\d{2}[ .-]\d{4}"      # US / NANP
    r"|\+(?:[2-9]\d{0,2})(?:[ .-]?\(?\d{1,4}\)?){2,5}"                                # international
    r")(?![\w-])")
_DATE = (r"(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})|\d{4}-\d{2}-\d{2}"
         r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}"
         r"|\d{1,2}(?:st|nd|rd|th)? (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,? \d{4})")
_DOB = re.compile(r"(?i:\b(?:born(?: on)?|d\.?o\.?b\.?|date of birth|birth ?date|birthday)\b)[^\n\d]{0,20}?(" + _DATE + ")")
_ACCOUNT = re.compile(r"(?i:\b(?:account|acct|a/c|routing|aba)\b\.?(?: ?(?:no\.?|number|num|#))?)\s*[:#]?\s*(\d[\d -]{4,18}\d)(?!\d)")
_STREET_TYPES = (r"Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
                 r"Terrace|Ter|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq")
_ADDRESS = re.compile(
    r"\b\d{1,6}(?: [NSEW]|(?: (?:NE|NW|SE|SW|North|South|East|West)))?"
    r"(?: [A-Z][a-z]+| \d{1,3}(?:st|nd|rd|th)){1,3} (?:" + _STREET_TYPES + r")\b"
    r"(?:,? (?:Suite|Ste|Apt|Unit|#) ?\w+)?"
    r"(?:, [A-Z][a-z]+(?: [A-Z][a-z]+)?, [A-Z]{2} \d{5}(?:-\d{4})?)?")


def find_payment_cards(text: str, pos: int = 0) -> list[PiiHit]:
    out = []
    for m in _CARD.finditer(text, pos):
        s = m.group(0)
        digits = re.sub(r"\D", "", s)
        if not 13 <= len(digits) <= 19 or digits[0] not in "3456" or not luhn_valid(digits):
            continue
        if re.search(r"[ -]{2}", s) or len(set(digits)) == 1:
            continue
        out.append(PiiHit("payment_card", m.start(), m.end(), s))
    return out


def find_national_ids(text: str, pos: int = 0) -> list[PiiHit]:
    """US social security numbers written ``AAA-GG-SSSS`` (or with spaces)."""
    out = []
    for m in _SSN.finditer(text, pos):
        area, group, serial = m.group(1), m.group(3), m.group(4)
        if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
            continue
        out.append(PiiHit("national_id", m.start(), m.end(), m.group(0)))
    return out


def find_ibans(text: str, pos: int = 0) -> list[PiiHit]:
    return [PiiHit("iban", m.start(), m.end(), m.group(0)) for m in _IBAN.finditer(text, pos) if iban_valid(m.group(0))]


def find_bank_accounts(text: str) -> list[PiiHit]:
    """Account or routing numbers introduced by a keyword ("account no. 123456789", "routing 021000021")."""
    out = []
    for m in _ACCOUNT.finditer(text):
        digits = re.sub(r"\D", "", m.group(1))
        if not 6 <= len(digits) <= 17:
            continue
        if "rout" in m.group(0).lower() or "aba" in m.group(0).lower():
            if not aba_valid(digits):
                continue
        out.append(PiiHit("bank_account", m.start(1), m.end(1), m.group(1)))
    return out


def find_phones(text: str, pos: int = 0) -> list[PiiHit]:
    out = []
    for m in _PHONE.finditer(text, pos):
        digits = re.sub(r"\D", "", m.group(0))
        if not 10 <= len(digits) <= 15:
            continue
        out.append(PiiHit("phone", m.start(), m.end(), m.group(0)))
    return out


def find_dates_of_birth(text: str) -> list[PiiHit]:
    """A date within a few words after "born", "DOB", "date of birth" or "birthday"."""
    return [PiiHit("date_of_birth", m.start(1), m.end(1), m.group(1)) for m in _DOB.finditer(text)]


def find_street_addresses(text: str, pos: int = 0) -> list[PiiHit]:
    """House number, up to three capitalised words and a street type, optionally a unit and
    ", City, ST 12345"."""
    return [PiiHit("street_address", m.start(), m.end(), m.group(0)) for m in _ADDRESS.finditer(text, pos)]


DETECTORS = {
    "payment_card": find_payment_cards,
    "iban": find_ibans,
    "national_id": find_national_ids,
    "date_of_birth": find_dates_of_birth,
    "bank_account": find_bank_accounts,
    "phone": find_phones,
    "street_address": find_street_addresses,
}


_MIN_DIGITS = {"payment_card": 13, "iban": 2, "national_id": 9, "date_of_birth": 4, "bank_account": 6, "phone": 10,
               "street_address": 1}
_DOB_KEY = re.compile(r"born|d\.?o\.?b|birth")
_KEYWORDS = {
    "date_of_birth": lambda low: _DOB_KEY.search(low) is not None,
    "bank_account": lambda low: "acc" in low or "a/c" in low or "rout" in low or "aba" in low,
}

# Where a detector's scan may start, from a pattern every hit must contain: None when the text
# has no such substring (no hit possible), else the leftmost such substring's start less the
# furthest a hit can begin before it. The patterns begin with a character class, which the
# regular-expression engine skips to in C, so they cost a fraction of the detector's own scan
# (whose look-behinds and word boundaries it must try at every position). Scanning from a
# later ``pos`` finds the same hits: look-behinds and word boundaries still see the text
# before it.
_NEED = {
    "payment_card": (re.compile(r"\d[\d -]{11,}\d"), 0),          # 13+ digits, spaces and dashes
    "iban": (re.compile(r"[A-Z][A-Z]\d\d"), 0),
    "national_id": (re.compile(r"\d\d\d[- ]\d\d[- ]\d\d\d\d"), 0),
    "phone": (re.compile(r"\d\d\d[ .-]\d\d\d\d"), 12),          # "+1 (212) " before "555-0100"
    "street_address": (re.compile(r"\d [A-Z\d]"), 6),               # house number's last digit
}
_PHONE_INTL = re.compile(r"\+[2-9]")
_STREET_END = re.compile(r"[a-z] (?:" + _STREET_TYPES + r")\b")  # "...Elm Street", "...5th Ave"
# For ASCII text, where matching case-insensitively is lower-casing, tighter keyword tests:
# the keyword, then what may stand between it and the first digit of a hit.
_ASCII_KEYWORDS = {
    "date_of_birth": re.compile(r"(?:born|d\.?o\.?b|birth)[^\n]{0,40}?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"),
    "bank_account": re.compile(r"(?:account|acct|a/c|routing|aba)\.?(?: ?(?:no\.?|number|num|#))?\s*[:#]?\s*\d"),
}


def _scan_from(kind: str, text: str) -> Optional[int]:
    need = _NEED.get(kind)
    if need is None:
        return 0
    m = need[0].search(text)
    if kind == "phone":
        intl = _PHONE_INTL.search(text)
        if m is None and intl is None:
            return None
        starts = ([max(0, m.start() - need[1])] if m else []) + ([intl.start()] if intl else [])
        return min(starts)
    if m is None:
        return None
    if kind == "street_address" and _STREET_END.search(text, m.start()) is None:
        return None
    return max(0, m.start() - need[1])


def detect_pii(text: str, field: str = "") -> list[PiiHit]:
    """Every PII hit in ``text``, in order of position; overlapping weaker hits are dropped."""
    if not text:
        return []
    n_digits = sum(map(text.count, "0123456789"))
    if not n_digits:
        return []
    low = None
    taken: list[tuple[int, int]] = []
    out: list[PiiHit] = []
    for kind in PII_KINDS:
        # Cheap necessary conditions first (digits each kind needs, keywords): most messages
        # are then never scanned by most detectors. They never change what is found.
        if n_digits < _MIN_DIGITS[kind]:
            continue
        if kind in _KEYWORDS:
            if low is None:
                low = text.lower()
                ascii_text = text.isascii()
            if not _KEYWORDS[kind](low):
                continue
            if ascii_text and _ASCII_KEYWORDS[kind].search(low) is None:
                continue
        pos = _scan_from(kind, text)
        if pos is None:
            continue
        for hit in (DETECTORS[kind](text, pos) if pos else DETECTORS[kind](text)):
            if any(hit.start < e and s < hit.end for s, e in taken):
                continue
            taken.append((hit.start, hit.end))
            out.append(PiiHit(hit.kind, hit.start, hit.start + len(hit.text), hit.text, field))
    out.sort(key=lambda h: (h.start, h.end))
    return out


def pii_count_rows(texts):
    """(len(texts), len(PII_KINDS)) hit counts, row i equal to ``pii_counts(texts[i])``."""
    import numpy as np
    out = np.zeros((len(texts), len(PII_KINDS)), dtype=np.int64)
    col = {k: j for j, k in enumerate(PII_KINDS)}
    for i, t in enumerate(texts):
        for h in detect_pii(t):
            out[i, col[h.kind]] += 1
    return out


def pii_counts(text: str) -> dict[str, int]:
    """How many hits of each kind (every kind present as a key)."""
    counts = dict.fromkeys(PII_KINDS, 0)
    for h in detect_pii(text):
        counts[h.kind] += 1
    return counts
