"""What the window shows when the sensitivity behind it changes (review 9, real projects, real
models, the real command line in another process):
- the active persona set, or its model retrained, by another program, read by the window when it
  is activated (check_changes): the status bar, the Sens. column and the message's sensitivity
  line all follow it (only the status bar did);
- a message loaded again (a training ended while the archivist read) keeps the reader's place:
  the part, the scrolling and the attachment (it went back to part 1, the top, attachment 1);
- the "no model yet" command can be pasted when the project's path has a space;
- a PII hit crossing the header's 400-character cut is highlighted up to the cut (it was dropped)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import DocumentView, current_persona

from gui_support import open_doc, open_project, pump, search, wait_idle
from test_review8_persona_elsewhere import HOLLY, SECOND, build, set_active_elsewhere


def _train(root: Path, persona: str) -> None:
    run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "classify", "train", str(root), "--persona", persona],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def _expected(root: Path, persona: str, doc_ids) -> list[float]:
    from sasc_desktop.engine.classify import probabilities
    with Session.open(root) as s:
        probs = probabilities(s, persona)
    return [probs[d] for d in doc_ids]


def _shown(window) -> tuple[str, list[float], str]:
    model = window.search_panel.model
    return (window.persona_label.text(), [model.prob(r) for r in range(len(model.hits))],
            window.doc_view.doc["sensitivity"]["persona"])


def test_results_and_message_follow_the_persona_and_model_changed_elsewhere(qtbot, window, tmp_path):
    root = build(tmp_path)
    _train(root, HOLLY)
    _train(root, SECOND)
    open_project(qtbot, window, root)
    search(qtbot, window, "topic")
    ids = [h.doc_id for h in window.search_panel.model.hits]
    open_doc(qtbot, window, ids[0])
    holly, second = _expected(root, HOLLY, ids), _expected(root, SECOND, ids)
    assert holly != second
    assert _shown(window) == ("Persona: Holly Palmer", holly, HOLLY)

    set_active_elsewhere(root, SECOND)
    window.check_changes()              # what activating the window (or opening Tools) does
    wait_idle(qtbot, window)
    pump(100)
    wait_idle(qtbot, window)
    assert _shown(window) == ("Persona: Second Reader", second, SECOND)   # Sens. and message were Holly's
    assert [h.doc_id for h in window.search_panel.model.hits] == ids

    # Second Reader's model retrained elsewhere on changed judgments: its new scores are shown
    from sasc_desktop.engine.project.judgments import save_sensitivity
    with Session.open(root) as s:
        save_sensitivity(s.store, [(SECOND, "", d, 1) for d in ids[:6]] + [(SECOND, "", d, 0) for d in ids[6:12]])
    _train(root, SECOND)
    newer = _expected(root, SECOND, ids)
    assert newer != second
    window.check_changes()
    wait_idle(qtbot, window)
    pump(100)
    wait_idle(qtbot, window)
    assert _shown(window) == ("Persona: Second Reader", newer, SECOND)
    window.close()


def _long_message(path: Path) -> Path:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "holly@example.com", "ann@example.com", "long salary report"
    m["Message-ID"], m["Date"] = "<longreport@example.com>", "Thu, 3 May 2001 09:00:00 +0000"
    m.set_content("\n".join(f"Line {i} of the long report about the salary budget." for i in range(5000)) + "\n")
    m.add_attachment(b"first attachment\n" * 2000, maintype="text", subtype="plain", filename="a.txt")
    m.add_attachment(b"second attachment\n" * 2000, maintype="text", subtype="plain", filename="b.txt")
    path.write_bytes(bytes(m))
    return path


def test_a_message_loaded_again_after_a_training_keeps_the_readers_place(qtbot, window, tmp_path):
    root = build(tmp_path)
    with Session.open(root) as s:
        s.ingest([_long_message(tmp_path / "long.eml")], workers=0)
    open_project(qtbot, window, root)
    open_doc(qtbot, window, "longreport@example.com")
    dv = window.doc_view
    assert len(dv.body_pager.pages) >= 3
    assert dv.doc["sensitivity"].get("explanation") is None      # no model yet
    dv.body_pager.show_page(2)
    bar = dv.body.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    dv.tabs.setCurrentIndex(1)                                      # the attachments tab
    dv.attachments.setCurrentRow(1)
    pump(50)
    abar = dv.attachment_pager.browser.verticalScrollBar()
    abar.setValue(abar.maximum() // 3)
    place = (dv.body_pager.page, bar.value(), dv.attachments.currentRow(), abar.value())
    assert place[1] > 0 and place[3] > 0

    with qtbot.waitSignal(window.model_trained, timeout=300_000):
        window.train_model()
    wait_idle(qtbot, window)
    assert dv.doc["sensitivity"]["explanation"] is not None        # loaded again, with the new model
    assert (dv.body_pager.page, dv.body.verticalScrollBar().value(), dv.attachments.currentRow(),
            dv.attachment_pager.browser.verticalScrollBar().value()) == place   # was (0, 0, 0, 0)

    dv.tabs.setCurrentIndex(0)                                      # reading the body, loaded again
    bar.setValue(bar.maximum() // 4)
    body_place = (dv.body_pager.page, bar.value())
    window.open_document("longreport@example.com")
    wait_idle(qtbot, window)
    assert (dv.body_pager.page, dv.body.verticalScrollBar().value()) == body_place and body_place[1] > 0

    open_doc(qtbot, window, next(d for d in _ids(root) if d != "longreport@example.com"))
    open_doc(qtbot, window, "longreport@example.com")             # another message, then back: the top
    assert (dv.body_pager.page, dv.body.verticalScrollBar().value(), dv.attachments.currentRow()) == (0, 0, 0)
    window.close()


def _ids(root: Path) -> list[str]:
    with Session.open(root) as s:
        return [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY id")]


def test_the_train_command_shown_can_be_pasted_with_a_space_in_the_path(tmp_path):
    root = tmp_path / "my proj"
    with Session.create(root) as s:
        from sasc_desktop.engine.project.judgments import save_personas
        save_personas(s.store, [{"id": "holly palmer", "name": "Holly"}])
        hint = current_persona(s)["train_hint"]
    assert shlex.split(hint) == [str(root), "--persona", "holly palmer"]   # was split at the spaces


def test_a_pii_hit_crossing_the_header_cut_is_highlighted_up_to_it(qtbot):
    from sasc_desktop.engine.classify.pii import detect_pii
    from sasc_desktop.gui.evidence import COLOURS, PII, QUERY
    subject = "x " * 195 + "card 4111 1111 1111 1111"     # the card is characters 395-414
    hits = [h.to_json() for h in detect_pii(subject, "subject")]
    assert [(h["start"], h["end"]) for h in hits] == [(395, 414)]
    view = DocumentView()
    qtbot.addWidget(view)
    view.show_document({"doc": {"doc_id": "d", "subject": subject, "body": "b"}, "sensitivity": {
        "persona": "p", "explanation": {"sensitive": True, "probability": .9, "threshold": .5, "pii": hits, "cues": []}},
        "subject_spans": [(386, 388), (397, 404)]})      # a search term before the cut, one across it
    markup = view.header.markup()
    pieces = re.findall(r'<span style="background-color:([^;]+);[^"]*"[^>]*>([^<]*)</span>', markup)
    # the term before the cut; the card up to the cut: alone, then under the term across the cut
    assert pieces == [(COLOURS[QUERY], "x "), (COLOURS[PII], "41"), (COLOURS[PII], "11 ")]   # the card was left out
    assert markup.count("text-decoration:underline") == 1
