"""A session opened while another process imports into the project (its import lock held, the
messages it stored not yet in the index) repairs nothing: those messages are the import's,
which indexes them. A repair used to add them too, so the index held them twice after the
import's commit (the reviewer's `sasc search` during a `sasc ingest`: 319 hits, 233 documents),
and to wait on the import's index writer. Real project, real lock, real Whoosh index."""
from __future__ import annotations


from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.importer import IMPORT_LOCK
from sasc_desktop.engine.procpool import try_lock_file, unlock_file
from sasc_desktop.engine.session import Session


def test_no_repair_while_another_import_holds_the_lock(tmp_path):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([msg(message_id=f"<r{i}@x>", subject=f"repair {i}", body="pipeline") for i in range(12)]))
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([src], workers=0)
        with s.store.transaction() as con:  # as an import leaves them: stored, not yet indexed
            con.execute("UPDATE messages SET indexed = 0 WHERE id % 3 = 0")
    fd, held = try_lock_file(root / "index" / IMPORT_LOCK)   # the other process's import
    assert fd is not None and not held
    try:
        with Session.open(root) as s:
            assert s.stats()["unindexed"] == 4                   # left to the import
            assert s.index.doc_count() == 12
            assert s.search("pipeline", limit=50).total == 12
    finally:
        unlock_file(fd)
    with Session.open(root) as s:                                # the lock free: an interrupted import's rows
        assert s.stats()["unindexed"] == 0 and s.index.doc_count() == 12
        hits = s.search("pipeline", limit=50)
        assert hits.total == 12 and len({h.doc_id for h in hits.hits}) == 12


def test_a_negative_offset_is_an_error_as_in_protected_search(tmp_path):
    import pytest
    from sasc_desktop.engine.errors import InputError
    with Session.create(tmp_path / "p") as s:
        with pytest.raises(InputError, match="offset must be 0 or more"):
            s.search("budget", offset=-3)
