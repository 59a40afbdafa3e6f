"""The document view shows the sensitivity classifier's evidence: the persona's probability and
the features pushing towards sensitive, and PII hits and cue words highlighted in the text.
Real projects with real trained models (no mocks); the HTML merge is checked exactly and by a
hypothesis property."""
from __future__ import annotations

import html
import re
from email.utils import format_datetime
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings, strategies as st
from PySide6.QtGui import QTextCursor, QTextFormat
from PySide6.QtWidgets import QMessageBox

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.evidence import (COLOURS, CUE, PII, QUERY, Mark, feature_label, merged_html, percent,
                                       sensitivity_html)

from gui_support import make_mbox, open_doc, open_project, tip_text, wait_idle

CARD = "4111 1111 1111 1111"
SPECIAL_BODY = (f"Please keep this confidential.\nMy card is {CARD} for the salary advance.\n"
                "Tell my lawyer <soon> & thanks.\n")


def _special_mbox(path):
    date = format_datetime(datetime(2001, 5, 1, 9, 0, tzinfo=timezone.utc))
    path.write_text("From holly@example.com Tue May  1 09:00:00 2001\n"
                    "From: Holly <holly@example.com>\nTo: Person 1 <person1@example.com>\n"
                    f"Subject: Confidential salary advance\nDate: {date}\nMessage-ID: <special@example.com>\n\n"
                    + SPECIAL_BODY + "\n")
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A real project of 121 messages, two personas, a model trained for the first only."""
    from sasc_desktop.engine.classify import train
    from sasc_desktop.engine.project.judgments import save_personas, save_sensitivity
    tmp = tmp_path_factory.mktemp("evidence")
    root = tmp / "project"
    with Session.create(root) as s:
        s.ingest([make_mbox(tmp / "s.mbox", 120), _special_mbox(tmp / "special.mbox")], workers=0)
        save_personas(s.store, [{"id": "holly-palmer", "name": "Holly Palmer"}, {"id": "second", "name": "Second Reader"}])
        docs = [(r[0], r[1]) for r in s.store.con.execute("SELECT doc_id, body FROM messages")]
        save_sensitivity(s.store, [("holly-palmer", "", d, int(any(w in b for w in ("salary", "doctor", "card"))))
                                   for d, b in docs])
        train(s, "holly-palmer")
        s.update_settings(active_persona="holly-palmer")
        special = s.store.con.execute("SELECT doc_id FROM messages WHERE body LIKE ?", (f"%{CARD}%",)).fetchone()[0]
        plain = docs[0][0]
        expected = {d: s.explain_sensitivity(d, "holly-palmer") for d in (special, plain)}
    return {"root": root, "special": special, "plain": plain, "explain": expected}


def char_format(browser, pos):
    """The character format of the character at ``pos`` of the browser's plain text."""
    c = QTextCursor(browser.document())
    c.setPosition(pos + 1)
    return c.charFormat()


def background(browser, pos) -> str:
    fmt = char_format(browser, pos)
    return fmt.background().color().name() if fmt.hasProperty(QTextFormat.Property.BackgroundBrush) else ""


# ------------------------------------------------------------------------------- the merge, exactly
def test_merged_html_exact_for_overlaps():
    q, p, c = COLOURS[QUERY], COLOURS[PII], COLOURS[CUE]
    # query only: the old highlight, with a tooltip
    assert merged_html("a budget b", [Mark(2, 8, QUERY)]) == (
        f'a <span style="background-color:{q};color:#000;" title="search term">budget</span> b')
    # a query term inside a PII hit, a cue overlapping its end; text with markup characters escaped
    text = "x<1234&5678>y"
    got = merged_html(text, [Mark(1, 12, PII, "PII: card"), Mark(3, 5, QUERY), Mark(10, 13, CUE, "cue: legal")])
    assert got == ("x"
                   f'<span style="background-color:{p};color:#000;" title="PII: card">&lt;1</span>'
                   f'<span style="background-color:{p};color:#000;text-decoration:underline;" '
                   f'title="PII: card; search term">23</span>'
                   f'<span style="background-color:{p};color:#000;" title="PII: card">4&amp;567</span>'
                   f'<span style="background-color:{p};color:#000;" title="PII: card; cue: legal">8&gt;</span>'
                   f'<span style="background-color:{c};color:#000;" title="cue: legal">y</span>')
    # overlapping query spans join; out-of-range and empty marks are clipped or dropped; unknown layers ignored
    assert merged_html("abcdef", [Mark(0, 3, QUERY), Mark(2, 4, QUERY), Mark(5, 5, PII), Mark(4, 99, "other"),
                                  Mark(-3, 1, QUERY)]) == (
        f'<span style="background-color:{q};color:#000;" title="search term">abcd</span>ef')
    assert merged_html("", [Mark(0, 3, PII)]) == ""
    # a tooltip label with quotes cannot break the attribute
    assert merged_html("ab", [Mark(0, 1, CUE, 'a "b" <c>')]) == (
        f'<span style="background-color:{c};color:#000;" title="a &quot;b&quot; &lt;c&gt;">a</span>b')


_PIECE = re.compile(r'<span style="([^"]*)" title="[^"]*">([^<]*)</span>|([^<]+)')


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab <>&\"'\n\té€")), max_size=40),
       st.lists(st.tuples(st.integers(-5, 45), st.integers(-5, 45), st.sampled_from([QUERY, PII, CUE]),
                          st.sampled_from(["", "PII: card", 'cue: <"x">'])), max_size=8))
def test_merged_html_round_trips_and_colours_every_covered_character(text, raw):
    marks = [Mark(a, b, layer, label) for a, b, layer, label in raw]
    out = merged_html(text, marks)
    # stripping the tags and unescaping gives back the original text, character for character
    assert html.unescape(re.sub(r"<[^>]*>", "", out)) == text
    # flat, well-formed spans only: the whole output is a sequence of pieces, no nesting
    pieces = list(_PIECE.finditer(out))
    assert "".join(m.group(0) for m in pieces) == out
    # each character has the colour of the strongest mark covering it (oracle: per character)
    shown = []
    for m in pieces:
        chunk = html.unescape(m.group(2) if m.group(3) is None else m.group(3))
        shown += [m.group(1) if m.group(3) is None else None] * len(chunk)
    for i in range(len(text)):
        layers = {mk.layer for mk in marks if max(0, mk.start) <= i < min(len(text), mk.end)}
        if not layers:
            assert shown[i] is None
        else:
            top = PII if PII in layers else CUE if CUE in layers else QUERY
            assert shown[i].startswith(f"background-color:{COLOURS[top]};")
            assert ("underline" in shown[i]) == (top != QUERY and QUERY in layers)


def test_feature_labels_read_like_words():
    assert feature_label("body", "salary") == "body word “salary”"
    assert feature_label("cue", "legal_body") == "cue words: legal (body)"
    assert feature_label("pii", "payment_card_count") == "personal information: payment card"
    assert feature_label("meta", "has_attachments") == "message: has attachments"
    assert percent(0.4567) == "45.7%"


# ------------------------------------------------------------------------------- in the window
def test_panel_shows_the_probability_and_top_features(qtbot, window, trained):
    open_project(qtbot, window, trained["root"])
    for doc_id in (trained["plain"], trained["special"]):
        e = trained["explain"][doc_id]
        open_doc(qtbot, window, doc_id)
        panel = window.doc_view.sensitivity
        assert panel.isVisible()
        assert window.doc_view.doc["sensitivity"]["explanation"]["probability"] == e["probability"]
        text = panel.text()
        assert f"{100 * e['probability']:.1f}%" in text
        assert "Holly Palmer" in text
        verdict = "likely sensitive" if e["sensitive"] else "likely releasable"
        assert verdict in text and ({"likely sensitive", "likely releasable"} - {verdict}).pop() not in text
        assert f"threshold {100 * e['threshold']:.1f}%" in text
        # the engine's own words for what the message has, then (apart) what it lacks
        assert all(f["present"] for f in e["towards_sensitive"])
        assert not any(f["present"] for f in e["absent_towards_sensitive"])
        has = [f["label"] for f in e["towards_sensitive"][:5]]
        lacks = [f["label"] for f in e["absent_towards_sensitive"][:3]]
        line = text.split("Towards sensitive:</span> ")[1].split("<br>")[0]
        assert line == html.escape(", ".join(has)) + (
            ' <span style="color:#555">· also:</span> ' + html.escape(", ".join(lacks)) if lacks else "")
        if len(e["towards_sensitive"]) > 5:
            assert html.escape(e["towards_sensitive"][5]["label"]) not in line.split(" <span")[0].split(", ")
        # never a feature and its opposite side by side as things the message has
        shown_has = line.split(" <span")[0]
        assert not ("sender is internal" in shown_has and "sender is external" in shown_has)
        assert text == sensitivity_html(window.doc_view.doc["sensitivity"])
    assert trained["explain"][trained["special"]]["sensitive"]  # the card message is the sensitive kind


def test_pii_and_cue_words_are_highlighted_at_exactly_their_text(qtbot, window, trained):
    open_project(qtbot, window, trained["root"])
    window.search_panel.query_box.setEditText("salary")
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        window.search_panel.submit()
    wait_idle(qtbot, window)
    open_doc(qtbot, window, trained["special"])
    body = window.doc_view.body
    plain = body.toPlainText()
    assert plain == SPECIAL_BODY.rstrip("\n") or plain == SPECIAL_BODY  # no character lost or doubled
    e = trained["explain"][trained["special"]]
    card = [h for h in e["pii"] if h["kind"] == "payment_card" and h["field"] == "body"]
    assert [(h["text"]) for h in card] == [CARD]
    start = plain.index(CARD)
    assert (card[0]["start"], card[0]["end"]) == (start, start + len(CARD))
    for i in range(start, start + len(CARD)):
        assert background(body, i) == COLOURS[PII]
        assert char_format(body, i).toolTip() == "PII: payment card"
    assert background(body, start - 1) != COLOURS[PII]
    assert background(body, start + len(CARD)) != COLOURS[PII]
    # cue words in soft orange, the query term "salary" (also an employment cue) underlined on it
    conf = plain.index("confidential")
    assert {background(body, i) for i in range(conf, conf + len("confidential"))} == {COLOURS[CUE]}
    assert char_format(body, conf).toolTip() == "cue: secrecy"
    sal = plain.index("salary")
    assert background(body, sal) == COLOURS[CUE]
    assert char_format(body, sal).fontUnderline()
    assert char_format(body, sal).toolTip() == "cue: employment; search term"
    lawyer = plain.index("lawyer")
    assert background(body, lawyer) == COLOURS[CUE] and char_format(body, lawyer).toolTip() == "cue: legal"
    assert background(body, plain.index("Tell")) == ""
    # the subject in the header: the cue word and the query term, colours as in the body
    header = window.doc_view.header.text()
    assert (f'<span style="background-color:{COLOURS[CUE]};color:#000;" title="cue: secrecy">Confidential</span>'
            in header)
    assert 'title="cue: employment; search term">salary</span>' in header
    window.doc_view.grab()


def test_no_model_shows_a_quiet_line_not_a_dialog(qtbot, window, project, monkeypatch):
    from sasc_desktop.engine.project.judgments import save_personas
    with Session.open(project) as s:
        save_personas(s.store, [{"id": "holly-palmer", "name": "Holly Palmer"}])
        s.update_settings(active_persona="holly-palmer")
        doc_id = s.store.con.execute("SELECT doc_id FROM messages ORDER BY id LIMIT 1").fetchone()[0]
    dialogs = []
    monkeypatch.setattr(QMessageBox, "exec", lambda self: dialogs.append(self.text()) or 0)
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    open_project(qtbot, window, project)
    open_doc(qtbot, window, doc_id)
    panel = window.doc_view.sensitivity
    assert panel.isVisible()
    assert panel.text() == ('<span style="color:#666">No sensitivity model for Holly Palmer yet (train one with '
                            'Tools ▸ Train sensitivity model…, or: '
                            f'sasc classify train {html.escape(str(project))} --persona holly-palmer)</span>')
    assert dialogs == []
    assert window.doc_view.doc["doc"]["doc_id"] == doc_id  # the message itself still shows
    assert "background-color:#ffb3b3" not in window.doc_view.body.toHtml()


def test_no_personas_no_panel(qtbot, window, project):
    with Session.open(project) as s:
        doc_id = s.store.con.execute("SELECT doc_id FROM messages ORDER BY id LIMIT 1").fetchone()[0]
    open_project(qtbot, window, project)
    open_doc(qtbot, window, doc_id)
    assert window.doc_view.doc["sensitivity"] is None
    assert not window.doc_view.sensitivity.isVisible()
    assert window.doc_view.sensitivity.text() == ""


def test_the_active_persona_is_explained_not_just_the_first(trained):
    from sasc_desktop.gui.document import load_document
    with Session.open(trained["root"]) as s:
        s.update_settings(active_persona="second")
        try:
            sens = load_document(s, trained["plain"], ())["sensitivity"]
        finally:
            s.update_settings(active_persona="holly-palmer")
        assert (sens["persona"], sens["persona_name"], sens["explanation"]) == ("second", "Second Reader", None)
        assert sensitivity_html(sens).startswith('<span style="color:#666">No sensitivity model for Second Reader yet')
        s.update_settings(active_persona=None)
        try:
            none = load_document(s, trained["plain"], ["topic"])
        finally:
            s.update_settings(active_persona="holly-palmer")
        assert none["sensitivity"] is None  # none active: nothing is explained (not the first persona)
        sens = load_document(s, trained["plain"], ["topic"])
        assert sens["sensitivity"]["persona"] == "holly-palmer"
        assert sens["sensitivity"]["explanation"]["probability"] == trained["explain"][trained["plain"]]["probability"]


def test_with_no_active_persona_the_message_shows_no_sensitivity_like_the_results(qtbot, window, trained):
    """The status bar says "Persona: none" and the results have no Sensitivity column: the
    message has no sensitivity line either; choosing a persona brings all three back."""
    from sasc_desktop.gui.models import SENS
    from gui_support import search
    open_project(qtbot, window, trained["root"])
    window.save_preferences({"active_persona": None})
    wait_idle(qtbot, window)
    try:
        assert window.persona_label.text() == "Persona: none"
        search(qtbot, window, "salary")
        assert window.search_panel.table.isColumnHidden(SENS)
        open_doc(qtbot, window, trained["special"])
        assert window.doc_view.doc["sensitivity"] is None
        assert not window.doc_view.sensitivity.isVisible() and window.doc_view.sensitivity.text() == ""
        # the PII and cue words are the persona's evidence: not highlighted either; the search term is
        body = window.doc_view.body.toHtml()
        assert COLOURS[PII] not in body and COLOURS[CUE] not in body and COLOURS[QUERY] in body
        assert "Preferences" in tip_text(window.persona_label)  # where to choose one
        window.grab().save(str(trained["root"].parent / "persona_none.png"))
        # a persona chosen in the preferences: the results and the message open show it again
        window.save_preferences({"active_persona": "holly-palmer"})
        wait_idle(qtbot, window)
        assert window.persona_label.text() == "Persona: Holly Palmer"
        assert not window.search_panel.table.isColumnHidden(SENS)
        assert window.doc_view.doc["doc"]["doc_id"] == trained["special"]
        assert window.doc_view.sensitivity.isVisible()
        assert window.doc_view.sensitivity.text().startswith("<b>Sensitivity</b> for Holly Palmer")
    finally:
        with Session.open(trained["root"]) as s:
            s.update_settings(active_persona="holly-palmer")


def test_the_line_says_what_the_message_has_and_apart_what_it_lacks():
    """The engine lists the features a message has and those whose absence pushes it towards
    sensitive apart, with labels true of the message; the line uses them as they are."""
    def f(block, name, w, present, label):
        return {"feature": f"{block}:{name}", "block": block, "name": name, "weight": w, "present": present,
                "value": 1.0 if present else 0.0, "label": label}
    e = {"sensitive": True, "probability": 0.8, "threshold": 0.5, "pii": [], "cues": [],
         "towards_sensitive": [f("meta", "sender_external", 0.044, True, "sender is external"),
                               f("body", "salary", 0.03, True, "body word “salary”")],
         "absent_towards_sensitive": [f("meta", "sender_internal", 0.044, False, "sender is not internal"),
                                      f("meta", "n_cc", 0.01, False, "nobody in Cc"),
                                      f("meta", "has_bcc", 0.009, False, "no Bcc recipients"),
                                      f("meta", "is_reply", 0.001, False, "is not a reply")]}
    info = {"persona": "p", "persona_name": "Holly Palmer", "explanation": e}
    line = sensitivity_html(info).split("<br>")[1]
    assert line == ('<span style="color:#555">Towards sensitive:</span> sender is external, body word “salary” '
                    '<span style="color:#555">· also:</span> sender is not internal, nobody in Cc, no Bcc recipients')
    # only absences
    e2 = dict(e, towards_sensitive=[])
    assert sensitivity_html(dict(info, explanation=e2)).split("<br>")[1] == (
        '<span style="color:#555">Towards sensitive:</span> sender is not internal, nobody in Cc, no Bcc recipients')
    # nothing at all
    e3 = dict(e, towards_sensitive=[], absent_towards_sensitive=[])
    assert sensitivity_html(dict(info, explanation=e3)).split("<br>")[1] == (
        '<span style="color:#555">Towards sensitive:</span> <span style="color:#666">nothing</span>')
    # an explanation of the shape before labels: the feature's name in words
    old = dict(e, towards_sensitive=[{"block": "body", "name": "salary", "weight": 0.03}])
    del old["absent_towards_sensitive"]
    assert sensitivity_html(dict(info, explanation=old)).split("<br>")[1] == (
        '<span style="color:#555">Towards sensitive:</span> body word “salary”')
