"""A file holding one message that starts with a From line (a message saved by Thunderbird,
the SpamAssassin corpus) is in the folder it is in, as any message file is; only a file holding
several messages, or named as an mbox is (.mbox, .mbx), is a mailbox of its own (a folder
named after it)."""
from __future__ import annotations

from mailfactory import msg

from sasc_desktop.engine.ingest.sources import iter_source
from sasc_desktop.engine.session import Session

FROM = b"From - Mon Mar  5 10:00:00 2001\n"


def _tree(tmp_path):
    f1 = tmp_path / "f1"
    (f1 / "sub").mkdir(parents=True)
    for n in (1, 2, 3):
        (f1 / f"m{n}.eml").write_bytes(FROM + msg(subject=f"hello {n}", message_id=f"<m{n}@x>"))
    (f1 / "m4.eml").write_bytes(msg(subject="hello 4", message_id="<m4@x>"))
    (f1 / "00039.abc123").write_bytes(FROM + msg(subject="hello 5", message_id="<m5@x>"))
    (f1 / "single.mbox").write_bytes(FROM + msg(subject="hello 6", message_id="<m6@x>"))
    (f1 / "sub" / "noext").write_bytes(FROM + msg(subject="hello 7", message_id="<m7@x>") + b"\n"
                                       + FROM + msg(subject="hello 8", message_id="<m8@x>"))
    (f1 / "sub" / "one.mbx").write_bytes(FROM + msg(subject="hello 9", message_id="<m9@x>"))
    return f1


def test_folders(tmp_path):
    f1 = _tree(tmp_path)
    assert [(i.location.removeprefix(str(f1)), i.folder) for i in iter_source(f1)] == [
        ("/00039.abc123#1", "f1"), ("/m1.eml#1", "f1"), ("/m2.eml#1", "f1"), ("/m3.eml#1", "f1"),
        ("/m4.eml", "f1"), ("/single.mbox#1", "f1/single"),
        ("/sub/noext#1", "f1/sub/noext"), ("/sub/noext#2", "f1/sub/noext"), ("/sub/one.mbx#1", "f1/sub/one")]


def test_given_directly(tmp_path):
    f1 = _tree(tmp_path)
    assert [i.folder for i in iter_source(f1 / "m1.eml")] == ["f1"]
    assert [i.folder for i in iter_source(f1 / "single.mbox")] == ["single"]
    assert [i.folder for i in iter_source(f1 / "sub" / "noext")] == ["noext", "noext"]


def test_folder_filter_finds_all(tmp_path):
    f1 = _tree(tmp_path)
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([f1], workers=0).ingested == 9
        # (folder:f1 is f1 and its subfolders; the exact path names one folder)
        found = sorted(h.doc_id for h in s.search("folder:f1 hello", limit=50).hits)
        assert found == sorted(h.doc_id for h in s.search("hello", limit=50).hits) and len(found) == 9
        assert sorted(h.doc_id for h in s.search('folder:"f1/single" hello', limit=50).hits) != found
