"""Parsing real message bytes into Message records (exact expectations)."""
from __future__ import annotations

import base64
import quopri

from mailfactory import msg

from sasc_desktop.engine.ingest.parse import parse_message


def P(raw: bytes):
    return parse_message(raw, "test#1", "inbox")


def test_rfc2047_subjects_utf8_and_latin1_q_and_b():
    cases = {
        "=?utf-8?q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=": "Grüße aus Köln",
        "=?UTF-8?B?" + base64.b64encode("Ωμέγα report".encode()).decode() + "?=": "Ωμέγα report",
        "=?iso-8859-1?q?caf=E9_cr=E8me?=": "café crème",
        "=?ISO-8859-1?B?" + base64.b64encode("Señor Müller".encode("latin-1")).decode() + "?=": "Señor Müller",
        "Re: =?utf-8?q?na=C3=AFve?= plan": "Re: naïve plan",
    }
    for encoded, expected in cases.items():
        m = P(msg(subject=encoded))
        assert m.subject == expected
        assert m.notes == ()


def test_multipart_alternative_prefers_plain():
    raw = msg(body="""--B
Content-Type: text/plain; charset=utf-8

Plain version.
--B
Content-Type: text/html; charset=utf-8

<p>HTML <b>version</b>.</p>
--B--""", ctype='Content-Type: multipart/alternative; boundary="B"')
    m = P(raw)
    assert m.body == "Plain version."
    assert m.body_is_html is False
    assert m.attachments == ()


def test_html_only_body_readable_no_script_style_no_fetch():
    html = ("<html><head><style>p {color:red}</style><script>alert('x')</script></head><body>"
            "<h1>Budget</h1><p>First&nbsp;line &amp; more</p><img src='http://tracker.example.com/p.gif'>"
            "<ul><li>one</li><li>two</li></ul></body></html>")
    m = P(msg(body=html, ctype="Content-Type: text/html; charset=utf-8"))
    assert m.body_is_html is True
    assert m.body == "Budget\n\nFirst line & more\n\n- one\n\n- two"
    assert "alert" not in m.body and "color" not in m.body and "tracker" not in m.body


def test_base64_and_quoted_printable_bodies():
    text = "Zürich meeting at 10:00 — bring the ledger."
    b64 = base64.encodebytes(text.encode("utf-8")).decode()
    m = P(msg(body=b64, ctype="Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64"))
    assert m.body == text
    qp = quopri.encodestring(text.encode("utf-8")).decode()
    m = P(msg(body=qp, ctype="Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable"))
    assert m.body == text


def _raw_with_body_bytes(charset: str, body: bytes) -> bytes:
    head = msg(body="", ctype=f"Content-Type: text/plain; charset={charset}").rstrip(b"\n")
    return head + b"\n" + body + b"\n"


def test_wrong_charsets_decoded_with_a_note_never_a_crash():
    m = P(_raw_with_body_bytes("us-ascii", "Gruß aus München".encode("utf-8")))
    assert m.body == "Gruß aus München"
    assert any("declared us-ascii but the bytes are UTF-8" in n for n in m.notes)

    m = P(_raw_with_body_bytes("utf-8", "Gruß aus München".encode("latin-1")))
    assert m.body == "Gruß aus München"
    assert any("declared utf-8 but not valid; decoded as cp1252" in n for n in m.notes)

    m = P(_raw_with_body_bytes("x-klingon-7", "naïve café".encode("utf-8")))
    assert m.body == "naïve café"
    assert any("unknown charset 'x-klingon-7'; decoded as utf-8" in n for n in m.notes)


def test_missing_date_and_message_id_stable_synthetic_id():
    raw = msg(message_id=None, date=None)
    a, b = P(raw), P(raw)
    assert a.synthetic_id and a.message_id == b.message_id
    assert a.message_id.startswith("sasc-") and len(a.message_id) == len("sasc-") + 24
    assert a.date is None and a.timestamp is None
    assert "no Date header" in a.notes
    other = P(msg(body="different", message_id=None, date=None))
    assert other.message_id != a.message_id


def test_date_keeps_original_offset():
    m = P(msg(date="Tue, 06 Mar 2001 09:15:00 +0530"))
    assert m.date == "2001-03-06T09:15:00+05:30"
    assert m.timestamp == 983850300.0


def test_nested_rfc822_text_kept_as_attachment_text():
    inner = msg(subject="Inner secret plan", body="The inner body mentions zanzibar.",
                message_id="<inner@example.org>").decode()
    raw = msg(subject="Fwd: plan", body=f"""--B
Content-Type: text/plain

See below.
--B
Content-Type: message/rfc822

{inner}
--B--""", ctype='Content-Type: multipart/mixed; boundary="B"')
    m = P(raw)
    assert m.body == "See below."
    nested = [a for a in m.attachments if a.is_message]
    assert len(nested) == 1
    assert nested[0].mime_type == "message/rfc822"
    assert "Subject: Inner secret plan" in nested[0].text
    assert "zanzibar" in nested[0].text
    assert "zanzibar" in m.attachment_text


def test_attachment_path_traversal_name_made_safe():
    raw = msg(body="""--B
Content-Type: text/plain

body
--B
Content-Type: text/plain; name="../../x"
Content-Disposition: attachment; filename="../../x"

evil text
--B--""", ctype='Content-Type: multipart/mixed; boundary="B"')
    m = P(raw)
    (a,) = m.attachments
    assert a.name == "x"
    assert a.original_name == "../../x"
    assert a.text.strip() == "evil text"


def test_addresses_and_headers():
    m = P(msg(frm='"Fossum, Drew" <Drew.Fossum@Enron.com>', to="a@x.org, B <b@y.org>",
              extra="Cc: c@z.org\nBcc: d@w.org\nIn-Reply-To: <p@x>\nReferences: <r@x> <p@x>\nImportance: High"))
    assert m.from_addr == "drew.fossum@enron.com"
    assert m.recipient_addrs == ("a@x.org", "b@y.org", "c@z.org", "d@w.org")
    assert m.in_reply_to == "p@x" and m.references == ("r@x", "p@x")
    assert m.importance == "High"


def test_garbage_is_skipped_with_reason():
    import pytest
    from sasc_desktop.engine.ingest.parse import MalformedMessage
    with pytest.raises(MalformedMessage, match="no email headers"):
        P(b"this is just a line of text\nand another\n")
    with pytest.raises(MalformedMessage, match="empty"):
        P(b"\n\n")
