"""The demo project names every mailbox folder one way, and its copies of a message (which
differ only in X-Folder) are imported as one document with several copies."""
from __future__ import annotations

import collections
import json

import pytest

from sasc_desktop.engine.demo import people
from sasc_desktop.engine.demo_project import DEMO_MAIL, build_demo_project
from sasc_desktop.engine.session import Session

N = 300
NAMES = {"inbox": "Inbox", "sent": "Sent Items", "projects": "Projects"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = build_demo_project(tmp_path_factory.mktemp("folders") / "demo", n_messages=N, train=False)
    s = Session.open(root)
    yield root, s
    s.close()


def test_each_custodian_folder_has_one_spelling(project):
    root, s = project
    con = s.store.con
    spellings = collections.defaultdict(set)
    for location, folder in con.execute("SELECT location, folder FROM copies"):
        mbox = location.rsplit("#", 1)[0]
        custodian, name = mbox.split("/")[-2], mbox.split("/")[-1].removesuffix(".mbox")
        spellings[(custodian, name)].add(folder)
    assert spellings
    for (custodian, name), folders in spellings.items():
        p = people.BY_KEY[custodian]
        assert folders == {f"\\{p.last}_{p.first}\\{NAMES[name]}"}, (custodian, name)
    stored = {r[0] for r in con.execute("SELECT folder FROM messages")}
    assert stored <= set().union(*spellings.values())


def test_copies_differing_only_in_x_folder_are_one_document(project):
    root, s = project
    con = s.store.con
    manifest = json.loads((root / DEMO_MAIL / "manifest.json").read_text())
    counts = manifest["counts"]
    assert con.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == N
    assert con.execute("SELECT COUNT(*) FROM copies").fetchone()[0] == counts["message_copies"]
    assert counts["duplicate_copies"] > 0
    per_message = con.execute("SELECT message, COUNT(*), SUM(kept) FROM copies GROUP BY message").fetchall()
    assert len(per_message) == N
    assert sum(1 for _, n, _ in per_message if n > 1) > 0
    assert all(kept == 1 for _, _, kept in per_message)
    assert con.execute("SELECT COUNT(*) FROM skipped").fetchone()[0] == 0
    # the kept copy of a message a custodian sent is the sender's (it is in Sent Items)
    sent_twice = con.execute(
        "SELECT m.folder FROM messages m WHERE EXISTS (SELECT 1 FROM copies c WHERE c.message = m.id AND "
        "c.folder LIKE '%\\Sent Items') AND (SELECT COUNT(*) FROM copies c WHERE c.message = m.id) > 1").fetchall()
    assert sent_twice and all(f.endswith("\\Sent Items") for (f,) in sent_twice)
