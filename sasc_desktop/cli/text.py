"""Text from mail made safe to print on a terminal (no engine imports: main uses it early)."""
from __future__ import annotations

import codecs
import sys
import unicodedata
from typing import Any


# A header or body is the sender's text: a control character in it (an encoded-word newline, a
# carriage return, ESC starting an ANSI or OSC sequence, a C1 control) would break the
# one-line-per-hit listings or reach the terminal as a command (colours, a window title, a
# hyperlink, a cleared screen), and a bidi override would reorder what is shown. Plain output
# shows each such character escaped instead (\n, \x1b, \u202e). JSON output is already escaped.
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))


def _escape(cp: int) -> str:
    return {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(cp) or (f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}")


_ONE_LINE = {cp: _escape(cp) for cp in (*range(0x20), *range(0x7F, 0xA0), *_BIDI, 0x2028, 0x2029)}
_TEXT = {cp: e for cp, e in _ONE_LINE.items() if cp not in (0x09, 0x0A, 0x2028, 0x2029)}


def one_line(value: Any) -> str:
    """``value`` as text for one line of a listing: every control character (newlines, tabs and
    carriage returns too), line separator and bidi control written as an escape."""
    return "" if value is None else str(value).translate(_ONE_LINE)


def safe_text(value: Any) -> str:
    """``value`` (a message body) as text for a terminal: its lines and tabs kept (a CRLF is a
    line end), every other control character and bidi control written as an escape."""
    return "" if value is None else str(value).replace("\r\n", "\n").translate(_TEXT)


def stream_is_utf8(stream=None) -> bool:
    """Whether ``stream`` (stdout) encodes text as UTF-8 (any spelling of it)."""
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        return codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")
    except LookupError:
        return False


def _width(ch: str) -> int:
    """Terminal columns ``ch`` takes: 2 for East Asian wide and full-width characters (CJK, most
    emoji), 0 for combining marks and format characters, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def cell(value: Any, width: int, stream=None) -> str:
    """``value`` as one column of a listing, exactly ``width`` terminal columns wide: controls
    escaped (``one_line``); on a stream that is not UTF-8, the characters its encoding lacks
    escaped *before* the cut (the stream would widen them after it); then cut and padded by
    display width, so a Japanese sender (two columns a character) or an escaped one does not
    push the next column along."""
    text = one_line(value)
    stream = stream or sys.stdout
    if not stream_is_utf8(stream):
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            text = text.encode(encoding, "backslashreplace").decode(encoding)
        except (LookupError, UnicodeError):
            text = text.encode("ascii", "backslashreplace").decode("ascii")
    out, used = [], 0
    for ch in text:
        w = _width(ch)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(out) + " " * (width - used)
