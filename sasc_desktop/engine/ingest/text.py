"""Decoding text the way mail really is: declared charsets first, then sensible fallbacks."""
from __future__ import annotations

import codecs
import re
from email.header import decode_header
from html.parser import HTMLParser
from html import unescape

# Declared names that lie in the usual way: decode with the superset that mail clients use.
_SUPERSETS = {
    "us-ascii": "cp1252", "ascii": "cp1252", "iso-8859-1": "cp1252", "latin-1": "cp1252",
    "latin1": "cp1252", "iso8859-1": "cp1252", "gb2312": "gb18030", "gbk": "gb18030",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "windows-874": "cp874", "tis-620": "cp874",
    "shift_jis": "cp932", "sjis": "cp932", "x-sjis": "cp932",
}


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip().strip('"\'').lower()
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, str | None]:
    """Decode ``data`` as mail clients do. Pure ASCII is ASCII. A declared single-byte charset
    whose bytes are in fact valid UTF-8 is UTF-8 (the commonest lie); otherwise the declared
    charset (or its usual superset), then UTF-8, then cp1252; bytes that fit none are replaced.
    Returns (text, note); the note says what was repaired, or None."""
    if data.isascii():
        return data.decode("ascii"), None
    name = (declared or "").strip().strip('"\'').lower()
    codec = _codec(_SUPERSETS.get(name, name))
    if codec in _SINGLE_BYTE:
        try:
            return data.decode("utf-8"), f"declared {name or 'no charset'} but the bytes are UTF-8"
        except UnicodeDecodeError:
            pass
    if codec:
        try:
            text = data.decode(codec)
            return text, (f"declared {name} but has 8-bit bytes; decoded as {codec}"
                          if name in ("us-ascii", "ascii") else None)
        except UnicodeDecodeError:
            pass
    why = (f"unknown charset {name!r}" if name and codec is None
           else f"declared {name} but not valid" if name else "no charset declared")
    for fallback in ("utf-8", "cp1252"):
        try:
            return data.decode(fallback), f"{why}; decoded as {fallback}"
        except UnicodeDecodeError:
            continue
    text = data.decode(codec or "utf-8", errors="replace")
    return text, f"{why}; {text.count(chr(0xFFFD))} undecodable byte(s) replaced"


_SINGLE_BYTE = {"cp1252", "iso8859-15", "iso8859-2", "cp1250", "cp1251", "koi8-r", "mac-roman", "ascii"}


def decode_header_value(value) -> tuple[str, list[str]]:
    """A header value (str, or compat32 Header) with RFC 2047 encoded words decoded."""
    if value is None:
        return "", []
    notes: list[str] = []
    try:
        parts = decode_header(value)
    except Exception:  # malformed encoded words: keep the raw text
        return _unfold(str(value)), ["malformed encoded words in a header"]
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, str):
            out.append(chunk)
            continue
        if charset in (None, "unknown-8bit"):
            charset = None if charset is None and all(b < 128 for b in chunk) else "utf-8"
        text, note = decode_bytes(chunk, charset)
        if note:
            notes.append(f"header: {note}")
        out.append(text)
    return _unfold("".join(out)), notes


def _unfold(text: str) -> str:
    return re.sub(r"\r?\n[ \t]+", " ", text).strip()


_BLOCK = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
          "blockquote", "pre", "hr", "section", "article", "header", "footer", "dt", "dd", "title"}
_SKIP = {"script", "style", "head", "noscript", "template", "svg", "object", "iframe"}


class _TextExtractor(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP:
            self.skip += 1
        elif tag in _BLOCK:
            self.out.append("\n")
            if tag == "li":
                self.out.append("- ")
        elif tag in ("td", "th"):
            self.out.append("\t")

    def handle_startendtag(self, tag, attrs):
        if tag in ("br", "hr"):
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCK:
            self.out.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def html_to_text(html: str) -> str:
    """Readable text from HTML: no scripts, styles or remote content, blocks on their own lines."""
    parser = _TextExtractor()
    try:
        parser.feed(html)
        parser.close()
        text = "".join(parser.out)
    except Exception:  # HTMLParser is lenient, but never let a page stop an import
        text = unescape(re.sub(r"<[^>]*>", " ", html))
    text = text.replace("\xa0", " ")
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_PREFIX = re.compile(r"^\s*((re|fw|fwd|aw|sv|wg|antw|tr|rif)(\[\d+\])?\s*:\s*|\[[^\]]{1,40}\]\s*)+", re.I)


def normalise_subject(subject: str) -> str:
    """Subject for threading: reply/forward prefixes and list tags removed, case folded."""
    return re.sub(r"\s+", " ", _PREFIX.sub("", subject or "")).strip().casefold()


def is_reply_or_forward(subject: str) -> bool:
    return bool(re.match(r"^\s*(re|fw|fwd|aw|sv|wg)(\[\d+\])?\s*:", subject or "", re.I))


_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"|?*\\/]')


def safe_filename(name: str, fallback: str = "attachment") -> str:
    """A file name that can never leave the folder it is written to: no path parts, no
    control characters, no leading dots, not empty, at most 150 characters."""
    name = (name or "").replace("\\", "/").split("/")[-1]
    name = _UNSAFE.sub("_", name).strip().lstrip(".").strip()
    if name in ("", ".", ".."):
        name = fallback
    if len(name) > 150:
        stem, dot, ext = name.rpartition(".")
        name = (stem[: 150 - len(ext) - 1] + "." + ext) if dot and len(ext) <= 10 else name[:150]
    return name
