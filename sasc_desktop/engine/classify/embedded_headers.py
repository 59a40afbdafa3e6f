"""Header blocks embedded in message bodies, stripped before sensitivity features are extracted.

Replies and forwards carry the headers of the mail they quote: Outlook's "-----Original
Message-----" followed by From/Sent/To/Cc/Subject lines, Lotus Notes' "---------------------
Forwarded by Name/Org on 05/14/2001 10:22 AM -----" and "Name/Org@Org on 05/14/2001 10:22 AM"
lines with To/cc lists wrapped over several lines, and e-mail and Notes addresses. These are
names, dates and routing, not what anyone wrote: :func:`strip_embedded_headers` drops them and
keeps all written text, new and quoted (honest nested CV on enron-categories-dev, Dana
Whitfield: see the measured result in :mod:`.model`).

The rules, line by line:

* A *block opener* is dropped and opens a header block: a separator ("-----Original Message",
  "--- Forwarded by", a line beginning "Forwarded by ... on <digit>", a line of 5+ dashes or
  underscores and nothing else), a line that is only a date and time ("05/14/2001 10:22 AM"), or a Lotus
  "Name/Org@Org on 05/14/2001 10:22 AM" line (an "@" or "/" within its first 80 characters).
* A *header line* ("From:", "To:", "cc:", "bcc:", "Sent:", "Sent by:", "Date:", "Subject:",
  "Importance:") is dropped when it is in a block or just after one (blank lines between), when
  it has no value, names addresses (a third of its words hold "@" or "/") or a date and time,
  or when the line after it is a header, date, Lotus or address line. Otherwise
  it is prose and kept: "To: be honest, ..." alone is a sentence. A header line opens (or
  continues) a block, except "Subject:", which ends it (the quoted text follows).
* In a block, a blank line ends it (and is dropped); a line of addresses (a third of its words
  hold "@" or "/") or one starting "AM"/"PM" is dropped; after a From/To/cc/bcc/Sent by line or a
  Lotus sender line (a recipient list that may wrap) a short line of names ("Jane Roe, John
  Doe", < 40 characters of letters, digits, spaces and , . ' -) is dropped too. Every other line is
  kept. A block lasts at most 25 lines.
* Finally every word holding an "@" between two other characters is replaced by a space.

Departures from the research prototype, each of which dropped ordinary text: it dropped a lone
header-like line in prose ("To: be honest, ...", "Date: Every Thursday" in a notice); it dropped
every short plain line for up to 25 lines after any block opener, so the rows of a table under a
"-----" rule, a signature under "_____" and the short last lines of wrapped paragraphs in news
digests went too (short lines now go only as the continuation of a recipient list); and it
dropped a prose line with "forwarded by ... on <digit>" anywhere in it.

Speed (scoring reads every body through this): lines are only looked at from a line that may
open a block or be a header line, found with str.find for "---", "___", ":" (a regular
expression only at each ":") and "forwarded by"; the text between blocks is copied as it is, and
a body with no such line and no "@" is returned as it is (the same object). About 10-25 us per
demo message and 0.2-0.3 ms per enron-categories-dev message (6,400 characters, most of them
forwards) on one loaded core; the prototype's line loop took 10-20 times as long.
"""
from __future__ import annotations

import re

__all__ = ["strip_embedded_headers"]

_HDR = re.compile(r"\s*(from|to|cc|bcc|sent by|sent|date|subject|importance)\s*:", re.I)
_RECIPIENTS = frozenset({"from", "to", "cc", "bcc", "sent by"})
_SEP = re.compile(r"-{3,}\s*(?:forwarded by|original message)|^\W*forwarded by .* on \d|^\s*-{5,}\s*$|^\s*_{5,}\s*$",
                  re.I)
_LOTUS_FROM = re.compile(r".{0,80}[@/]\S*\s+on\s+\d{1,2}/\d{1,2}/\d{2,4}\s+\d{1,2}:\d{2}", re.I)
_DATE_LINE = re.compile(r"\s*\d{1,2}/\d{1,2}/\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:AM|PM)?\s*$", re.I)
_DATE_TIME = re.compile(r"\d{1,2}/\d{1,2}/\d{2,4}\s+\d{1,2}:\d{2}")
_AM_PM = re.compile(r"\s*(?:AM|PM)\b")
_NAME_FRAGMENT = re.compile(r"[\w ,.'-]*")
_FORWARDED = re.compile(r"forwarded by", re.I)
_BLOCK = 25  # the most lines a header block lasts


def _addresses_line(line: str) -> bool:
    """Whether at least 30% of the line's words hold an "@" or a "/"."""
    words = line.split()
    return bool(words) and sum(1 for w in words if "@" in w or "/" in w) / len(words) >= 0.3


def _opener(line: str) -> bool:
    """A separator, a date-and-time line or a Lotus sender line: it opens a header block. (The
    substring tests only skip regular expressions that cannot match.)"""
    if ("---" in line or "___" in line or "forwarded by" in line.lower()) and _SEP.search(line) is not None:
        return True
    return ":" in line and (_DATE_LINE.match(line) is not None or _LOTUS_FROM.match(line) is not None)


def _header_like(line: str) -> bool:
    """A header, date-and-time, Lotus sender or address line: what follows a header line."""
    return (":" in line and (_HDR.match(line) is not None or _DATE_LINE.match(line) is not None
                             or _LOTUS_FROM.match(line) is not None)) or _addresses_line(line)


def _next_trigger(body: str, pos: int, forwarded: bool) -> int:
    """The start of the first line at or after ``pos`` (a line start) that may open a block or be a
    header line, or -1. Every such line holds "---" or "___" (separators), "forwarded by", or a
    ":" after a digit with a "/" before it on its line (a date and time) or after a header name
    at the line's start: found with
    str.find, a regular expression only at each ":"."""
    n = len(body)
    best = n
    for mark in ("---", "___"):
        i = body.find(mark, pos, best)
        if i >= 0:
            best = i
    if forwarded:
        m = _FORWARDED.search(body, pos, best)
        if m is not None:
            best = m.start()
    i = body.find(":", pos, best)
    while i >= 0:
        start = body.rfind("\n", pos, i) + 1 or pos
        if (body[i - 1].isdigit() and body.find("/", start, i) >= 0) or _HDR.match(body, start) is not None:
            best = i
            break
        i = body.find(":", i + 1, best)
    return -1 if best == n else body.rfind("\n", pos, best) + 1 or pos


def _no_addresses(text: str) -> str:
    """``text`` with every word (a run of non-white-space) that holds an "@" between two other of
    its characters replaced by a space: the regular expression \\S+@\\S+ replaced by " ", as the
    prototype did, without its quadratic backtracking."""
    i = text.find("@")
    if i < 0:
        return text
    pieces, done = [], 0
    while i >= 0:
        start = i
        while start > done and not text[start - 1].isspace():
            start -= 1
        end = _WORD_END.match(text, i).end()
        if text.find("@", start + 1, end - 1) >= 0:   # an "@" neither first nor last
            pieces += (text[done:start], " ")
            done = end
        i = text.find("@", end)
    pieces.append(text[done:])
    return "".join(pieces)


_WORD_END = re.compile(r"\S*")


def strip_embedded_headers(body: str) -> str:
    """``body`` without the header blocks of the mail it quotes or forwards and without e-mail
    and Notes addresses (the rules are in this module's docstring). A body with nothing of the
    kind is returned unchanged (the same object); the result is never longer than the body."""
    forwarded = "forwarded by" in body.lower()
    start = _next_trigger(body, 0, forwarded)
    if start < 0:
        return _no_addresses(body)
    out: list[str] = []      # kept pieces, joined by "\n" (a piece may hold many lines)
    pos = 0                  # start of the first line not yet read
    n = len(body)
    while start >= 0:
        if start > pos:
            out.append(body[pos:start - 1])             # the lines before the trigger, as they are
        pos = start
        block = 0            # lines the block may still last (0: not in a block)
        wrap = False         # in a recipient list that may wrap over lines
        after = False        # a block ended just before (only blank lines since)
        while pos <= n:      # (pos == n: the empty last line after a final "\n")
            end = body.find("\n", pos)
            end = n if end < 0 else end
            line = body[pos:end]
            pos = end + 1
            if _opener(line):
                block, wrap, after = _BLOCK, _LOTUS_FROM.match(line) is not None, False
                continue
            h = _HDR.match(line) if ":" in line else None
            if h is not None:
                nxt = body.find("\n", pos)
                following = body[pos:n if nxt < 0 else nxt] if pos <= n else ""
                if (block or after or not line[h.end():].strip() or _addresses_line(line)
                        or _DATE_TIME.search(line) is not None or _header_like(following)):
                    field = h.group(1).lower()
                    if field == "subject":
                        block, wrap, after = 0, False, True
                    else:
                        block, wrap, after = _BLOCK, field in _RECIPIENTS, False
                    continue
            if not block:
                out.append(line)
                if after and not line.strip():
                    continue
                break        # out of any block: copy up to the next trigger
            s = line.strip()
            block -= 1
            if not s:
                block, after = 0, True
            elif not (_addresses_line(line) or _AM_PM.match(line)
                      or (wrap and len(s) < 40 and _NAME_FRAGMENT.fullmatch(s))):
                out.append(line)
        if pos > n:
            return _no_addresses("\n".join(out))
        start = _next_trigger(body, pos, forwarded)
    out.append(body[pos:])
    return _no_addresses("\n".join(out))
