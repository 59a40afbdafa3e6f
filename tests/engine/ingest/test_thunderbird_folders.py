"""A mail program's folder file is a mailbox of its own (a folder named after it) even when it
holds one message: a file without a suffix (Thunderbird's 'Local Folders/Trash', mutt's
'sent-mail'), one with a Thunderbird '<name>.msf' summary beside it, one inside a Thunderbird
'<name>.sbd' subfolder folder. A file named by a number (an MH folder's message: '1', '2') and
a file with a suffix ('.eml', a SpamAssassin corpus file '00039.abc123') holding one message
stay in the folder they are in (test_single_message_from_files.py). 17da465 put a Thunderbird
folder holding one message in its parent folder, and once it held two a re-import put the new
message under the folder's own name while the first stayed in the parent."""
from __future__ import annotations

from mailfactory import msg

from sasc_desktop.engine.ingest.sources import iter_source
from sasc_desktop.engine.session import Session

FROM = b"From - Mon Mar  5 10:00:00 2001\n"


def _m(name: str) -> bytes:
    return FROM + msg(subject=name, message_id=f"<{name}@x>") + b"\n"


def _thunderbird(tmp_path):
    tb = tmp_path / "tb"
    local = tb / "Local Folders"
    (local / "Inbox.sbd").mkdir(parents=True)
    (local / "Archives.sbd").mkdir()
    (local / "Inbox").write_bytes(_m("in1") + _m("in2"))
    (local / "Trash").write_bytes(_m("trash1"))
    (local / "Inbox.sbd" / "Projects").write_bytes(_m("proj1"))
    (local / "Archives.sbd" / "2001").write_bytes(_m("arch1"))      # a yearly archive: named by a number
    (local / "Work.2001").write_bytes(_m("work1"))                  # a folder name with a dot ...
    (local / "Work.2001.msf").write_bytes(b"// <!-- <mdb:mork:z v=\"1.4\"/> -->\n")  # ... its summary says so
    (local / "Inbox.sbd" / "note.eml").write_bytes(_m("note1"))     # a saved message, not a folder
    return tb


def _mh_and_mutt(tmp_path):
    mail = tmp_path / "mail"
    (mail / "inbox").mkdir(parents=True)
    for n in (1, 2, 3):  # an MH folder: one message per file, named by its number
        (mail / "inbox" / str(n)).write_bytes(_m(f"mh{n}"))
    (mail / "inbox" / "4.").write_bytes(_m("mh4"))  # (Enron's maildir names them so)
    (mail / "sent-mail").write_bytes(_m("sent1"))   # mutt's sent mailbox, one message in it
    return mail


def _folders(source):
    return [(i.location.removeprefix(str(source)), i.folder) for i in iter_source(source)]


def test_thunderbird_folders(tmp_path):
    tb = _thunderbird(tmp_path)
    assert [f for f in _folders(tb) if not f[0].endswith(".msf")] == [
        ("/Local Folders/Inbox#1", "tb/Local Folders/Inbox"), ("/Local Folders/Inbox#2", "tb/Local Folders/Inbox"),
        ("/Local Folders/Trash#1", "tb/Local Folders/Trash"),
        ("/Local Folders/Work.2001#1", "tb/Local Folders/Work.2001"),
        ("/Local Folders/Archives.sbd/2001#1", "tb/Local Folders/Archives.sbd/2001"),
        ("/Local Folders/Inbox.sbd/Projects#1", "tb/Local Folders/Inbox.sbd/Projects"),
        ("/Local Folders/Inbox.sbd/note.eml#1", "tb/Local Folders/Inbox.sbd")]


def test_mh_messages_and_mutt_mailbox(tmp_path):
    mail = _mh_and_mutt(tmp_path)
    assert _folders(mail) == [
        ("/sent-mail#1", "mail/sent-mail"),
        ("/inbox/1#1", "mail/inbox"), ("/inbox/2#1", "mail/inbox"), ("/inbox/3#1", "mail/inbox"),
        ("/inbox/4.#1", "mail/inbox")]


def test_given_directly(tmp_path):
    local = _thunderbird(tmp_path) / "Local Folders"
    assert [i.folder for i in iter_source(local / "Trash")] == ["Trash"]
    assert [i.folder for i in iter_source(local / "Inbox.sbd" / "Projects")] == ["Projects"]
    assert [i.folder for i in iter_source(local / "Work.2001")] == ["Work.2001"]
    assert [i.folder for i in iter_source(local / "Inbox.sbd" / "note.eml")] == ["Inbox.sbd"]
    mail = _mh_and_mutt(tmp_path)
    assert [i.folder for i in iter_source(mail / "sent-mail")] == ["sent-mail"]
    assert [i.folder for i in iter_source(mail / "inbox" / "2")] == ["inbox"]


def _in(s, folder):
    return sorted(h.doc_id for h in s.search(f'folder:"{folder}"', limit=50).hits)


def test_folder_filter_and_reimport(tmp_path):
    tb = _thunderbird(tmp_path)
    trash = tb / "Local Folders" / "Trash"
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([tb], workers=0).ingested == 7
        assert _in(s, "tb/Local Folders/Trash") == ["trash1@x"]
        assert _in(s, "tb/Local Folders/Inbox.sbd/Projects") == ["proj1@x"]
        # (a folder's path finds its subfolders' mail too: folder:"tb/Local Folders" is all of it)
        assert _in(s, "tb/Local Folders") == sorted(h.doc_id for h in s.search("folder:tb", limit=50).hits)
        trash.write_bytes(trash.read_bytes() + _m("trash2"))  # Thunderbird deletes another message
        report = s.ingest([tb], workers=0)
        assert report.ingested == 1
        assert _in(s, "tb/Local Folders/Trash") == ["trash1@x", "trash2@x"]
        assert s.store.con.execute("SELECT folder FROM messages WHERE doc_id = 'trash1@x'").fetchone()[0] \
            == "tb/Local Folders/Trash"


def test_msf_summaries_are_passed_over(tmp_path):
    """Thunderbird's '<folder>.msf' summaries are its own bookkeeping, not mail: passed over
    without a skip (a real profile had one 'first line is not a header' skip per folder)."""
    tb = _thunderbird(tmp_path)
    (tb / "Local Folders" / "Inbox.msf").write_bytes(b"// <!-- <mdb:mork:z v=\"1.4\"/> -->\n")
    assert not [i for i in iter_source(tb) if i.location.endswith(".msf")]
    with Session.create(tmp_path / "p") as s:
        rep = s.ingest([tb], workers=0)
    assert (rep.ingested, rep.skipped) == (7, [])
