"""Deterministic MIME construction and mboxrd serialisation with the stdlib ``email`` package.

Boundaries come from the caller's RNG (never the email package's random default), dates are
formatted from the plan, and the generator uses a fixed compat32 policy with "\\n" line endings.
"""
from __future__ import annotations

import datetime as _dt
import html
import io
import random
import re
from dataclasses import dataclass, field
from email import policy as _policy
from email.charset import BASE64, QP, Charset
from email.generator import BytesGenerator
from email.header import Header
from email.message import Message
from email.mime.application import MIMEApplication
from email.mime.base import MIMEBase
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.utils import format_datetime, formataddr
from email import base64mime, encoders, quoprimime
from typing import Optional

from .people import Person



class _Policy(_policy.Compat32):
    """compat32 with a fast path for short plain-ASCII header lines (the common case).

    Folding a short ASCII value through ``email.header.Header`` returns it unchanged, so the
    output is identical; long or non-ASCII values still go through the stdlib folding.
    """

    def fold_binary(self, name, value):
        if (isinstance(value, str) and value.isascii() and "\n" not in value and "\r" not in value
                and len(name) + len(value) + 2 <= 76 and "  " not in value and value == value.strip()):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


POLICY = _Policy(linesep="\n")


def _cs(name: str, enc) -> Charset:
    c = Charset(name)
    c.body_encoding = enc
    return c


CS = {
    ("utf-8", "qp"): _cs("utf-8", QP),
    ("utf-8", "b64"): _cs("utf-8", BASE64),
    ("utf-8", "8bit"): _cs("utf-8", None),
    ("iso-8859-1", "qp"): _cs("iso-8859-1", QP),
    ("iso-8859-1", "b64"): _cs("iso-8859-1", BASE64),
    ("us-ascii", "7bit"): _cs("us-ascii", None),
    ("us-ascii", "qp"): _cs("us-ascii", QP),
}

MAILERS = {
    "outlook": "Microsoft Outlook 16.0",
    "thunderbird": "Mozilla Thunderbird 68.{n}.0",
    "apple": "Apple Mail (2.3608.{n})",
    "mobile": "iPhone Mail (16G{n})",
}


@dataclass
class Attachment:
    filename: str
    ctype: str                  # e.g. "text/csv"
    data: object                # str for text/*, bytes otherwise
    encoding: str = "b64"       # for text: "7bit" | "qp" | "b64"


@dataclass
class Mail:
    idx: int
    msgid: str                  # with angle brackets
    date: _dt.datetime          # aware
    sender: Person
    to: list
    cc: list
    bcc: list
    subject: str
    body: str
    client: str
    in_reply_to: str = ""
    references: tuple = ()
    extra_headers: list = field(default_factory=list)
    attachments: list = field(default_factory=list)
    nested: Optional[Message] = None     # forwarded message/rfc822 part
    html_only: bool = False
    alternative: bool = False
    charset: str = "utf-8"
    cte: str = "qp"
    x_folder: str = ""


def _ascii(s: str) -> bool:
    return s.isascii()


def _latin1(s: str) -> bool:
    try:
        s.encode("iso-8859-1")
        return True
    except UnicodeEncodeError:
        return False


def addr(p: Person) -> str:
    if _ascii(p.name):
        return formataddr((p.name, p.email))
    cs = p.charset if (p.charset == "utf-8" or _latin1(p.name)) else "utf-8"
    return formataddr((p.name, p.email), charset=cs)


def subject_header(subject: str, prefer: str):
    if _ascii(subject):
        return subject
    cs = prefer if (prefer == "utf-8" or _latin1(subject)) else "utf-8"
    return Header(subject, cs)


_PARA = re.compile(r"\n{2,}")


def to_html(text: str, client: str) -> str:
    """A plausible HTML rendering of a plain-text body (quotes become blockquotes)."""
    out = []
    quote: list[str] = []

    def flush_quote():
        if quote:
            inner = "<br>\n".join(html.escape(q[1:].lstrip(" ")) for q in quote)
            out.append(f'<blockquote style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">'
                       f"{inner}</blockquote>")
            quote.clear()

    for block in _PARA.split(text.strip("\n")):
        lines = block.split("\n")
        plain = []
        for ln in lines:
            if ln.startswith(">"):
                if plain:
                    out.append("<p>" + "<br>\n".join(html.escape(x) for x in plain) + "</p>")
                    plain = []
                quote.append(ln)
            else:
                flush_quote()
                plain.append(ln)
        flush_quote()
        if plain:
            out.append("<p>" + "<br>\n".join(html.escape(x) for x in plain) + "</p>")
    body = "\n".join(out)
    if client == "outlook":
        return ('<html xmlns:o="urn:schemas-microsoft-com:office:office">\n<head>\n'
                '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n'
                '<style>p.MsoNormal{margin:0;font-size:11.0pt;font-family:"Calibri",sans-serif}</style>\n'
                '</head>\n<body lang="EN-US">\n<div class="WordSection1">\n' + body + "\n</div>\n</body>\n</html>\n")
    if client == "webmail":
        return '<div dir="ltr">' + body + "</div>\n"
    return "<html><head></head><body>\n" + body + "\n</body></html>\n"


def _text_part(text: str, subtype: str, charset: str, cte: str) -> Message:
    """A text part equivalent to ``MIMEText`` with an explicit charset and transfer encoding
    (built directly: MIMEText's parameter handling dominated the generation time)."""
    if text.isascii():
        cs, enc = ("utf-8", "b64") if cte == "b64" else ("us-ascii", "qp" if cte == "qp" else "7bit")
    elif charset == "iso-8859-1" and _latin1(text):
        cs, enc = "iso-8859-1", ("b64" if cte == "b64" else "qp")
    else:
        cs, enc = "utf-8", (cte if cte in ("qp", "b64", "8bit") else "qp")
    part = Message()
    part["Content-Type"] = f'text/{subtype}; charset="{cs}"'
    if enc == "b64":
        part["Content-Transfer-Encoding"] = "base64"
        part.set_payload(base64mime.body_encode(text.encode(cs)))
    elif enc == "qp":
        part["Content-Transfer-Encoding"] = "quoted-printable"
        part.set_payload(quoprimime.body_encode(text.encode(cs).decode("latin-1")))
    elif enc == "8bit":
        part["Content-Transfer-Encoding"] = "8bit"
        part.set_payload(text.encode(cs).decode("ascii", "surrogateescape"))
    else:
        part["Content-Transfer-Encoding"] = "7bit"
        part.set_payload(text)
    return part


def _attachment_part(a: Attachment) -> Message:
    maintype, subtype = a.ctype.split("/", 1)
    if maintype == "text":
        part = _text_part(str(a.data), subtype, "utf-8", a.encoding)
    elif maintype == "application":
        part = MIMEApplication(a.data, subtype, encoders.encode_base64)
        del part["MIME-Version"]
    else:
        part = MIMEBase(maintype, subtype)
        part.set_payload(a.data)
        encoders.encode_base64(part)
        del part["MIME-Version"]
    part.add_header("Content-Disposition", "attachment", filename=a.filename)
    return part


def build(mail: Mail, rng: random.Random) -> Message:
    n = mail.idx
    if mail.html_only:
        root: Message = _text_part(to_html(mail.body, mail.client), "html", mail.charset, mail.cte)
    else:
        text_part = _text_part(mail.body, "plain", mail.charset, mail.cte)
        if mail.alternative:
            alt = MIMEMultipart("alternative", boundary=f"_alt_{n:06d}_{rng.getrandbits(40):010x}_")
            del alt["MIME-Version"]
            alt.attach(text_part)
            alt.attach(_text_part(to_html(mail.body, mail.client), "html", mail.charset, mail.cte))
            root = alt
        else:
            root = text_part
    if mail.attachments or mail.nested is not None:
        mixed = MIMEMultipart("mixed", boundary=f"----=_Part_{n}_{rng.getrandbits(48):012x}")
        del mixed["MIME-Version"]
        mixed.attach(root)
        if mail.nested is not None:
            nested = MIMEMessage(mail.nested)
            del nested["MIME-Version"]
            nested.add_header("Content-Disposition", "attachment", filename="forwarded message.eml")
            mixed.attach(nested)
        for a in mail.attachments:
            mixed.attach(_attachment_part(a))
        root = mixed
    content = [(k, v) for k, v in root.items()]
    for k, _ in content:
        del root[k]
    root["From"] = addr(mail.sender)
    if mail.to:
        root["To"] = ", ".join(addr(p) for p in mail.to)
    if mail.cc:
        root["Cc"] = ", ".join(addr(p) for p in mail.cc)
    if mail.bcc:
        root["Bcc"] = ", ".join(addr(p) for p in mail.bcc)
    root["Subject"] = subject_header(mail.subject, mail.sender.charset)
    root["Date"] = format_datetime(mail.date)
    root["Message-ID"] = mail.msgid
    if mail.in_reply_to:
        root["In-Reply-To"] = mail.in_reply_to
    if mail.references:
        root["References"] = " ".join(mail.references)
    for k, v in mail.extra_headers:
        root[k] = v
    mailer = MAILERS.get(mail.client)
    if mailer:
        root["X-Mailer"] = mailer.format(n=n % 97)
    if mail.x_folder:
        root["X-Folder"] = mail.x_folder
    root["MIME-Version"] = "1.0"
    for k, v in content:
        root[k] = v
    return root


def with_x_folder(data: bytes, folder: str) -> bytes:
    """A serialised message with an ``X-Folder`` header (the mailbox folder of one copy), put
    just before its top-level ``MIME-Version`` (where :func:`build` puts ``mail.x_folder``)."""
    value = folder if folder.isascii() else Header(folder, "utf-8").encode()
    line = b"X-Folder: " + value.encode("ascii") + b"\n"
    end = data.find(b"\n\n")
    head = data if end < 0 else data[:end + 1]
    at = head.find(b"\nMIME-Version: ")
    at = (end + 1 if end >= 0 else len(data)) if at < 0 else at + 1
    return data[:at] + line + data[at:]


def serialise(msg: Message) -> bytes:
    fp = io.BytesIO()
    BytesGenerator(fp, mangle_from_=False, policy=POLICY).flatten(msg)
    data = fp.getvalue()
    if not data.endswith(b"\n"):
        data += b"\n"
    return data


_FROM_LINE = re.compile(rb"(?m)^(>*From )")


def mboxrd_entry(envelope_sender: str, date: _dt.datetime, data: bytes) -> bytes:
    """One mboxrd entry: From_ line (asctime in UTC), quoted body, trailing blank line."""
    utc = date.astimezone(_dt.timezone.utc)
    stamp = utc.strftime("%a %b ") + f"{utc.day:2d}" + utc.strftime(" %H:%M:%S %Y")
    return b"From " + envelope_sender.encode("ascii") + b" " + stamp.encode("ascii") + b"\n" + \
        _FROM_LINE.sub(rb">\1", data) + b"\n"
