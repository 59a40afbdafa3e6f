"""The message's header names its folder, as folder: finds it (the kept copy's), and the folders
its other copies came from: an archivist could not find out what to type after folder: (the
app showed no folder anywhere). Real mail folders, the real import."""
from __future__ import annotations

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import folder_line

from gui_support import open_doc, open_project, search

MAIL = ("Message-ID: <m1@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\nSubject: budget review\n"
        "Date: Mon, 5 Mar 2001 10:00:00 -0800\n\nThe budget review is on Friday.\n")


def test_the_header_names_the_folder_and_the_copies_folders(qtbot, window, tmp_path):
    for folder in ("Sent Items", "Inbox", "Archive/2001"):
        (tmp_path / "mail" / folder).mkdir(parents=True)
        (tmp_path / "mail" / folder / "1.eml").write_text(MAIL)
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([tmp_path / "mail"], workers=0)
        assert (report.ingested, report.duplicates) == (1, 2)
        kept = s.document("m1@corp.com")["folder"]
        assert [h.doc_id for h in s.search(f'folder:"{kept}"').hits] == ["m1@corp.com"]
    open_project(qtbot, window, tmp_path / "p")
    search(qtbot, window, "budget")
    open_doc(qtbot, window, "m1@corp.com")
    others = sorted({"mail/Sent Items", "mail/Inbox", "mail/Archive/2001"} - {kept})
    line = f'<span style="color:#555">Folder:</span> {kept} (copies also in {", ".join(others)})'
    assert line in window.doc_view.header.text().split("<br>")
    window.close()


def test_folder_line_exact():
    assert folder_line({"folder": "mail/Inbox", "copies": [{"folder": "mail/Inbox", "kept": 1}]}) == "mail/Inbox"
    assert folder_line({"folder": "", "copies": []}) == ""
    assert folder_line({"folder": "", "copies": [{"folder": "", "kept": 1}, {"folder": "x", "kept": 0}]}) == \
        "(top folder) (copies also in x)"
