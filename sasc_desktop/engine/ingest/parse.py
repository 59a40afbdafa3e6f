"""Raw RFC 822 bytes -> a Message record. Lenient: repairs what it can and notes it; raises
MalformedMessage (with a reason a person can read) only when there is no message to keep."""
from __future__ import annotations

import binascii
import dataclasses
import hashlib
import mimetypes
import re
from functools import lru_cache
from datetime import timezone
from email import message_from_bytes
from email.message import Message as EmailMessage
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import collapse_rfc2231_value, getaddresses, parsedate_to_datetime, unquote

from ..records import Attachment, Message
from .text import (decode_bytes, decode_header_value, html_to_text, html_to_text_checked, read_undeclared,
                   safe_filename, surrogates_note, unique_names, without_surrogates)

_HEADER_LINE = re.compile(rb"^[!-9;-~]+[ \t]*:")
_MSGID = re.compile(r"<([^<>\s]+)>")
MAX_NESTING = 8


class MalformedMessage(Exception):
    """The bytes are not an email message (the reason says why)."""


# What may come before a message's headers: a UTF-8 byte order mark (Windows tools write one to
# a saved .eml), blank lines.
_LEAD = re.compile(rb"(?:\xef\xbb\xbf)?(?:[ \t]*\r?\n)*")


def message_bytes(raw: bytes) -> bytes:
    """The message in ``raw``: without its mbox From line and without a UTF-8 byte order mark
    and blank lines before its headers (before or after the From line). A message's SHA-256,
    its size and its stored bytes are those of these bytes."""
    raw = raw[_LEAD.match(raw).end():]
    if raw.startswith(b"From "):
        nl = raw.find(b"\n")
        raw = b"" if nl < 0 else raw[nl + 1:]
        raw = raw[_LEAD.match(raw).end():]
    return raw


def raw_digest(raw: bytes) -> str:
    """The SHA-256 that identifies a copy (computed on :func:`message_bytes`: the message without
    its mbox From line, a byte order mark and blank lines before its headers)."""
    return hashlib.sha256(message_bytes(raw)).hexdigest()


# Headers a mailbox or a mail client adds to its copy of a message (read/flag state, its folder,
# sizes, IMAP and client bookkeeping): two copies that differ only in these are one message.
MAILBOX_HEADERS = frozenset(h.lower().encode() for h in (
    "Status", "X-Status", "X-Keywords", "X-UID", "X-IMAP", "X-IMAPbase", "X-IMAP-UID", "Content-Length",
    "Lines", "X-Mozilla-Status", "X-Mozilla-Status2", "X-Mozilla-Keys", "X-Folder", "X-FileName", "X-Origin",
    "X-Evolution", "X-Evolution-Source", "X-Gmail-Labels", "X-GM-THRID", "X-GM-MSGID", "X-Spool",
    "X-Flags", "X-Mailbox-Line", "X-Mozilla-Draft-Info", "X-Account-Key", "X-Identity-Key"))

# Headers the mail system adds to or takes from a message on its way from the sender to a
# recipient: a recipient's copy has them and the sender's Sent copy has not (or the other way
# round), so two copies that differ only in these are one message too. Trace and delivery
# headers (Received, Return-Path, Delivered-To, X-Original-To, Envelope-To, ...), what servers
# check or sign on the way (Received-SPF, Authentication-Results, DKIM-Signature: the sender's
# server signs after the Sent copy is saved; ARC-*), spam and virus filters' verdicts, what a
# submission server notes (X-Originating-IP, X-Authentication-Warning), Exchange's transport
# headers, and Bcc (the sender's copy has it, no recipient's: the server takes it out). None
# of them is what the sender wrote: From, To, Cc, Subject, Date, the body and every other
# header still tell messages apart.
TRANSIT_HEADERS = frozenset(h.lower().encode() for h in (
    "Received", "X-Received", "Return-Path", "X-Return-Path", "Delivered-To", "X-Delivered-To",
    "X-Original-To", "Envelope-To", "X-Envelope-To", "X-Envelope-From", "X-Envelope-Sender", "X-Rcpt-To",
    "Delivery-Date", "X-Apparently-To", "X-MDaemon-Deliver-To", "X-Forwarded-To", "X-Forwarded-For",
    "Received-SPF", "Authentication-Results", "DKIM-Signature", "DomainKey-Signature",
    "X-Google-DKIM-Signature", "X-Gm-Message-State", "X-Google-Smtp-Source", "X-Originating-IP",
    "X-Authentication-Warning", "X-AntiAbuse", "X-OriginalArrivalTime", "X-Greylist", "X-Scanned-By",
    "X-Sieve", "X-Spam", "Bcc"))
TRANSIT_PREFIXES = tuple(p.lower().encode() for p in (
    "ARC-", "X-Spam-", "X-Virus-", "X-Amavis-", "X-MailScanner", "X-MS-Exchange-", "X-Microsoft-Antispam",
    "X-Forefront-Antispam-"))
_HEADER_NAME = re.compile(rb"^([!-9;-~]+)[ \t]*:")


def ignored_header(name: bytes) -> bool:
    """Whether a header (its name as bytes, any case) is left out of :func:`content_digest`:
    one of the :data:`MAILBOX_HEADERS` or :data:`TRANSIT_HEADERS`, or a name starting with one
    of the :data:`TRANSIT_PREFIXES`."""
    name = name.lower()
    return name in MAILBOX_HEADERS or name in TRANSIT_HEADERS or name.startswith(TRANSIT_PREFIXES)


def content_digest(raw: bytes, ignored=ignored_header) -> str:
    """The SHA-256 of a message as written, without what a mailbox adds to its copy and what
    the mail system adds on the way (:func:`ignored_header`: the :data:`MAILBOX_HEADERS`, the
    :data:`TRANSIT_HEADERS` and :data:`TRANSIT_PREFIXES`, with their folded lines), its mbox
    From line and CR before LF. A message without a Message-ID is identified by it
    (``sasc-<digest[:24]>``), so the sender's Sent copy and each recipient's Inbox copy share
    it. For a message without those headers and CRs it is the SHA-256 of its bytes, as the id
    was first made. Ids made under an earlier rule (the raw SHA-256; then without the mailbox
    headers only) are found again by :func:`..importer.stored_document` from the stored bytes.
    (What may precede the headers, :func:`message_bytes`, is dropped too.) ``ignored``: which
    header names are left out (a test gives an earlier rule's)."""
    raw = message_bytes(raw).replace(b"\r\n", b"\n")
    end = raw.find(b"\n\n")
    head, rest = (raw, b"") if end < 0 else (raw[:end + 1], raw[end + 1:])
    kept, dropping = [], False
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and line.strip():
            if not dropping:
                kept.append(line)
            continue
        name = _HEADER_NAME.match(line)
        dropping = bool(name) and ignored(name.group(1))
        if not dropping:
            kept.append(line)
    return hashlib.sha256(b"\n".join(kept) + rest).hexdigest()


def synthetic_message_id(raw: bytes) -> str:
    """The id of a message without a Message-ID: its copies in other mailboxes get the same."""
    return f"sasc-{content_digest(raw)[:24]}"


_BLANK_LINE = re.compile(rb"\n\r?\n")
BINARY = "binary data, not an email message (NUL bytes in the header area)"


def _check_looks_like_mail(raw: bytes) -> None:
    if not raw.strip():
        raise MalformedMessage("empty message")
    head = raw[:4096]
    nul = head.find(b"\x00")
    first = raw.lstrip(b"\r\n").split(b"\n", 1)[0]
    if not _HEADER_LINE.match(first):
        # Not mail: a file with NUL bytes near its start (an image, an archive) is called binary.
        raise MalformedMessage(BINARY if nul >= 0 else
                               "no email headers: the first line is not a 'Name: value' header")
    if nul >= 0:
        # Only a NUL in the headers (before the first blank line) says the bytes are not mail;
        # one in a short body is a stray byte in a message (kept, as any other).
        blank = _BLANK_LINE.search(head)
        if blank is None or nul < blank.start():
            raise MalformedMessage(BINARY)


def _header(msg: EmailMessage, name: str, notes: list[str], fallback: str | None = None) -> str:
    values = msg.get_all(name)
    if not values:
        return ""
    text, header_notes = decode_header_value(values[0], fallback)
    notes.extend(f"{name} {n}" for n in header_notes)
    return text


_NEEDS_QUOTES = re.compile(r'[][\\()<>@,:;".]')


def _address_header(msg: EmailMessage, name: str, notes: list[str], fallback: str | None = None) -> str:
    """An address header decoded so that it reads back as the addresses it holds: the raw value
    is what says who the addresses are; decoding only makes the display names readable. An
    encoded word whose text holds address syntax ('=?utf-8?Q?ceo=40bank.com?= <x@evil.org>')
    would, decoded as it stands, read as another address ('ceo@bank.com'): when the decoded
    value reads as other addresses than the raw one, it is written again from the raw value's
    addresses with each decoded display name quoted where it needs to be."""
    text = _header(msg, name, notes, fallback)
    raw = msg.get(name)
    if raw is not None and not isinstance(raw, str):  # a Header: the value has raw 8-bit bytes
        raw = next((v for k, v in msg.raw_items() if k.lower() == name.lower()), None)
    if not isinstance(raw, str) or "=?" not in raw:
        return text
    if not raw.isascii():  # (its raw 8-bit bytes, surrogate escapes, read as the decoded value reads them)
        raw = _eight_bit(raw, fallback)[0]
    pairs = getaddresses([_unfold_raw(raw)])
    if [a for _, a in pairs] == [a for _, a in getaddresses([text])]:
        return text
    out = []
    for display, addr in pairs:
        display = decode_header_value(display, fallback)[0] if display else ""
        if display and _NEEDS_QUOTES.search(display):
            display = '"' + display.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out.append(f"{display} <{addr}>" if display and addr else display or addr)
    return ", ".join(o for o in out if o)


def _unfold_raw(value: str) -> str:
    return re.sub(r"\r?\n[ \t]+", " ", value)


_BRACKETED = re.compile(r"<([^<>]*)>")
# what an id is never followed by: the 'of "date"' or "'s message" of an attribution
# ('Message from Gary Murphy <garym@canada.com> of "28 Aug 2002 ..."': exmh/MH)
_ATTRIBUTED = re.compile(r"\s*(?:of\b|'s\b)", re.I)
# an attribution phrase instead of ids ('Your message of', "bob@x's message of", 'Message from')
_ATTRIBUTION = re.compile(r"\bmessage\s+(?:of|from|dated)\b|'s\s+message\b", re.I)


def _closed_up(value: str) -> str:
    """``value`` with the whitespace inside each <...> removed: Eudora breaks a long id with a
    space (``<Pine.LNX...@hydrogen.leitl.or g>``), a folded header with a line break."""
    return _BRACKETED.sub(lambda m: "<" + "".join(m.group(1).split()) + ">", value)


def _bare_ids(value: str) -> list[str]:
    """Ids written without angle brackets: the words holding '@', without a '<' or '>' of an
    unclosed bracket; none in an attribution phrase (``bob@x.org's message of "..."``: Emacs)
    and never a word with an apostrophe."""
    if _ATTRIBUTION.search(value):
        return []
    words = (w.strip("<>;,()\"") for w in value.split())
    return [w for w in words if "@" in w and "'" not in w and "<" not in w and ">" not in w]


def _message_id(value: str) -> str:
    value = _closed_up(value or "")
    m = _MSGID.search(value)
    if m:
        return m.group(1)
    words = [w.strip("<>") for w in value.split()]
    return next((w for w in words if w and "<" not in w and ">" not in w), "")


def _bracketed_ids(value: str) -> list[str]:
    """The <...> ids of a header value (whitespace inside them removed), without the addresses
    of an attribution (an <...> followed by 'of' or "'s")."""
    value = _closed_up(value)
    return [m.group(1) for m in _MSGID.finditer(value) if not _ATTRIBUTED.match(value, m.end())]


def _id_list(value: str, own: frozenset = frozenset()) -> tuple[str, ...]:
    """The ids of a References header, in order: its <...> ids, else its bare ids; an id that is
    an address of the message itself (``own``, lower-cased: its From, To, Cc, Reply-To; not its
    Bcc, which only the sender's copy has) is left out (XEmacs VM and exmh put the replied-to
    person's <address> first). Threading then takes the next id, or the subject."""
    value = value or ""
    found = _bracketed_ids(value) if "<" in value else []
    if not found and not _MSGID.search(_closed_up(value)):
        found = _bare_ids(value)
    return tuple(i for i in found if i.lower() not in own)


def _reply_id(value: str, own: frozenset = frozenset()) -> str:
    """The id an In-Reply-To header names: its LAST <...> id (exmh/MH write 'Message from Gary
    Murphy <garym@canada.com> of "date" <id>': the address first, the id last), leaving out the
    message's own addresses (``own``) and an attribution's; else, when it has no <...> at all,
    its last bare id (none in an attribution phrase: Emacs's ``bob@x's message of "..."``)."""
    ids = _id_list(value, own)
    return ids[-1] if ids else ""


def reply_ids(raw: bytes, own_headers: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """(In-Reply-To id, References ids) of a message's bytes as :func:`parse_message` reads
    them, reading its headers only; ``own_headers``: its From, To, Cc and Reply-To values as
    parse_message gives them (as stored), whose addresses are no ids."""
    raw = message_bytes(raw)
    msg = BytesHeaderParser(policy=compat32).parsebytes(raw)
    fallback = None
    if any(not v.isascii() for _, v in msg.raw_items() if isinstance(v, str)):
        fallback = _declared_charset(message_from_bytes(raw, policy=compat32))  # (as parse_message reads them)
    own = frozenset(addresses(*own_headers))
    notes: list[str] = []
    return (_reply_id(_header(msg, "In-Reply-To", notes, fallback), own),
            _id_list(_header(msg, "References", notes, fallback), own))


def addresses(*values: str) -> list[str]:
    """Lower-cased e-mail addresses in the given header values, in order."""
    out: list[str] = []
    for v in values:
        if v:
            out.extend(_header_addresses(v))
    return out


@lru_cache(maxsize=32_768)
def _header_addresses(value: str) -> tuple[str, ...]:
    # Headers repeat a lot in an archive (the same people write to the same lists), and the
    # stdlib address parser is a large part of parsing a message: parse each distinct value once.
    out = []
    for _name, addr in getaddresses([value]):
        addr = addr.strip().strip("<>").lower()
        if "@" in addr and " " not in addr:
            out.append(addr)
    return tuple(out)


def _payload(part: EmailMessage, notes: list[str], what: str) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception as exc:  # pragma: no cover - compat32 rarely raises here
        notes.append(f"{what}: payload could not be decoded ({exc.__class__.__name__})")
        return b""
    if data is None:
        payload = part.get_payload()
        data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    for defect in getattr(part, "defects", []) or []:
        name = defect.__class__.__name__
        if "Base64" in name or "Padding" in name:
            notes.append(f"{what}: damaged base64 ({name}); decoded what was readable")
    return data


def _part_text(part: EmailMessage, notes: list[str], what: str) -> str:
    data = _payload(part, notes, what)
    text, note = decode_bytes(data, part.get_content_charset() or part.get_param("charset"))
    if note:
        notes.append(f"{what}: {note}")
    return text


_MIME_HEADERS = ("content-type", "content-disposition")


def _eight_bit(value: str, fallback: str | None = None) -> tuple[str, str | None]:
    """A raw header value as compat32 keeps it (bytes over 127 as surrogate escapes) -> (text,
    the codec its 8-bit bytes were decoded with: UTF-8, else the message's declared charset
    ``fallback``, else cp1252; None when it had none): :func:`read_undeclared`."""
    return read_undeclared(value.encode("utf-8", "surrogateescape"), fallback)


def _mime_view(part: EmailMessage, fallback: str | None = None) -> tuple[EmailMessage, str | None]:
    """``part`` itself, or, when its Content-Type or Content-Disposition holds raw 8-bit bytes
    (an unencoded 'résumé.pdf'), a copy of those two headers with the bytes decoded: compat32
    hands such a header over as an email.header.Header, whose text has every such byte replaced
    by U+FFFD. With the codec the bytes were decoded with (None: nothing to decode)."""
    raw = [(k, v) for k, v in part.raw_items() if k.lower() in _MIME_HEADERS]
    if all(not isinstance(v, str) or v.isascii() for _, v in raw):
        return part, None
    view, used = EmailMessage(), None
    for key, value in raw:
        text, codec = _eight_bit(value, fallback) if isinstance(value, str) else (str(value), None)
        used = used or codec
        view[key] = text
    return view, used


def _filename(part: EmailMessage, fallback: str | None = None, notes: list[str] | None = None) -> str:
    """The file name a part gives itself (Content-Disposition filename, else Content-Type name),
    RFC 2231 values collapsed, raw 8-bit bytes decoded (:func:`_mime_view`). A lone surrogate
    the RFC 2231 decoding made (filename*=utf-7''%2B2D0-.pdf) is replaced by U+FFFD, with a
    note in ``notes`` when given."""
    view, _ = _mime_view(part, fallback)
    try:
        name = view.get_filename() or view.get_param("name")
        name = collapse_rfc2231_value(name).strip() if name else ""
    except (UnicodeError, LookupError):  # an RFC 2231 charset no text codec reads ('undefined')
        name, note = _rfc2231_unread(view)
        if note and notes is not None:
            notes.append(f"attachment name: {note}")
    if not name:
        return ""
    name, n = without_surrogates(name)
    if n and notes is not None:
        notes.append(f"attachment name: {surrogates_note(n)}")
    return name


def _rfc2231_unread(view: EmailMessage) -> tuple[str, str | None]:
    """An RFC 2231 file name whose charset the stdlib could not decode with, read as a name
    in an unknown charset is (:func:`decode_bytes`): (name, note)."""
    value = view.get_param("filename", header="content-disposition") or view.get_param("name")
    if not isinstance(value, tuple):
        return (collapse_rfc2231_value(value).strip() if value else ""), None
    charset, _, text = value
    name, note = decode_bytes(unquote(text).encode("raw-unicode-escape"), charset)
    return name.strip(), note


def _is_attachment(part: EmailMessage) -> bool:
    view, _ = _mime_view(part)
    disposition = str(view.get("Content-Disposition") or "").split(";")[0].strip().lower()
    if disposition == "attachment":
        return True
    if _filename(part):
        return part.get_content_maintype() != "text" or disposition != "inline"
    return part.get_content_maintype() != "text"


STUB_CHARS = 200   # a plain-text alternative shorter than this may be a stub (see _Walker._instead_of_stub)
_TEXT_TYPES = {"application/csv", "application/xhtml+xml", "application/json", "application/xml"}


def _lenient_parts(data: bytes, boundary: str | None) -> list[EmailMessage]:
    """The parts of a multipart body ``data`` whose boundary lines match ``boundary`` once all
    whitespace is taken out of both ('--= Multipart Boundary 1' for '=Multipart Boundary 1'),
    up to the closing line ('--' after it) or the end; [] when no such line starts a part."""
    if not boundary:
        return []
    key = b"".join(boundary.encode("utf-8", "surrogateescape").split())
    if not key:
        return []
    lines = data.splitlines(keepends=True)
    starts: list[int] = []
    end = len(lines)
    for i, line in enumerate(lines):
        if line.startswith(b"--"):
            found = b"".join(line[2:].split())
            if found == key:
                starts.append(i)
            elif found == key + b"--" and starts:
                end = i
                break
    parts = []
    for a, b in zip(starts, starts[1:] + [end]):
        chunk = b"".join(lines[a + 1:b])
        # (the line break before a boundary line is part of the boundary: RFC 2046 5.1.1)
        chunk = chunk[:-2] if chunk.endswith(b"\r\n") else chunk[:-1] if chunk.endswith(b"\n") else chunk
        parts.append(message_from_bytes(chunk, policy=compat32))
    return parts


# A uuencoded file in a text body: 'begin <mode> <name>', lines of uuencoded data, 'end'.
_UU_BEGIN = re.compile(r"^begin [0-7]{3,4} +(\S[^\r\n]*?)[ \t]*\r?\n", re.M)
_UU_END = re.compile(r"^end[ \t]*(?:\r?\n|\Z)", re.M)
_UU_CHARS = re.compile(r"[ -`]*")   # the uuencoding alphabet: space to backquote
MAX_BAD_UU_LINES = 0.1              # of a file's lines that may be damaged (left out, noted)


def _uu_line(line: str) -> bytes | None:
    """One uuencoded line's bytes, or None when it is not one. Its first character gives its
    length; characters after its data (a checksum some encoders add) are ignored, and up to
    one group (4 characters) missing at its end (trailing spaces a mail system dropped) is
    read as spaces."""
    if not line:
        return b""   # (a zero-length line whose space was dropped)
    n = (ord(line[0]) - 32) & 63
    need = 1 + (n + 2) // 3 * 4
    data = line[:need]
    if len(data) < need - 4 or not _UU_CHARS.fullmatch(data):
        return None
    try:
        return binascii.a2b_uu(data.ljust(need).encode("ascii"))[:n]
    except (binascii.Error, UnicodeEncodeError):
        return None


def _uu_decode(block: str) -> tuple[bytes | None, int, int]:
    """(the bytes of a uuencoded file's lines, how many lines were damaged, how many lines);
    the bytes are None when more than MAX_BAD_UU_LINES of them are (text that is no uuencoded
    file: prose between a 'begin 644 x' and an 'end' line has lower-case letters)."""
    lines = [line.rstrip("\r\n") for line in block.splitlines()]
    # the zero-length line(s) that end the data ('`', a space, or empty where the space was
    # dropped); a zero-length line anywhere else is no data line: indented or blank lines of
    # prose between a 'begin 644 x' and an 'end' would otherwise read as empty data lines
    while lines and (not lines[-1].strip() or lines[-1] == "`"):
        lines.pop()
    out, bad = [], 0
    for line in lines:
        data = _uu_line(line) if line and (ord(line[0]) - 32) & 63 else None
        if data is None:
            bad += 1
        else:
            out.append(data)
    if not out or bad > MAX_BAD_UU_LINES * len(lines):
        return None, bad, len(lines)
    return b"".join(out), bad, len(lines)


_MIME_TABLE = None


def _uu_type(name: str) -> str | None:
    """The MIME type Python's own table gives a file name's extension (the same on every
    system: the system's mime.types is not read), or None."""
    global _MIME_TABLE
    if _MIME_TABLE is None:
        _MIME_TABLE = mimetypes.MimeTypes()
    return _MIME_TABLE.guess_type(safe_filename(name), strict=False)[0]


_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\r\f") + b"\x7f"


def _looks_like_text(data: bytes) -> bool:
    """No NUL byte, and at most 1 byte in 100 another control character."""
    if b"\x00" in data:
        return False
    return len(data) - len(data.translate(None, _CONTROL_BYTES)) <= len(data) // 100


class _Walker:
    def __init__(self, notes: list[str], fallback: str | None = None):
        self.notes = notes
        self.fallback = fallback  # the message's declared text charset: for raw 8-bit names
        self.plain: list[str] = []
        self.html: list[str] = []
        self.attachments: list[Attachment] = []

    def walk(self, part: EmailMessage, depth: int = 0) -> None:
        ctype = part.get_content_type()
        if ctype == "message/rfc822" or (part.is_multipart() and ctype.startswith("message/")):
            self._nested(part, depth)
        elif part.is_multipart():
            self._children(ctype, [c for c in part.get_payload() if isinstance(c, EmailMessage)], depth)
        elif part.get_content_maintype() == "multipart":
            self._unsplit(part, ctype, depth)
        elif _is_attachment(part):
            self._attachment(part)
        elif ctype == "text/html":
            self.html.append(_part_text(part, self.notes, "HTML body"))
        else:
            text = _part_text(part, self.notes, "body")
            if ctype == "text/plain" and "begin " in text:
                text = self._uuencoded(text)
            self.plain.append(text)

    def _uuencoded(self, text: str) -> str:
        """``text`` without the uuencoded files in it ('begin 644 name', its lines, 'end': what
        mailers wrote before MIME), each decoded into an attachment named from its begin line
        (:func:`_uu_decode`); a damaged one stays in the text, with a note."""
        out, pos = [], 0
        for begin in _UU_BEGIN.finditer(text):
            if begin.start() < pos:
                continue
            name = begin.group(1).strip()
            end = _UU_END.search(text, begin.end())
            data, bad, lines = (None, 0, 0) if end is None else _uu_decode(text[begin.end():end.start()])
            if data is None:
                why = "no 'end' line" if end is None else f"{bad} of its {lines} line(s) are not uuencoded"
                self.notes.append(f"body: uuencoded file {name!r} is damaged ({why}); left in the body")
                continue
            out.append(text[pos:begin.start()])
            pos = end.end()
            self.notes.append(f"body: uuencoded file {name!r} ({len(data)} bytes) taken out as an attachment"
                              + (f"; {bad} damaged line(s) of its {lines} left out" if bad else ""))
            self._file(name, data)
        if not out:
            return text
        out.append(text[pos:])
        return "".join(out)

    def _file(self, original: str, data: bytes) -> None:
        """An attachment for a file found in a body (a uuencoded one): no MIME type is given, so
        it is taken from the name's extension (Python's own table, not the system's), or, for
        an unknown extension, text when its bytes look like text; text is indexed as a text
        attachment's is."""
        ctype = _uu_type(original)
        if ctype is None:
            ctype = "text/plain" if _looks_like_text(data) else "application/octet-stream"
        text = None
        if ctype.startswith("text/") or ctype in _TEXT_TYPES:
            text, note = decode_bytes(data, None)
            if ctype in ("text/html", "application/xhtml+xml"):
                text, note = html_to_text_checked(text)
            if note:
                self.notes.append(f"attachment {original}: {note}")
        self.attachments.append(Attachment(
            name=safe_filename(original, fallback=f"attachment-{len(self.attachments) + 1}.bin"),
            mime_type=ctype, size=len(data), sha256=hashlib.sha256(data).hexdigest(), text=text,
            original_name=original))

    def _children(self, ctype: str, children: list[EmailMessage], depth: int) -> None:
        if ctype == "multipart/alternative" and children:
            self.walk(self._pick_alternative(children), depth)
        else:
            for child in children:
                self.walk(child, depth)

    def _unsplit(self, part: EmailMessage, ctype: str, depth: int) -> None:
        """A multipart the parser could not split: no line of its body is its boundary exactly
        (compat32's StartBoundaryNotFoundDefect; a mailer that wrote boundary="=Multipart
        Boundary 0925021429" and '--= Multipart Boundary 0925021429' lines), or it names no
        boundary. Its parts are found again by a lenient match (:func:`_lenient_parts`: the
        boundary with whitespace ignored); failing that its body is read as text. Never one
        opaque attachment: its text would be found by no search."""
        data = part.get_payload(decode=True) or b""   # (its bytes: 8-bit ones as they are)
        if not data.strip():
            return
        children = _lenient_parts(data, part.get_param("boundary"))
        if children:
            self.notes.append(f"{ctype}: its boundary matches no line exactly; its {len(children)} part(s) "
                              "found by the boundary with whitespace ignored")
            self._children(ctype, children, depth)
            return
        self.notes.append(f"{ctype}: no part marked by its boundary; its body read as text")
        text, note = decode_bytes(data, part.get_param("charset"))
        if note:
            self.notes.append(f"body: {note}")
        self.plain.append(text)

    def _pick_alternative(self, children: list[EmailMessage]) -> EmailMessage:
        for wanted in ("text/plain", "multipart/related", "multipart/mixed", "text/html"):
            for child in children:
                if child.get_content_type() == wanted and not _is_attachment(child):
                    if wanted != "text/plain":
                        return child
                    data = (child.get_payload(decode=True) or b"").strip()
                    if data:
                        return self._instead_of_stub(child, data, children) or child
        return children[-1]

    def _instead_of_stub(self, plain: EmailMessage, data: bytes, children: list[EmailMessage]):
        """The HTML alternative (or the multipart holding it) to read instead of the plain-text
        one ``plain`` (its bytes ``data``) when that is a stub, else None. The plain text is a
        stub when it is shorter than STUB_CHARS and than a tenth of the HTML's text ('This is
        an HTML message', 54 characters of broken text beside 14 KB): the HTML says what the
        message says. A plain text of some length, or one near the HTML's, is kept: it is what
        the sender wrote for reading as text. (Only short plain parts are looked at: the HTML's
        text is extracted for those only.)"""
        if len(data) >= 4 * STUB_CHARS:   # (at most 4 bytes a character: never a stub)
            return None
        text = decode_bytes(data, plain.get_content_charset())[0].strip()
        if len(text) >= STUB_CHARS:
            return None
        for child in children:
            html = child if child.get_content_type() == "text/html" else next(
                (p for p in child.walk() if p.get_content_type() == "text/html"), None) \
                if child.get_content_maintype() == "multipart" else None
            if html is None or _is_attachment(html):
                continue
            raw = html.get_payload(decode=True) or b""
            if len(raw) <= 10 * len(text):  # (its text is never longer than its bytes)
                return None
            html_text = html_to_text(decode_bytes(raw, html.get_content_charset())[0])
            if len(html_text) <= 10 * len(text):
                return None
            self.notes.append(f"its plain-text alternative is a stub ({len(text)} characters, {len(html_text)} "
                              "in the HTML one); the HTML alternative was read")
            return child
        return None

    def _attachment(self, part: EmailMessage) -> None:
        original, name_notes = decode_header_value(_filename(part, self.fallback, self.notes))
        self.notes.extend(f"attachment name {n}" for n in name_notes)
        codec = _mime_view(part, self.fallback)[1]
        if codec and not original.isascii():
            self.notes.append(f"attachment name {original!r} has unencoded 8-bit bytes; decoded as {codec}")
        ctype = part.get_content_type()
        data = _payload(part, self.notes, f"attachment {original or ctype}")
        text = None
        if part.get_content_maintype() == "text" or ctype in _TEXT_TYPES:
            text, note = decode_bytes(data, part.get_content_charset())
            if note:
                self.notes.append(f"attachment {original or ctype}: {note}")
            if ctype in ("text/html", "application/xhtml+xml"):
                text, note = html_to_text_checked(text)
                if note:
                    self.notes.append(f"attachment {original or ctype}: {note}")
        ext = {"text/plain": ".txt", "text/html": ".html", "text/csv": ".csv"}.get(ctype, ".bin")
        self.attachments.append(Attachment(
            name=safe_filename(original, fallback=f"attachment-{len(self.attachments) + 1}{ext}"),
            mime_type=ctype, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
            text=text, original_name=original))

    def _nested(self, part: EmailMessage, depth: int) -> None:
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) and inner else inner
        if not isinstance(inner, EmailMessage):
            self._attachment(part)
            return
        raw = inner.as_bytes(policy=compat32) if hasattr(inner, "as_bytes") else b""
        if depth >= MAX_NESTING:
            self.notes.append("message nested too deeply; innermost parts listed without text")
            text = None
        else:
            sub_notes: list[str] = []
            sub = _Walker(sub_notes, self.fallback)
            sub.walk(inner, depth + 1)
            body = sub.body()  # (before its notes are taken: it may add one)
            self.notes.extend(f"nested message: {n}" for n in sub_notes)
            heads = [f"{h}: {decode_header_value(inner.get(h))[0]}" for h in ("From", "To", "Date", "Subject") if inner.get(h)]
            text = "\n".join(heads) + "\n\n" + body
            # Its text attachments are part of its text; the messages nested in it are listed
            # as attachments of their own, each with its text: their text is not repeated here
            # (it holds their nested messages' in turn: a chain of forwards would store the
            # innermost text once for each message around it, twice over at each level).
            extra = "\n\n".join(a.text for a in sub.attachments if a.text and not a.is_message)
            text = text + ("\n\n" + extra if extra else "")
            self.attachments.extend(a for a in sub.attachments if not a.text or a.is_message)
        subject = decode_header_value(inner.get("Subject"))[0] or "forwarded message"
        original = _filename(part, notes=self.notes) or f"{subject}.eml"
        self.attachments.append(Attachment(
            name=safe_filename(original, fallback="forwarded-message.eml"), mime_type="message/rfc822",
            size=len(raw), sha256=hashlib.sha256(raw).hexdigest(), text=text,
            original_name=original, is_message=True))

    def body(self) -> str:
        parts = [p for p in self.plain if p.strip()]
        if parts:
            return "\n\n".join(parts).strip()
        texts = []
        for h in self.html:
            text, note = html_to_text_checked(h)
            if note:
                self.notes.append(f"HTML body: {note}")
            texts.append(text)
        return "\n\n".join(texts).strip()


def _declared_charset(msg: EmailMessage) -> str | None:
    """The first charset the message declares for a text part, other than ASCII (which says
    nothing about 8-bit bytes), or None."""
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            charset = part.get_content_charset()
            if charset and charset not in ("us-ascii", "ascii"):
                return charset
    return None


# A 12-hour time: 'h:mm[:ss] AM|PM' (a.m., pm...). email.utils reads '10:05:15 PM' as 10:05
# and takes 'PM' for the time zone, dropping a real one after it.
_TWELVE_HOUR = re.compile(r"(?<![\d:])(\d{1,2})(:\d{2}(?::\d{2})?)\s*([AaPp])\.?[Mm]\.?(?![A-Za-z])")
# What follows the time of a date: its zone (and, in asctime's order, the year).
_AFTER_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(.*)$", re.S)
_COMMENT = re.compile(r"\([^()]*\)")
_YEAR = re.compile(r"(?<![\w+-])\d{4}(?!\w)")


def _parse_date(text: str, notes: list[str]):
    """A Date header as an aware datetime (email.utils.parsedate_to_datetime), with notes on
    what was read how. A 12-hour time is made 24-hour first (12 AM is 00, 12 PM is 12), so its
    zone is read too. A date without a zone is taken as UTC: the note says whether it had none
    (or -0000, 'local time unknown') or one the parser does not know ('CEST', 'Eastern Daylight
    Time', 'GMT+1')."""
    found = _TWELVE_HOUR.search(text)
    if found:
        hour, pm = int(found.group(1)), found.group(3) in "Pp"
        twelve = 1 <= hour <= 12   # (else a 24-hour time with AM or PM after it, '18:50 PM': as it is)
        if twelve:
            hour = hour % 12 + (12 if pm else 0)
        clock = f"{hour:02d}{found.group(2)}"
        text = text[:found.start()] + clock + text[found.end():]
        notes.append(f"Date in 12-hour time {found.group(0)!r}; read as {clock}" if twelve else
                     f"Date has AM or PM after a 24-hour time {found.group(0)!r}; read as {clock}")
    dt = parsedate_to_datetime(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
        after = _AFTER_TIME.search(text)
        zone = _YEAR.sub(" ", _COMMENT.sub(" ", after.group(1))) if after else ""
        zone = " ".join(zone.replace(",", " ").split())
        if any(ch.isalpha() for ch in zone):
            notes.append(f"unrecognised time zone {zone[:40]!r}; taken as UTC")
        else:
            notes.append("Date has no time zone; taken as UTC")
    return dt


def copy_folder(raw: bytes, folder: str) -> str:
    """The folder :func:`parse_message` gives the copy ``raw`` found in ``folder`` (its X-Folder
    header, else ``folder``), reading its headers only."""
    try:
        msg = BytesHeaderParser(policy=compat32).parsebytes(message_bytes(raw))
    except Exception:  # (parse_message read these bytes: this does not happen)
        return folder
    return _header(msg, "X-Folder", []) or folder


def parse_message(raw: bytes, location: str, folder: str = "") -> Message:
    """Parse one message. ``raw`` may start with an mbox ``From `` line, a UTF-8 byte order mark
    and blank lines (they are dropped: :func:`message_bytes`)."""
    raw = message_bytes(raw)
    _check_looks_like_mail(raw)
    sha = hashlib.sha256(raw).hexdigest()
    try:
        msg = message_from_bytes(raw, policy=compat32)
    except Exception as exc:  # the stdlib parser is lenient; this is a last resort
        raise MalformedMessage(f"cannot be parsed as email ({exc.__class__.__name__}: {exc})") from exc
    if not msg.keys():
        raise MalformedMessage("no email headers found")
    notes: list[str] = []
    # The charset the message declares for its text: how raw 8-bit header bytes are read when
    # they are not UTF-8 (looked for only when a header has such bytes).
    fallback = _declared_charset(msg) if any(not v.isascii() for _, v in msg.raw_items()
                                             if isinstance(v, str)) else None
    h = lambda name: _header(msg, name, notes, fallback)  # noqa: E731
    ah = lambda name: _address_header(msg, name, notes, fallback)  # noqa: E731

    message_id = _message_id(h("Message-ID"))
    synthetic = not message_id
    if synthetic:
        message_id = synthetic_message_id(raw)
        notes.append("no Message-ID; a stable id was made from the message's SHA-256 "
                     "(without the headers a mailbox adds to its copy or the mail system on the way)")

    date_text = h("Date")
    date_iso, ts = None, None
    if date_text:
        try:
            dt = _parse_date(date_text, notes)
            date_iso, ts = dt.isoformat(), dt.timestamp()
        except (TypeError, ValueError, OverflowError, IndexError):
            notes.append(f"unreadable Date header {date_text[:60]!r}")
    else:
        notes.append("no Date header")

    sender, to, cc, bcc = ah("From"), ah("To"), ah("Cc"), ah("Bcc")
    subject = h("Subject")
    walker = _Walker(notes, fallback)
    walker.walk(msg)
    body = walker.body()
    # One message's attachments have distinct names (a/report.txt and b/report.txt are both
    # 'report.txt' once safe): the first keeps it, the others become 'report (2).txt'...
    attachments = tuple(a if a.name == name else dataclasses.replace(a, name=name) for a, name in
                        zip(walker.attachments, unique_names([a.name for a in walker.attachments])))
    from_addrs = addresses(sender)
    reply_to = ah("Reply-To")
    own = frozenset(addresses(sender, to, cc, reply_to))  # (no id: see _id_list)
    return Message(
        message_id=message_id, synthetic_id=synthetic, date=date_iso, timestamp=ts,
        sender=sender, to=to, cc=cc, bcc=bcc, reply_to=reply_to, subject=subject,
        in_reply_to=_reply_id(h("In-Reply-To"), own), references=_id_list(h("References"), own),
        folder=h("X-Folder") or folder, importance=h("Importance"),
        priority=h("X-Priority") or h("Priority"), sensitivity_header=h("Sensitivity"),
        body=body, body_is_html=not any(p.strip() for p in walker.plain) and bool(walker.html),
        attachments=attachments, raw_sha256=sha, raw_size=len(raw),
        location=location, notes=tuple(dict.fromkeys(notes)),
        from_addr=from_addrs[0] if from_addrs else "",
        recipient_addrs=tuple(dict.fromkeys(addresses(to, cc, bcc))),
    )
