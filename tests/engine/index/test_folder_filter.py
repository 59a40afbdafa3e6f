"""folder: finds a folder by any part of its path or by the whole path, whatever the case and
accents and whichever separator ('/' or '\\'): folder:inbox finds every Inbox, folder:holly/inbox
(or folder:"\\Holly\\Inbox") that one. It was the stored path, exact and case-sensitive: the
help's own example, folder:inbox, found nothing in the demo project. A message's folder is the
folder of the copy kept (the sender's Sent copy when the project has it). Real mail folders."""
from __future__ import annotations

import pytest
from mailfactory import msg

from sasc_desktop.engine.session import Session

FOLDERS = {"holly": "Holly/Inbox", "john": "John/Inbox", "sent": "John/Sent Items", "arch": "Archive/Réunions/2001"}


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("folders")
    for name, folder in FOLDERS.items():
        (tmp / "mail" / folder).mkdir(parents=True)
        (tmp / "mail" / folder / "1.eml").write_bytes(msg(subject=f"note {name}", message_id=f"<{name}@x>"))
    s = Session.create(tmp / "p")
    s.ingest([tmp / "mail"], workers=0)
    yield s
    s.close()


@pytest.mark.parametrize("query, expected", [
    ("folder:inbox", {"holly@x", "john@x"}),
    ("folder:INBOX", {"holly@x", "john@x"}),
    ("folder:holly/inbox", {"holly@x"}),
    ('folder:"\\Holly\\Inbox"', {"holly@x"}),
    ("folder:Holly/Inbox/", {"holly@x"}),
    ('folder:"sent items"', {"sent@x"}),
    ("folder:john", {"john@x", "sent@x"}),
    ("folder:reunions", {"arch@x"}),
    ("folder:archive/réunions/2001", {"arch@x"}),
    ("folder:2001 note", {"arch@x"}),
    ("folder:inbox folder:sent", {"holly@x", "john@x"}),      # ("sent" is no folder's name: "Sent Items" is)
    ("folder:holly/sent", set()),
    ("folder:mail/john", {"john@x", "sent@x"}),
])
def test_folder_by_part_or_path(session, query, expected):
    r = session.search(query, limit=50)
    assert {h.doc_id for h in r.hits} == expected and r.total == len(expected)
