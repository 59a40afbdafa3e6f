"""Ingesting real mailboxes into real projects (SQLite + Whoosh), exact expectations."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session


@pytest.fixture
def project(tmp_path):
    s = Session.create(tmp_path / "proj")
    yield s
    s.close()


def files_of(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def all_files(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


def test_mbox_from_quoting_round_trip(project, tmp_path):
    body = "Dear team,\nFrom here on we meet weekly.\n>From the minutes: ok\nBye"
    src = tmp_path / "box.mbox"
    src.write_bytes(mbox([msg(body=body, message_id="<q1@x>"), msg(subject="Two", message_id="<q2@x>")]))
    assert b"\n>From here on" in src.read_bytes() and b"\n>>From the minutes" in src.read_bytes()
    r = project.ingest([src], workers=0)
    assert (r.ingested, r.duplicates, r.skipped) == (2, 0, [])
    doc = project.document("q1@x")
    assert doc["body"] == body
    assert b"\nFrom here on we meet weekly.\n>From the minutes" in project.raw_message("q1@x")
    assert [h.doc_id for h in project.search('"from here on"').hits] == ["q1@x"]


def test_maildir_cur_and_new_tmp_ignored(project, tmp_path):
    md = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (md / sub).mkdir(parents=True)
    (md / "cur" / "1.host:2,S").write_bytes(msg(subject="seen", message_id="<c@x>"))
    (md / "new" / "2.host").write_bytes(msg(subject="unseen", message_id="<n@x>"))
    (md / "tmp" / "3.host").write_bytes(msg(subject="being delivered", message_id="<t@x>"))
    r = project.ingest([md], workers=0)
    assert r.ingested == 2 and r.skipped == []
    ids = {row[0] for row in project.store.con.execute("SELECT doc_id FROM messages")}
    assert ids == {"c@x", "n@x"}


def test_duplicates_keep_sender_copy_even_when_second(project, tmp_path):
    base = dict(subject="Quarterly numbers", message_id="<dup@x>", body="Numbers attached.",
                frm="Alice <alice@example.org>", to="bob@example.org")
    received = msg(**base)
    sent = msg(**base, extra="Bcc: carol@example.org")
    folder = tmp_path / "mail"
    (folder / "inbox").mkdir(parents=True)
    (folder / "sent").mkdir()
    (folder / "inbox" / "1.eml").write_bytes(received)   # inbox sorts before sent: read first
    (folder / "sent" / "1.eml").write_bytes(sent)
    (folder / "inbox" / "2.eml").write_bytes(msg(subject="Other subject", message_id="<dup@x>"))
    r = project.ingest([folder], workers=0)
    assert (r.ingested, r.duplicates, len(r.skipped)) == (2, 1, 0)
    doc = project.document("dup@x")
    assert doc["bcc"] == "carol@example.org"
    assert doc["folder"] == "mail/sent"
    assert [(c["folder"], c["kept"]) for c in doc["copies"]] == [("mail/inbox", 0), ("mail/sent", 1)]
    # same Message-ID, different subject: a separate document
    assert project.store.count_messages() == 2
    assert ("alice@example.org", "carol@example.org", "bcc", 1) in project.network()
    assert [h.doc_id for h in project.search("quarterly").hits] == ["dup@x"]
    assert project.index.doc_count() == 2


def test_idempotent_reingest_and_sources_untouched(project, tmp_path):
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "a.mbox").write_bytes(mbox([msg(message_id=f"<i{n}@x>", subject=f"s{n}") for n in range(30)]))
    (folder / "b.eml").write_bytes(msg(message_id="<b@x>"))
    (folder / "junk.txt").write_bytes(b"not a message at all\n")
    before, stat_before = files_of(folder), {p: os.stat(p).st_mtime_ns for p in folder.iterdir()}
    r1 = project.ingest([folder], workers=2)
    assert (r1.ingested, r1.duplicates) == (31, 0)
    assert [s.reason for s in r1.skipped] == ["no email headers: the first line is not a 'Name: value' header"]
    r2 = project.ingest([folder], workers=0)
    assert (r2.ingested, r2.duplicates, len(r2.skipped)) == (0, 31, 1)
    assert files_of(folder) == before
    assert {p: os.stat(p).st_mtime_ns for p in folder.iterdir()} == stat_before
    assert project.store.count_messages() == 31 == project.index.doc_count()


def test_unsafe_attachment_name_writes_nothing_outside_project(project, tmp_path):
    raw = msg(message_id="<att@x>", body="""--B
Content-Type: text/plain

body
--B
Content-Type: text/csv; name="../../x"
Content-Disposition: attachment; filename="../../x"

a,b
1,2
--B--""", ctype='Content-Type: multipart/mixed; boundary="B"')
    src = tmp_path / "in" / "m.eml"
    src.parent.mkdir()
    src.write_bytes(raw)
    outside_before = all_files(tmp_path) - all_files(project.root)
    project.ingest([src], workers=0)
    outside_after = all_files(tmp_path) - all_files(project.root)
    assert outside_after == outside_before
    (att,) = project.document("att@x")["attachments"]
    assert (att["name"], att["original_name"], att["mime_type"]) == ("x", "../../x", "text/csv")
    assert att["text"].strip() == "a,b\n1,2"
    assert not (tmp_path / "x").exists() and not (project.root.parent / "x").exists()


def test_threads_references_in_reply_to_and_subject(project, tmp_path):
    msgs = [
        msg(subject="Budget", message_id="<root@x>", date="Mon, 05 Mar 2001 10:00:00 +0000"),
        msg(subject="Re: Budget", message_id="<r1@x>", extra="In-Reply-To: <root@x>",
            date="Mon, 05 Mar 2001 11:00:00 +0000"),
        msg(subject="Re: Budget", message_id="<r2@x>", extra="References: <root@x> <r1@x>",
            date="Mon, 05 Mar 2001 12:00:00 +0000"),
        msg(subject="RE: budget", message_id="<r3@x>", date="Mon, 05 Mar 2001 13:00:00 +0000"),
        msg(subject="Budget", message_id="<other@x>", date="Mon, 05 Mar 2001 14:00:00 +0000"),
    ]
    src = tmp_path / "t.mbox"
    src.write_bytes(mbox(msgs))
    project.ingest([src], workers=0)
    assert [t["doc_id"] for t in project.thread("r2@x")] == ["root@x", "r1@x", "r2@x", "r3@x"]
    assert [t["doc_id"] for t in project.thread("other@x")] == ["other@x"]
    hits = project.search("budget thread:root@x", limit=10)
    assert sorted(h.doc_id for h in hits.hits) == ["r1@x", "r2@x", "r3@x", "root@x"]


def test_network_edges(project, tmp_path):
    src = tmp_path / "n.mbox"
    src.write_bytes(mbox([
        msg(message_id="<e1@x>", frm="a@x.org", to="b@x.org, c@x.org", extra="Cc: d@x.org"),
        msg(message_id="<e2@x>", frm="a@x.org", to="b@x.org"),
    ]))
    project.ingest([src], workers=0)
    assert sorted(project.network()) == [
        ("a@x.org", "b@x.org", "to", 2), ("a@x.org", "c@x.org", "to", 1), ("a@x.org", "d@x.org", "cc", 1)]


def consistent(s: Session) -> None:
    """Every row searchable by its doc_id, no index document without a row."""
    rows = {r[0]: r[1] for r in s.store.con.execute("SELECT doc_id, indexed FROM messages")}
    searcher = s.index.searcher()
    indexed = {f["doc_id"] for f in searcher.all_stored_fields()}
    assert indexed == set(rows)
    assert set(rows.values()) <= {1}


def test_cancel_leaves_consistent_project(tmp_path):
    src = tmp_path / "big.mbox"
    src.write_bytes(mbox([msg(message_id=f"<c{n}@x>", subject=f"cancel test {n}") for n in range(1600)]))
    s = Session.create(tmp_path / "p")
    progress = Progress(lambda done, total, m: progress.cancel() if done >= 500 else None)
    r = s.ingest([src], progress, workers=0)
    assert r.cancelled and 500 <= r.ingested < 1600
    consistent(s)
    s.close()
    s = Session.open(tmp_path / "p")
    consistent(s)
    r2 = s.ingest([src], workers=0)
    assert r.ingested + r2.ingested == 1600 and s.store.count_messages() == 1600
    consistent(s)
    s.close()


def test_killed_import_resumes(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    n = 6000
    src = tmp_path / "big.mbox"
    src.write_bytes(mbox([msg(message_id=f"<k{i}@x>", subject=f"kill test {i}",
                              body=f"message number {i} about the pipeline " * 20) for i in range(n)]))
    proj = tmp_path / "p"
    Session.create(proj).close()
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from sasc_desktop.cli import main; sys.exit(main())", "ingest", str(proj), str(src), "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import sqlite3
    deadline = time.monotonic() + 120
    count = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            con = sqlite3.connect(proj / "project.sqlite", timeout=1)
            count = con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
            con.close()
        except sqlite3.Error:
            continue
        if count >= 500:
            break
    assert proc.poll() is None, "the import finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < count < n
    s = Session.open(proj)          # opening repairs the index from the store
    consistent(s)
    stored = s.store.count_messages()
    assert all(s.search(f"thread:k{i}@x").total == 1 for i in (0, 1, stored - 1))
    r = s.ingest([src], workers=0)
    assert r.ingested == n - stored and r.duplicates == stored
    assert s.store.count_messages() == n
    consistent(s)
    s.close()


def test_cli_ingest_json_shape(tmp_path):
    import json
    import subprocess
    import sys
    src = tmp_path / "s.mbox"
    src.write_bytes(mbox([msg(message_id="<j1@x>"), b"garbage line\n"]))
    cli = [sys.executable, "-c", "import sys; from sasc_desktop.cli import main; sys.exit(main())"]
    assert subprocess.run([*cli, "init", str(tmp_path / "p")], capture_output=True).returncode == 0
    r = subprocess.run([*cli, "ingest", str(tmp_path / "p"), str(src), "--json", "--workers", "0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"ingested", "duplicates", "skipped", "seconds"}
    assert (out["ingested"], out["duplicates"]) == (1, 0)
    assert out["skipped"] == [{"source": f"{src.resolve()}#2",
                               "reason": "no email headers: the first line is not a 'Name: value' header"}]
    r = subprocess.run([*cli, "ingest", str(tmp_path / "p"), str(tmp_path / "missing.mbox")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "no such file or folder" in r.stderr + r.stdout
    assert "Traceback" not in r.stderr
