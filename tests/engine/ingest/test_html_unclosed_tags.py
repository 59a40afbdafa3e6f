"""HTML with thousands of tags that are never closed: HTMLParser reads each to the end of the
document (quadratic: '<a ' * 12000, 36 KB, took 24 s). Such a document is taken with the tags
stripped (linear), the message is imported with a note; ordinary HTML is read as before."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailfactory import mbox, msg
from test_html_text import documents

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest import text as text_module
from sasc_desktop.engine.ingest.text import html_to_text, html_to_text_checked
from sasc_desktop.engine.session import Session

NOTE = ("its HTML has many tags that are never closed, too many to read as HTML in reasonable time; "
        "the text was taken with the tags stripped")
HOSTILE = "<a " * 12000


def test_exact_text_with_the_tags_stripped():
    assert html_to_text_checked(HOSTILE) == (HOSTILE.rstrip(), NOTE)
    assert html_to_text(HOSTILE) == HOSTILE.rstrip()
    doc = "<p>Dear Ann,</p><p>see <b>this</b> &amp; that" + HOSTILE
    assert html_to_text_checked(doc) == ("Dear Ann, see this & that" + HOSTILE.rstrip(), NOTE)
    # other shapes HTMLParser reads again and again: unclosed quoted attributes, comments never ended
    assert html_to_text_checked("<p>x</p>" + '<a title="' * 6000) == (("x " + '<a title="' * 6000).rstrip(), NOTE)
    assert html_to_text_checked("<p>y</p>" + "<!--c>" * 6000) == ("y", NOTE)


def test_imported_with_a_note(tmp_path):
    src = tmp_path / "box.mbox"
    body = "<p>Quarterly figures</p>" + HOSTILE
    src.write_bytes(mbox([msg(body=body, message_id="<h@x>", ctype="Content-Type: text/html; charset=utf-8"),
                          msg(subject="attached", message_id="<att@x>", body=(
                              "--B\nContent-Type: text/plain\n\nsee attached\n--B\nContent-Type: text/html; name=p.html\n"
                              f"Content-Disposition: attachment; filename=p.html\n\n{body}\n--B--"),
                              ctype='Content-Type: multipart/mixed; boundary="B"')]))
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([src], workers=0)
        assert (report.ingested, report.skipped) == (2, [])
        doc = s.document("h@x")
        assert doc["body"] == "Quarterly figures " + HOSTILE.rstrip()
        assert doc["notes"] == [f"HTML body: {NOTE}"]
        att = s.document("att@x")
        assert [a["name"] for a in att["attachments"]] == ["p.html"]
        assert f"attachment p.html: {NOTE}" in att["notes"]
        assert sorted(h.doc_id for h in s.search("quarterly").hits) == ["att@x", "h@x"]


_TAIL = st.sampled_from(["", "<a", "<a href=", '<img src="x', "</p", "<!-- c", "<!", "<?x", "<![CDATA[x"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), _TAIL, st.integers(0, 40))
def test_ordinary_html_is_read_as_before(doc, tail, cut):
    """Documents of ordinary shape (any elements opened and never closed, a document cut short in
    a tag) are read by HTMLParser as before: the guard never takes them for hostile."""
    html = doc[0] + tail
    html = html[:len(html) - cut] if cut < len(html) else html
    assert text_module.reread_cost(html) <= text_module.MAX_REREAD + 8 * len(html)
    assert html_to_text_checked(html)[1] != NOTE
    assert html_to_text(html) == text_module._parsed_text(html)


def test_parsed_body_note():
    m = parse_message(msg(body=HOSTILE, ctype="Content-Type: text/html; charset=utf-8"), "x")
    assert (m.body, m.notes) == (HOSTILE.rstrip(), (f"HTML body: {NOTE}",))
