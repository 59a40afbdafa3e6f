"""A message shown in parts says which parts hold the evidence its sensitivity line counts, not
only the search terms: a card number in part 2 of a 274,000-character message was counted
("1 PII hit") but not pointed to."""
from __future__ import annotations

from bisect import bisect_right
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timezone
from pathlib import Path

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import PagedBrowser
from sasc_desktop.gui.evidence import CUE, PII, QUERY, Mark, PagedText

from gui_support import open_doc, open_project, pump, search
from test_train_action import build

SHOTS = Path("/tmp/s7/gui_fix")
CARD = "4111 1111 1111 1111"


def test_the_notice_names_the_parts_with_each_kind_of_evidence(qtbot):
    text = "".join(f"{i:09d}\n" for i in range(10))          # ten parts of ten characters
    marks = [Mark(3, 5, QUERY), Mark(93, 95, QUERY), Mark(41, 44, PII, "PII: payment card"),
             Mark(45, 47, PII), Mark(72, 75, PII), Mark(12, 14, CUE), *(Mark(10 * i, 10 * i + 1, CUE) for i in range(10))]
    pager = PagedBrowser("message")
    qtbot.addWidget(pager)
    pager.set_pages(PagedText(text, marks, size=10))
    assert pager.notice.text() == ("<b>Long message:</b> part 1 of 10 (characters 1–10 of 100). Search terms in "
                                   "parts 1, 10. Personal information in parts 5, 8. Sensitivity cue words in every part.")
    pager.set_pages(PagedText(text, [Mark(41, 44, PII)], size=10))
    assert pager.notice.text() == ("<b>Long message:</b> part 1 of 10 (characters 1–10 of 100). "
                                   "Personal information in part 5.")
    pager.set_pages(PagedText(text, [], size=10))
    assert pager.notice.text() == "<b>Long message:</b> part 1 of 10 (characters 1–10 of 100)."


def _long_eml(folder: Path) -> None:
    """The reviewer's long message: 3,200 lines, a card number and a salary on line 1,500."""
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "Long Writer <long@corp.com>", "bob@corp.com", "Very long budget report"
    m["Date"] = format_datetime(datetime(2001, 5, 1, 11, 0, tzinfo=timezone.utc))
    m["Message-ID"] = "<l3@corp.com>"
    lines = [f"Line {i}: the budget forecast for the pipeline and the trading desk is under review." for i in range(3200)]
    lines[1500] += f" My card is {CARD} and my salary is confidential."
    m.set_content("\n".join(lines))
    folder.mkdir()
    (folder / "03_long.eml").write_bytes(bytes(m))


def test_a_card_number_in_part_2_of_a_long_message_is_pointed_to(qtbot, window, tmp_path):
    from sasc_desktop.engine.classify import train
    root = build(tmp_path)["root"]
    _long_eml(tmp_path / "eml")
    with Session.open(root) as s:
        assert s.ingest([tmp_path / "eml"], workers=0).ingested == 1
        train(s, "holly-palmer")
    open_project(qtbot, window, root)
    search(qtbot, window, "budget")
    open_doc(qtbot, window, "l3@corp.com")
    view = window.doc_view
    pager, pages = view.body_pager, view.doc["body_pages"]
    explanation = view.doc["sensitivity"]["explanation"]
    body = view.doc["doc"]["body"]
    card_at = body.index(CARD)
    card_part = bisect_right(pages.bounds, card_at)          # 1-based
    assert len(pages) == 3 and card_part == 2
    assert any(h["field"] == "body" and h["start"] == card_at for h in explanation["pii"])
    notice = pager.notice.text()
    assert "Personal information in part 2." in notice, notice
    cue_parts = sorted({bisect_right(pages.bounds, h["start"]) for h in explanation["cues"] if h["field"] == "body"})
    assert cue_parts                                         # the engine's cue words, where it found them
    where = ("every part" if len(cue_parts) == len(pages) else
             f"part{'s' if len(cue_parts) > 1 else ''} {', '.join(map(str, cue_parts))}")
    assert f"Sensitivity cue words in {where}." in notice
    assert "Search terms in every part." in notice
    pager.next_button.click()
    pump(50)
    assert "Personal information in part 2." in pager.notice.text() and pager.page == 1
    assert "#ffb3b3" in view.body.toHtml()                  # and there it is highlighted
    if SHOTS.is_dir():
        view.grab().save(str(SHOTS / "long_message_part2.png"))
