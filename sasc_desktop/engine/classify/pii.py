"""Detectors for personally identifiable information, used as features and as evidence.

Every detector is a pure function of the text and returns :class:`PiiHit` records with
character offsets, so a viewer can highlight ``text[start:end]``. Checksums cut false alarms:
card numbers must pass the Luhn check, IBANs the ISO 13616 mod-97 check, US routing numbers the
ABA check, and US social security numbers must not use an area number that is never issued
(000, 666, 900-999) or an all-zero group or serial.

``detect_pii`` runs every detector and drops a hit that overlaps a hit of a stronger kind
(the order of :data:`PII_PRECEDENCE`), so a card number is not also reported as a phone number
and the digits of an IBAN are never a card, an SSN or an account number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

PII_KINDS: tuple[str, ...] = ("payment_card", "iban", "national_id", "date_of_birth", "bank_account",
                              "phone", "street_address")
# Which kind keeps an overlapped stretch of text: an IBAN (checksum and registered length) over
# the card, SSN or account number its digits may form, then PII_KINDS order.
PII_PRECEDENCE: tuple[str, ...] = ("iban", "payment_card", "national_id", "date_of_birth", "bank_account",
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
    raw = re.sub(r"[ \t\r\n-]", "", value)
    if not raw.isascii():  # "ı".upper() is "I", "١" is a digit to int(): neither is in an IBAN
        return False
    raw = raw.upper()
    if not re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}", raw):
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
# Every pattern is compiled with re.ASCII: \d is [0-9], \w and \b are ASCII, and matching
# case-insensitively folds ASCII letters only. Digits of other scripts ("١٢٣", "１２３") are
# then simply not PII digits, and "ı"/"İ" do not match "i"; the pre-filters in detect_pii (which
# count ASCII digits and look for ASCII keywords) rest on that.
_A = re.ASCII

# A number run is not PII when a further digit group of the same shape stands next to it across
# the separator the run itself uses ("36 800 824 896 1024 600", "212.555.1234.123",
# "2.212.555.1234", "page 212 555 1234 5678"): those are tables, versions, IP addresses. Same
# shape means a whole word of digits as long as a group of the run can be: 1-4 digits next to a
# phone or an SSN, exactly 4 next to a spaced card, and 1-4 after a spaced card whose last group is
# short ("4900 2552 6999 19 0" is not a 14-digit card; cards are printed 4-4-4-2 only at their
# end). Not a neighbour: a group across another
# separator ("PA 19104 215-828-5000", "1-800-725-2161 24 hrs"), a longer number ("TX 77002
# 713 853 5620"), a word starting with digits ("24hrs"), a group that ends or starts another
# number written with a different separator ("(713) 646-3490 713 646 3491", "2001-05-14
# 503 555 0123", "4111 1111 1111 1111 12/25"), a group after "+" (a country code: "+001 407
# 323 1668"), any group before a dashed phone (dialling prefixes are written so: "1-800-...",
# "011-506-...", "44-207-..."), and a 4-digit group that ends or starts a Luhn-valid card
# ("4111 1111 1111 1111 5500 0000 0000 0004" are two cards). A phone written with "(" or a
# leading "+" is delimited by its own punctuation and has no neighbour rule. "." next to an
# unspaced or dashed card or SSN is a decimal point or a version and is never allowed.

# 13-19 digits: unspaced, or grouped by one kind of separator as cards are printed (4-4-4-1 to
# 4-4-4-4, 4-4-4-4-3, American Express / Diners 4-6-5 / 4-6-4). Never glued to a letter before
# it (the digits of an IBAN, "BE61821107065877", are not a card), nor an unspaced one to a
# letter after it.
_CARD = re.compile(
    r"(?<![A-Za-z\d-])(?<!\d\.)(?:"
    r"\d{13,19}(?![A-Za-z\d-])(?!\.\d)"
    r"|\d{4}-(?:\d{4}-\d{4}-(?:\d{4}-\d{3}|\d{1,4})|\d{6}-\d{4,5})(?![\d-])(?!\.\d)"
    r"|\d{4} (?:\d{4} \d{4} (?:\d{4} \d{3}|\d{1,4})|\d{6} \d{4,5})(?![\d-])(?!\.\d)"
    r")", _A)
# AAA-GG-SSSS or AAA GG SSSS, not glued to a letter before it.
_SSN = re.compile(
    r"(?<![A-Za-z\d-])(?<!\d\.)(?:"
    r"(\d{3})-(\d{2})-(\d{4})(?![\d-])(?!\.\d)"
    r"|(\d{3}) (\d{2}) (\d{4})(?![\d-])(?!\.\d)"
    r")", _A)
# A candidate IBAN: country letters, check digits, then letters and digits with at most one
# space or dash between any two; find_ibans cuts it at the country's IBAN length.
_IBAN = re.compile(r"\b[A-Za-z]{2}[0-9]{2}(?:[ -]?[A-Za-z0-9]){1,34}", _A)
# ISO 13616 IBAN registry (SWIFT): country code -> IBAN length, the 89 registered countries.
# Territories that use another country's IBANs (GF, RE and others: FR; JE, GG, IM: GB; AX: FI)
# have no prefix of their own.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29,
    "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
}
_PHONE = re.compile(
    r"(?<![\w+])(?:"
    r"(?:\+?1[ .-]?)?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[ .-])[2-9]\d{2}[ .-]\d{4}"      # US / NANP
    r"|\+1[2-9]\d{2}[2-9]\d{6}"                                                      # +1 unspaced
    r"|\+(?:[2-9]\d{0,2})(?:[ .-]?\(?\d{1,4}\)?){2,5}"                                # international
    r")(?![\w-])", _A)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORDINAL_WORDS = ("(?:" + "|".join(_UNITS + ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                                              "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
                                              "thirtieth", "thirty[- ]first"))
                  + "|twenty[- ](?:" + "|".join(_UNITS) + "))")
_DATE = (r"(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?!\d)"                        # 03/15/1970, 3.15.70
         r"|\d{4}-\d{2}-\d{2}(?!\d)"                                               # 1970-03-15
         r"|\d{1,2}-" + _MONTH + r"-(?:\d{4}|\d{2})(?!\d)"                          # 3-Mar-1970
         r"|" + _MONTH + r" (?:\d{1,2}(?:st|nd|rd|th)?|" + _ORDINAL_WORDS + r"),? \d{4}(?!\d)"  # March 3rd, 1970
         r"|(?:\d{1,2}(?:st|nd|rd|th)?|" + _ORDINAL_WORDS + r")(?: of)? " + _MONTH + r",? \d{4}(?!\d))")  # 3rd of March 1970
_DOB = re.compile(r"\b(?:born(?: on)?|d\.?o\.?b\.?|date of birth|birth ?date|birthday)\b[^\n\d]{0,20}?(" + _DATE + ")",
                  re.I | _A)
# The number after the keyword: unspaced, dash-grouped, or space-grouped in groups of 3-4 digits
# (so "account 12345678 2 times" is 12345678).
_ACCOUNT = re.compile(r"(?i:\b(?:account|acct|a/c|routing|aba)\b\.?(?: ?(no\.?|number|num|#))?)\s*([:#]?)\s*"
                      r"(\d{1,8}(?:-\d{1,8}){1,4}|\d{3,4}(?: \d{3,4}){1,4}|\d{6,17})(?![\d-])", _A)
# Shapes that are something else after an account keyword: a date (05-14-2001, 2001-05-14), and
# a NANP phone number ("account: 713 853 5620"), unless the keyword names the number
# ("account no. 713 853 5620", "acct # 713-853-5620").
_DASHED_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})-(\d{1,2})-(?:\d{4}|\d{2})", _A)
_NANP_SHAPE = re.compile(r"(?:1[ -])?[2-9]\d{2}([ -])[2-9]\d{2}\1\d{4}", _A)
_STREET_TYPES = (r"Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
                 r"Terrace|Ter|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq")
_ADDRESS = re.compile(
    r"\b\d{1,6}(?: [NSEW]|(?: (?:NE|NW|SE|SW|North|South|East|West)))?"
    r"(?: [A-Z][a-z]+| \d{1,3}(?:st|nd|rd|th)){1,3} (?:" + _STREET_TYPES + r")\b"
    r"(?:,? (?:Suite|Ste|Apt|Unit|#) ?\w+)?"
    r"(?:, [A-Z][a-z]+(?: [A-Z][a-z]+)?, [A-Z]{2} \d{5}(?:-\d{4})?)?", _A)
_NON_DIGIT = re.compile(r"[^0-9]")
_DIGITS = frozenset("0123456789")
_JOINERS = frozenset(" .-/")  # what joins the groups of a number


def _card_prefix_ok(digits: str) -> bool:
    """Issuer prefixes: 3 (Amex, Diners, JCB), 4 (Visa), 5 (Mastercard, Maestro), 6 (Discover,
    UnionPay, Maestro) and Mastercard's 2-series (2221-2720, 16 digits)."""
    if digits[0] in "3456":
        return True
    return digits[0] == "2" and len(digits) == 16 and 2221 <= int(digits[:4]) <= 2720


def _valid_card(digits: str) -> bool:
    return (13 <= len(digits) <= 19 and _card_prefix_ok(digits) and luhn_valid(digits)
            and len(set(digits)) > 1)


def _is_word_end(text: str, k: int) -> bool:
    """Whether no ASCII letter, digit or underscore stands at ``text[k]`` (or ``k`` is outside the text)."""
    if k < 0 or k >= len(text):
        return True
    c = text[k]
    return not (c.isascii() and (c.isalnum() or c == "_"))


def _group_before(text: str, a: int, sep: str, sizes: tuple[int, int]) -> bool:
    """Whether a neighbour of the same shape ends just before ``text[a]``: ``sep``, and before it
    a whole word of ``sizes[0]``..``sizes[1]`` digits that is neither a country code ("+001")
    nor the end of a number written with another separator ("646-3490", "2001-05-14")."""
    if a < 2 or text[a - 1] != sep:
        return False
    k = a - 1
    while k > 0 and text[k - 1] in _DIGITS:
        k -= 1
    if not sizes[0] <= a - 1 - k <= sizes[1] or not _is_word_end(text, k - 1):
        return False
    if k >= 1 and text[k - 1] == "+":
        return False
    return not (k >= 2 and text[k - 1] in _JOINERS and text[k - 1] != sep and text[k - 2] in _DIGITS)


def _group_after(text: str, b: int, sep: str, sizes: tuple[int, int]) -> bool:
    """Whether a neighbour of the same shape starts just after ``text[b - 1]`` (the mirror of
    :func:`_group_before`: "24hrs" and "12/25" are not neighbours)."""
    if text[b:b + 1] != sep:
        return False
    k = b + 1
    while k < len(text) and text[k] in _DIGITS:
        k += 1
    if not sizes[0] <= k - b - 1 <= sizes[1] or not _is_word_end(text, k):
        return False
    return not (k + 1 < len(text) and text[k] in _JOINERS and text[k] != sep and text[k + 1] in _DIGITS)


def find_payment_cards(text: str, pos: int = 0) -> list[PiiHit]:
    out: list[PiiHit] = []
    for m in _CARD.finditer(text, pos):
        s, a, b = m.group(0), m.start(), m.end()
        if not _valid_card(_NON_DIGIT.sub("", s)):
            continue
        if " " in s:  # a spaced card: no 4-digit group next to it, unless a neighbouring card
            if _group_before(text, a, " ", (4, 4)) and not (out and out[-1].end == a - 1):
                continue
            if _group_after(text, b, " ", (4, 4) if len(s) - s.rfind(" ") > 4 else (1, 4)):
                nxt = _CARD.match(text, b + 1)
                if nxt is None or not _valid_card(_NON_DIGIT.sub("", nxt.group(0))):
                    continue
        out.append(PiiHit("payment_card", a, b, s))
    return out


def find_national_ids(text: str, pos: int = 0) -> list[PiiHit]:
    """US social security numbers written ``AAA-GG-SSSS`` (or with spaces)."""
    out = []
    for m in _SSN.finditer(text, pos):
        area, group, serial = m.groups()[:3] if m.group(1) is not None else m.groups()[3:]
        if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
            continue
        if m.group(1) is None and (_group_before(text, m.start(), " ", (1, 4))
                                   or _group_after(text, m.end(), " ", (1, 4))):
            continue  # the neighbour rule (see above _CARD)
        out.append(PiiHit("national_id", m.start(), m.end(), m.group(0)))
    return out


def find_ibans(text: str, pos: int = 0) -> list[PiiHit]:
    """IBANs of registered countries, spaced, dashed or run together, in either case: a
    candidate is cut at its country's length (the cut must fall between groups, so "BE68 5390
    0754 7034 BIC" and "... 0130 00 2019" give the IBAN alone) and must pass mod 97."""
    out = []
    m = _IBAN.search(text, pos)
    while m is not None:
        s, start = m.group(0), m.start()
        length = IBAN_LENGTHS.get(s[:2].upper())
        end = None
        if length is not None:
            n = 0
            for i, c in enumerate(s):
                if c not in " -":
                    n += 1
                    if n == length:
                        end = i + 1
                        break
        after = text[start + end:start + end + 1] if end is not None else ""
        if end is not None and not (after.isascii() and (after.isalnum() or after == "_")) \
                and iban_valid(s[:end]):
            out.append(PiiHit("iban", start, start + end, s[:end]))
            m = _IBAN.search(text, start + end)
        else:
            m = _IBAN.search(text, start + 1)
    return out


def _is_dashed_date(number: str) -> bool:
    m = _DASHED_DATE.fullmatch(number)
    if m is None:
        return False
    x, y = (int(m.group(2)), int(m.group(3))) if m.group(1) else (int(m.group(4)), int(m.group(5)))
    return (1 <= x <= 12 and 1 <= y <= 31) or (1 <= y <= 12 and 1 <= x <= 31)


def find_bank_accounts(text: str) -> list[PiiHit]:
    """Account or routing numbers introduced by a keyword ("account no. 123456789", "routing
    021000021"). A date after the keyword ("account 05-14-2001") is not an account number, nor
    is a NANP phone number ("account: 713 853 5620") unless the keyword names the number
    ("account no. 713 853 5620", "acct # 713-853-5620")."""
    out = []
    for m in _ACCOUNT.finditer(text):
        number = m.group(3)
        digits = _NON_DIGIT.sub("", number)
        if not 6 <= len(digits) <= 17 or _is_dashed_date(number):
            continue
        if m.group(1) is None and m.group(2) != "#" and _NANP_SHAPE.fullmatch(number):
            continue
        keyword = m.group(0).lower()
        if ("rout" in keyword or "aba" in keyword) and not aba_valid(digits):
            continue
        out.append(PiiHit("bank_account", m.start(3), m.end(3), number))
    return out


def find_phones(text: str, pos: int = 0) -> list[PiiHit]:
    out = []
    for m in _PHONE.finditer(text, pos):
        s, a, b = m.group(0), m.start(), m.end()
        digits = _NON_DIGIT.sub("", s)
        if not 10 <= len(digits) <= 15:
            continue
        if s[0] != "+" and "(" not in s:  # the neighbour rule (see above _CARD)
            seps = [c for c in s if c in " .-"]
            if seps and seps[0] != "-" and _group_before(text, a, seps[0], (1, 4)):
                continue
            if seps and _group_after(text, b, seps[-1], (1, 4)):
                continue
        out.append(PiiHit("phone", a, b, s))
    return out


def find_dates_of_birth(text: str) -> list[PiiHit]:
    """A date within a few words after "born", "DOB", "date of birth" or "birthday" (month
    names in any case: "March 3, 1970", "3-Mar-1970", "the 3rd of March 1970", "March third, 1970")."""
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


_MIN_DIGITS = {"payment_card": 13, "iban": 2, "national_id": 9, "date_of_birth": 3, "bank_account": 6, "phone": 10,
               "street_address": 1}
_DOB_KEY = re.compile(r"born|d\.?o\.?b|birth", _A)
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
    "payment_card": (re.compile(r"\d[\d -]{11,}\d", _A), 0),          # 13+ digits, spaces and dashes
    "iban": (re.compile(r"[A-Za-z][A-Za-z]\d\d", _A), 0),
    "national_id": (re.compile(r"\d\d\d[- ]\d\d[- ]\d\d\d\d", _A), 0),
    "phone": (re.compile(r"\d\d\d[ .-]\d\d\d\d", _A), 12),          # "+1 (212) " before "555-0100"
    "street_address": (re.compile(r"\d [A-Z\d]", _A), 6),               # house number's last digit
}
_PHONE_PLUS = re.compile(r"\+(?:[2-9]|1\d{10})", _A)  # international, or "+1" and ten digits unspaced
_STREET_END = re.compile(r"[a-z] (?:" + _STREET_TYPES + r")\b", _A)  # "...Elm Street", "...5th Ave"
# For ASCII text, where matching case-insensitively is lower-casing, tighter keyword tests:
# the keyword, then what may stand between it and the first digit or month name of a hit (for a
# date of birth at most: the rest of the keyword, 20 characters, an ordinal word and " of ").
_ASCII_KEYWORDS = {
    "date_of_birth": re.compile(r"(?:born|d\.?o\.?b|birth)[^\n]{0,60}?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", _A),
    "bank_account": re.compile(r"(?:account|acct|a/c|routing|aba)\.?(?: ?(?:no\.?|number|num|#))?\s*[:#]?\s*\d", _A),
}


def _scan_from(kind: str, text: str) -> Optional[int]:
    need = _NEED.get(kind)
    if need is None:
        return 0
    m = need[0].search(text)
    if kind == "phone":
        intl = _PHONE_PLUS.search(text)
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
    for kind in PII_PRECEDENCE:
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
