"""Decoding text the way mail really is: declared charsets first, then sensible fallbacks."""
from __future__ import annotations

import codecs
import re
import unicodedata
from email.header import decode_header
from functools import lru_cache
from html.parser import HTMLParser
from html import unescape

# Declared names that lie in the usual way: decode with the superset that mail clients use.
_SUPERSETS = {
    "us-ascii": "cp1252", "ascii": "cp1252", "iso-8859-1": "cp1252", "latin-1": "cp1252",
    "latin1": "cp1252", "iso8859-1": "cp1252", "gb2312": "gb18030", "gbk": "gb18030",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "windows-874": "cp874", "tis-620": "cp874",
    "shift_jis": "cp932", "sjis": "cp932", "x-sjis": "cp932",
}


def _name(declared: str | None) -> str:
    return (declared or "").strip().strip('"\'').lower()


@lru_cache(maxsize=256)
def _codec(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip().strip('"\'').lower()
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    # Only a text encoding is a charset: Python's bytes-to-bytes codecs (hex, base64, rot13,
    # zlib, uu: bytes.decode refuses them with a LookupError) and 'undefined' (which refuses
    # every byte) are unknown charsets, read as such.
    if not getattr(info, "_is_text_encoding", True) or info.name == "undefined":
        return None
    return info.name


# A surrogate code point is no character: UTF-8 (and so SQLite) cannot hold one. Python's
# UTF-7 decoder makes one of half a UTF-16 pair ('+2D0-' -> '\ud83d'), as the unicode-escape
# codecs do of '\\ud83d'; the stdlib's RFC 2231 decoding of 'utf-7' file names too.
_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> tuple[str, int]:
    """``text`` with every surrogate code point (half a UTF-16 pair, no character on its own)
    replaced by U+FFFD, and how many were."""
    if text.isascii():
        return text, 0
    return _SURROGATE.subn("\ufffd", text)


def surrogates_note(n: int) -> str:
    return f"{n} lone surrogate(s) (half a UTF-16 pair, no character) replaced by U+FFFD"


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, str | None]:
    """:func:`decode_charset`, with any lone surrogate its codec made (UTF-7's '+2D0-')
    replaced by U+FFFD and said so in the note."""
    text, note = decode_charset(data, declared)
    text, n = without_surrogates(text)
    if n:
        note = (note + "; " if note else "") + surrogates_note(n)
    return text, note


def decode_charset(data: bytes, declared: str | None) -> tuple[str, str | None]:
    """Decode ``data`` as mail clients do. Pure ASCII is ASCII. A declared single-byte charset
    whose bytes are in fact valid UTF-8 is UTF-8 (the commonest lie); otherwise the declared
    charset (or its usual superset), then UTF-8, then cp1252; bytes that fit none are replaced.
    Returns (text, note); the note says what was repaired, or None. A charset written in 7-bit
    bytes that do not mean what they mean in ASCII (ISO-2022-JP/KR, UTF-7, HZ: escape
    sequences, shifts, modified base64) is decoded as declared, also when every byte is ASCII
    (it always is); only bytes that are not valid in it are taken as ASCII, with a note."""
    if data.isascii():
        codec = _codec(declared) if declared else None
        if codec is None or not _is_seven_bit(codec):
            return data.decode("ascii"), None
        try:
            return data.decode(codec), None
        except (UnicodeError, LookupError):
            return data.decode("ascii"), f"declared {_name(declared)} but not valid; decoded as ascii"
    name = _name(declared)
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
        except (UnicodeError, LookupError):  # (not its bytes; a codec that fails otherwise)
            pass
    why = (f"unknown charset {name!r}" if name and codec is None
           else f"declared {name} but not valid" if name else "no charset declared")
    for fallback in ("utf-8", "cp1252"):
        try:
            return data.decode(fallback), f"{why}; decoded as {fallback}"
        except UnicodeDecodeError:
            continue
    try:
        text = data.decode(codec or "utf-8", errors="replace")
    except (UnicodeError, LookupError):
        text = data.decode("utf-8", errors="replace")
    return text, f"{why}; {text.count(chr(0xFFFD))} undecodable byte(s) replaced"


def _is_seven_bit(codec: str) -> bool:
    """Whether ``codec`` writes its text in 7-bit bytes that are not ASCII's text: ASCII bytes
    declared so must be decoded so."""
    return codec.startswith("iso2022_") or codec in ("utf-7", "hz")


_SINGLE_BYTE = {"cp1252", "iso8859-15", "iso8859-2", "cp1250", "cp1251", "koi8-r", "mac-roman", "ascii"}


def read_undeclared(data: bytes, fallback: str | None = None) -> tuple[str, str | None]:
    """Header bytes no charset was declared for (raw 8-bit bytes, not RFC 2047 encoded), as
    mail clients read them: UTF-8 when they are valid UTF-8, else the charset the message
    declares for its text (``fallback``: a sender that writes 8-bit headers writes them in it),
    else cp1252 (its 5 undefined bytes replaced). Returns (text, the codec used; None for
    ASCII)."""
    if data.isascii():
        return data.decode("ascii"), None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    name = _name(fallback)
    codec = _codec(_SUPERSETS.get(name, name))
    if codec and codec not in ("utf-8", "cp1252") and not _is_seven_bit(codec):
        try:
            text = without_surrogates(data.decode(codec))[0]
            if not _C1.search(text):  # (C1 controls: the bytes are not in that charset)
                return text, codec
        except (UnicodeError, LookupError):
            pass
    return data.decode("cp1252", errors="replace"), "cp1252"


_C1 = re.compile("[\x80-\x9f]")


def decode_undeclared(data: bytes, fallback: str | None = None) -> tuple[str, str | None]:
    """:func:`read_undeclared` -> (text, note): how bytes that are not UTF-8 were read (None
    for ASCII or UTF-8)."""
    text, codec = read_undeclared(data, fallback)
    if codec in (None, "utf-8"):
        return text, None
    how = "the charset the message declares" if codec != "cp1252" else ""
    replaced = text.count("\ufffd") if codec == "cp1252" else 0
    return text, ("undeclared 8-bit bytes, not UTF-8; decoded as " + codec + (f", {how}" if how else "")
                  + (f"; {replaced} undecodable byte(s) replaced" if replaced else ""))


def decode_header_value(value, fallback: str | None = None) -> tuple[str, list[str]]:
    """A header value (str, or compat32 Header) with RFC 2047 encoded words decoded. The value
    is unfolded first: the whitespace of a fold is a space between words, dropped only between
    two encoded words (RFC 2047 6.2); email.header.decode_header reads a folded value line by
    line and drops each line's leading whitespace, gluing 'Lucía Fernández' to '<l@x.com>'.
    Raw 8-bit bytes (no charset declared) are read by :func:`decode_undeclared`, ``fallback``
    being the charset the message declares for its text."""
    if value is None:
        return "", []
    if isinstance(value, str):
        value = _unfold(value)
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
            text, note = decode_undeclared(chunk, fallback)
        else:
            text, note = decode_bytes(chunk, charset)
        if note:
            notes.append(f"header: {note}")
        out.append(text)
    text, n = without_surrogates(_unfold("".join(out)))  # (decoded parts have none: what was not decoded)
    if n:
        notes.append(f"header: {surrogates_note(n)}")
    return text, notes


def _unfold(text: str) -> str:
    return re.sub(r"\r?\n[ \t]+", " ", text).strip()


_BLOCK = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
          "blockquote", "pre", "hr", "section", "article", "header", "footer", "dt", "dd", "title",
          "noscript", "object", "iframe", "svg", "math", "noframes", "template"}
# Content never shown: scripts and styles (raw text: HTMLParser hands it over whole) and
# templates (inert). Fallback content is shown: <noscript> (what a reader sees when no script
# runs), <object> and <iframe> (nothing remote is loaded), and SVG / MathML text.
_RAW = {"script", "style"}
_HIDDEN = _RAW | {"template"}
# What may stand in a <head> (HTML's "in head" rules). Anything else ends the head, as in a
# browser, also where </head> is missing: <body>, any other start tag, text outside its <title>.
_HEAD_CONTENT = {"base", "basefont", "bgsound", "link", "meta", "title", "noscript", "noframes",
                 "style", "script", "template"}
_HEAD_ENDERS = {"head", "body", "html", "br"}  # end tags that end the head
_FIRST_TAG = re.compile(r"<[A-Za-z/!?]")
# Whitespace: HTML collapses each run of it in text to one space (a newline in the source is
# no line break), except in preformatted text (<pre>, <listing>, <textarea>, and an element
# styled white-space: pre / pre-wrap / break-spaces), which is shown as written.
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")
_PRE_TAGS = {"pre", "listing", "textarea"}
_WHITE_SPACE = re.compile(r"white-space\s*:\s*([a-z-]+)", re.I)
_PRESERVING = {"pre", "pre-wrap", "break-spaces"}
# Stand-ins (Unicode noncharacters, taken out of the HTML first) that _tidy leaves alone: the
# spaces and tabs of preformatted text, and the tab between two table cells.
_PRE_SPACE, _PRE_TAB, _CELL, _PRE_NEWLINE = "\ufdd0", "\ufdd1", "\ufdd2", "\ufdd3"
_NONCHARS = {ord(_PRE_SPACE): None, ord(_PRE_TAB): None, ord(_CELL): None, ord(_PRE_NEWLINE): None}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
         "track", "wbr", "basefont", "bgsound", "frame", "keygen"}
_MAX_REREADS = 20  # unended scripts or styles read past in one document; then the tags are stripped


class _TextExtractor(HTMLParser):
    """The text a reader sees. Content not shown (scripts, styles, templates, the head and its
    title) is held aside while its element is open and dropped when the element ends. An
    element the document never ends gives its text back: it must not swallow the rest of the
    document. A script or style the document never ends ends where its first tag begins."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden: list[tuple[str, list[str]]] = []  # open elements not shown, innermost last
        self.head = "before"                           # before | in | after (the head)
        # Elements that set how whitespace is shown, innermost last: [tag, preserves it, how
        # many elements of the same name are open inside it].
        self.spacing: list[list] = []
        self.after_pre_tag = False                     # a newline right after <pre> is not shown

    def _text(self, data: str) -> None:
        """Text as shown: whitespace collapsed, or, in preformatted text, kept as written."""
        after_pre_tag, self.after_pre_tag = self.after_pre_tag, False
        if self.spacing and self.spacing[-1][1]:
            data = data.replace("\r\n", "\n").replace("\r", "\n")
            if after_pre_tag and data.startswith("\n"):
                data = data[1:]
            self._emit(data.replace(" ", _PRE_SPACE).replace("\xa0", _PRE_SPACE).replace("\t", _PRE_TAB)
                       .replace("\n", _PRE_NEWLINE))   # (blank lines kept too)
        else:
            self._emit(_HTML_SPACE.sub(" ", data))

    def _spacing_start(self, tag: str, attrs, closed: bool) -> None:
        if closed or tag in _VOID:
            return
        style = next((v for k, v in attrs or () if k == "style" and v), None)
        found = _WHITE_SPACE.search(style) if style else None
        if tag in _PRE_TAGS or found:
            keeps = found.group(1).lower() in _PRESERVING if found else True
            self.spacing.append([tag, keeps, 0])
            self.after_pre_tag = tag in _PRE_TAGS
        elif self.spacing and self.spacing[-1][0] == tag:
            self.spacing[-1][2] += 1

    def _spacing_end(self, tag: str) -> None:
        if self.spacing and self.spacing[-1][0] == tag:
            if self.spacing[-1][2]:
                self.spacing[-1][2] -= 1
            else:
                self.spacing.pop()

    def _emit(self, text: str) -> None:
        (self.hidden[-1][1] if self.hidden else self.out).append(text)

    def _top(self) -> str:
        return self.hidden[-1][0] if self.hidden else ""

    def _close(self, tag: str) -> None:
        """End the innermost open hidden ``tag`` (and the hidden elements inside it)."""
        for i in range(len(self.hidden) - 1, -1, -1):
            if self.hidden[i][0] == tag:
                del self.hidden[i:]
                return

    def _end_head(self) -> None:
        if self.head == "in":
            self._close("head")
        self.head = "after"

    def _in_head(self) -> bool:
        """In the head itself or its title (not in a script, style or template there)."""
        return self.head == "in" and self._top() in ("head", "title")

    def handle_starttag(self, tag, attrs):
        self.after_pre_tag = False
        self._start(tag, closed=False)
        self._spacing_start(tag, attrs, closed=False)

    def handle_startendtag(self, tag, attrs):
        self.after_pre_tag = False
        self._start(tag, closed=True)

    def _in_template(self) -> bool:
        return any(tag == "template" for tag, _ in self.hidden)

    def _start(self, tag: str, closed: bool) -> None:
        if self._in_template():  # inert content: its layout only (it is shown if never ended)
            if tag in _HIDDEN and not closed:
                self.hidden.append((tag, []))
            elif tag in _BLOCK or tag in ("td", "th"):
                self._emit(_CELL if tag in ("td", "th") else "\n")
            return
        if tag == "head":  # only before anything else (a browser ignores a later one)
            if self.head == "before" and not closed:
                self.head = "in"
                self.hidden.append(("head", []))
            return
        if tag == "html":
            return
        if self._in_head():
            if tag not in _HEAD_CONTENT:
                self._end_head()
            elif tag == "title":
                if not closed:
                    self._close("title")
                    self.hidden.append(("title", []))
                return
        elif self.head == "before" and tag not in _HEAD_CONTENT:
            self.head = "after"
        if tag in _HIDDEN:
            if not closed:
                self.hidden.append((tag, []))
        elif tag in ("br", "hr"):
            self._emit("\n")
        elif tag in _BLOCK:
            self._emit("\n")
            if tag == "li":
                self._emit("- ")
        elif tag in ("td", "th"):
            self._emit(_CELL)

    def handle_endtag(self, tag):
        self.after_pre_tag = False
        self._spacing_end(tag)
        if tag in _HIDDEN or (tag == "title" and self._in_head()):
            self._close(tag)
        elif tag in _HEAD_ENDERS and self.head != "after" and not self._in_template():
            self._end_head()
            if tag == "br":
                self._emit("\n")
        elif tag in _BLOCK:
            self._emit("\n")

    def handle_data(self, data):
        if data.strip():
            if self._in_head() and self._top() == "head":
                self._end_head()  # text in the head is shown: the head ended before it
            elif self.head == "before":
                self.head = "after"
        self._text(data)

    def close(self) -> None:
        super().close()
        reread = 0
        while True:  # elements the document never ended, innermost first
            # HTMLParser leaves what follows an unended script or style unread (newer Pythons
            # hand it over as its text, and read more elements as raw text): such an element
            # ends where its first tag begins, and the rest is read as the document it is.
            rest = self.rawdata if getattr(self, "cdata_elem", None) else ""
            self.clear_cdata_mode()
            self.rawdata = ""
            if self._top() in _RAW:
                rest = "".join(self.hidden.pop()[1]) + rest  # script or style: not shown
                found = _FIRST_TAG.search(rest)
                rest = rest[found.start():] if found else ""
            elif rest:  # another element read as raw text: shown
                found = _FIRST_TAG.search(rest)
                self._text(rest[:found.start()] if found else rest)
                rest = rest[found.start():] if found else ""
            elif self.hidden:  # a template, the head, its title: gives back its text
                self._emit("".join(self.hidden.pop()[1]))
                continue
            else:
                return
            if rest and reread >= _MAX_REREADS:  # each re-read reads the rest again: bounded
                self._text(_crude_text(rest))
            elif rest:
                reread += 1
                self.feed(rest)
                super().close()


# What a reader could see in HTML, roughly: what is left once comments, scripts, styles,
# templates and titles are taken out with the tags (in linear time, whatever the document).
_NOT_SHOWN = re.compile(r"<!--|<(script|style|template|title)\b", re.I)
_TAG = re.compile(r"<[^<>]*>")
_TAG_REST = re.compile(r"[^<>]*>")


def _crude_text(html: str) -> str:
    low = html.lower()
    out: list[str] = []
    pos = 0
    unended: set[str] = set()  # no end after some point: none later has one either
    while (found := _NOT_SHOWN.search(html, pos)) is not None:
        out.append(html[pos:found.start()])
        name = (found.group(1) or "--").lower()
        end = -1
        if name not in unended:
            end = low.find("-->" if name == "--" else "</" + name, found.end())
            if end < 0:
                unended.add(name)
            elif name == "--":
                end += 3
            else:
                rest = _TAG_REST.match(html, end + 1)
                end = rest.end() if rest else end + 2 + len(name)
        if end < 0:  # never ended: only the tag goes
            rest = _TAG_REST.match(html, found.end())
            end = rest.end() if rest else found.end()
        out.append(" ")
        pos = end
    out.append(html[pos:])
    return unescape(_TAG.sub(" ", "".join(out)))


# HTMLParser reads a construct it cannot finish (a tag with no '>' after it, a comment with no
# '-->') to the end of the document, takes its first characters as text and reads the next one
# the same way: quadratic in a document of many such ('<a ' * 12000, 36 KB: 24 s). Its regular
# expression for start tags is the slow one (~100 ns a character), find() for the others is
# ~16 times faster. A document it would read so again and again is taken with the tags stripped.
_OPENER = re.compile(r"<[A-Za-z/!?]")
_COMMENT_CLOSE = re.compile(r"--\s*>")
_SECTION_CLOSE = re.compile(r"\]\s*>")
MAX_REREAD = 1_000_000   # characters HTMLParser may read again beyond 8 per character of the document


def reread_cost(html: str) -> int:
    """An estimate of the characters HTMLParser reads again in ``html`` (weighted as its start
    tag regular expression): each construct after the last of its possible ends is read to the
    end of the document. Linear in the length of ``html``."""
    n = len(html)
    last_gt = html.rfind(">")
    cost = 0
    for m in _OPENER.finditer(html, last_gt + 1):
        i = m.start()
        cost += (n - i) if html[i + 1].isalpha() else (n - i) // 16
    for opener, close in (("<!--", _COMMENT_CLOSE), ("<![", _SECTION_CLOSE)):
        if html.find(opener, 0, last_gt) < 0:
            continue
        ends = -1
        for ends in (m.end() for m in close.finditer(html)):
            pass
        i = html.find(opener, max(ends, 0), last_gt)
        while 0 <= i < last_gt:  # (those after the last '>' are counted above)
            cost += (n - i) // 16
            i = html.find(opener, i + len(opener), last_gt)
    return cost


def _html_text(html: str) -> tuple[str, bool]:
    """(the text, whether it was taken with the tags stripped because HTMLParser would take
    too long over this document: see :func:`reread_cost`)."""
    html = html.translate(_NONCHARS)
    if reread_cost(html) > MAX_REREAD + 8 * len(html):
        return _tidy(_crude_text(html)), True
    return _parsed_text(html), False


def _parsed_text(html: str) -> str:
    """The text HTMLParser finds (however long it takes)."""
    parser = _TextExtractor()
    try:
        parser.feed(html)
        parser.close()
        text = "".join(parser.out)
    except Exception:  # HTMLParser is lenient, but never let a page stop an import
        text = _crude_text(html)
    return _tidy(text)


def html_to_text(html: str) -> str:
    """Readable text from HTML: no scripts, styles or remote content, blocks on their own lines."""
    return _html_text(html)[0]


def _tidy(text: str) -> str:
    """Runs of spaces made one, at most one blank line, none at either end; a tab between two
    table cells (none before a row's first or after its last); preformatted text as written,
    blank lines inside it too."""
    text = text.replace("\xa0", " ")
    # A preformatted block's line breaks at its very start or end meet the block's own: those
    # collapse as any (at most one blank line); the ones inside it are kept, blank lines too.
    edge = lambda m: "\n" * m.group().count(_PRE_NEWLINE)  # noqa: E731
    text = re.sub(f"(?:^|(?<=\n))[ \t]*{_PRE_NEWLINE}+", edge, text)
    text = re.sub(f"{_PRE_NEWLINE}+(?=[ \t\r\f\v]*(?:\n|$))", edge, text)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(f" *(?:{_CELL} *)+", "\t", text)
    text = re.sub(r"[ \t]*\n[ \t]*", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text.replace(_PRE_SPACE, " ").replace(_PRE_TAB, "\t").replace(_PRE_NEWLINE, "\n").rstrip()


IRREGULAR = ("its HTML has many tags that are never closed, too many to read as HTML in reasonable time; "
             "the text was taken with the tags stripped")


def html_to_text_checked(html: str) -> tuple[str, str | None]:
    """(text, note): :func:`html_to_text`, and, when that finds no text although the HTML has
    visible characters (letters or digits outside tags, comments, scripts, styles, templates
    and titles), the text with the tags stripped and a note saying so: never silently nothing.
    A document HTMLParser would take too long over is read so too, with a note (IRREGULAR)."""
    text, stripped = _html_text(html)
    if stripped:
        return text, IRREGULAR
    if text:
        return text, None
    crude = _tidy(_crude_text(html.translate(_NONCHARS)))
    if not any(ch.isalnum() for ch in crude):
        return text, None
    return crude, "no readable text was found in its HTML, although it has some; the text was taken with the tags stripped"


_REPLY_PREFIX = r"(?:re|fw|fwd|aw|sv|wg|antw|tr|rif)(?:\[\d+\])?\s*:"  # Re:, Fwd:, AW:, Re[2]: ...
_LIST_TAG = r"\[[^\]]{1,40}\]"                                                # a list's [tag]
_PREFIX = re.compile(rf"^\s*(?:{_REPLY_PREFIX}\s*|{_LIST_TAG}\s*)+", re.I)
_REPLY = re.compile(rf"^\s*(?:{_LIST_TAG}\s*)*{_REPLY_PREFIX}", re.I)


def normalise_subject(subject: str) -> str:
    """Subject for threading: reply/forward prefixes and list tags removed, case folded."""
    return re.sub(r"\s+", " ", _PREFIX.sub("", subject or "")).strip().casefold()


def is_reply_or_forward(subject: str) -> bool:
    """Whether a subject is a reply's or a forward's: it starts with one of the prefixes
    :func:`normalise_subject` strips ('Re:', 'Fwd:', 'AW:', 'SV:', 'Antw:', 'TR:', 'Re[2]:'...),
    after any list tags ('[ILUG] Re: serial console question': a list puts its tag first)."""
    return bool(_REPLY.match(subject or ""))


MAX_NAME_BYTES = 200  # UTF-8 bytes: under every common file system's 255, with room to spare
# Characters no file name may hold on some system (Windows), path separators, and characters
# that look like a path separator where they are shown.
_UNSAFE_CHARS = frozenset('<>:"|?*\\/\u2044\u2215\u29f8\uff0f\uff3c')
# Windows device names: a file named so, with any extension, is the device, not a file.
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
                      | {f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789\u00b9\u00b2\u00b3"})


def _safe_char(ch: str) -> str:
    if ch in _UNSAFE_CHARS:
        return "_"
    cat = unicodedata.category(ch)
    if cat in ("Cf", "Cs"):  # bidi and other format controls (U+202E shows 'exe.PDF'), lone surrogates
        return ""
    return "_" if cat in ("Cc", "Zl", "Zp") else ch


def is_reserved_name(name: str) -> bool:
    """Whether Windows takes ``name`` for a device (CON, aux.txt, 'nul .pdf', COM1...)."""
    return name.split(".", 1)[0].rstrip(" ").upper() in _RESERVED


def _utf8_prefix(text: str, limit: int) -> str:
    return text.encode("utf-8")[:max(limit, 0)].decode("utf-8", "ignore")


def _split_ext(name: str) -> tuple[str, str]:
    """(stem, extension with its dot); an extension is short (<= 16 bytes) and not the whole name."""
    stem, dot, ext = name.rpartition(".")
    if dot and stem and 0 < len(ext.encode("utf-8")) <= 16:
        return stem, "." + ext
    return name, ""


def _fit(stem: str, tail: str) -> str:
    """stem + tail in at most MAX_NAME_BYTES, the stem cut (never the tail: an extension)."""
    stem = _utf8_prefix(stem, MAX_NAME_BYTES - len(tail.encode("utf-8")))
    return (stem.rstrip(" .") or "_") + tail


def safe_filename(name: str, fallback: str = "attachment") -> str:
    """A file name that can never leave the folder it is written to, on any system: no path
    parts, separators or look-alikes, no control or bidi/format characters, no leading dots,
    no trailing dots or spaces, not a Windows device name (prefixed with '_'), not empty, at
    most MAX_NAME_BYTES bytes of UTF-8 (its extension kept), in Unicode NFC."""
    name = (name or "").replace("\\", "/").split("/")[-1]
    name = unicodedata.normalize("NFC", "".join(_safe_char(ch) for ch in name))
    name = name.strip().lstrip(".").strip().rstrip(" .")
    if not name:
        if fallback == "attachment":
            return fallback
        return safe_filename(fallback)
    if is_reserved_name(name):
        name = "_" + name
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        name = _fit(*_split_ext(name))
    return name


def unique_names(names: list[str]) -> list[str]:
    """Safe names made distinct (ignoring case and Unicode form, as Windows and macOS do):
    the first of a name keeps it, the others become 'name (2).ext', 'name (3).ext'... (a name
    that was given keeps it, even when it comes after a repeat)."""
    key = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    out: list[str | None] = [None] * len(names)
    taken: set[str] = set()
    for i, name in enumerate(names):
        if key(name) not in taken:
            taken.add(key(name))
            out[i] = name
    for i, name in enumerate(names):
        if out[i] is not None:
            continue
        stem, ext = _split_ext(name)
        n = 2
        while key(candidate := _fit(stem, f" ({n}){ext}")) in taken:
            n += 1
        taken.add(key(candidate))
        out[i] = candidate
    return out  # type: ignore[return-value]
