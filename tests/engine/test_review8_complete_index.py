"""A session kept open (the GUI's) finishes a rebuild another process left unfinished:
Session.complete_index indexes the messages the store marks unindexed, as Session.open does,
once the import lock is free; while another process holds it, it indexes nothing and says how
many messages searches miss. The reviewer's case: a `sasc reindex` interrupted with Ctrl+C left
the open GUI answering 0 matches for every query until the project was reopened. A real
second process runs the real Session.reindex and is interrupted at a known point (its first
progress step: the index emptied, every message marked unindexed, the lock held)."""
from __future__ import annotations

import signal

import pytest

from sasc_desktop.engine.session import Session

from held_reindex import held_reindex
from test_store_index_rebuild import check_whole, project

@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_an_open_session_finishes_a_rebuild_another_process_left(tmp_path, how):
    root = project(tmp_path)
    with Session.open(root) as s:                      # open before, as the GUI is
        assert s.search("pipeline").total == 4 and s.complete_index() == 0
        child = held_reindex(root, 12)
        try:
            # while the other process rebuilds: nothing is repaired here, and it says so
            assert s.search("pipeline").total == 0
            assert s.complete_index() == 12
            assert s.search("pipeline").total == 0 and s.stats()["unindexed"] == 12
        finally:
            child.send_signal(how)
            child.wait(60)
        assert child.returncode != 0
        # interrupted: the open session finishes the rebuild the way opening the project does
        assert s.search("pipeline").total == 0        # (a search alone does not: the GUI calls complete_index)
        assert s.complete_index() == 0                 # was: 0 matches until the project was reopened
        assert s.stats()["unindexed"] == 0 and s.index.doc_count() == 12
        hits = s.search("pipeline", limit=100)
        assert sorted(h.doc_id for h in hits.hits) == [f"m{i}@corp.com" for i in (0, 3, 6, 9)]
        assert s.complete_index() == 0
    check_whole(root)                                  # every message once, nothing to rebuild on open


def test_complete_index_is_one_small_query_when_every_message_is_indexed(tmp_path):
    root = project(tmp_path)
    with Session.open(root) as s:
        statements: list[str] = []
        s.store.con.set_trace_callback(statements.append)
        try:
            assert s.complete_index() == 0
        finally:
            s.store.con.set_trace_callback(None)
        assert statements == ["SELECT 1 FROM messages WHERE indexed = 0 LIMIT 1"]
        plan = " ".join(r[-1] for r in s.store.con.execute(
            "EXPLAIN QUERY PLAN SELECT 1 FROM messages WHERE indexed = 0 LIMIT 1"))
        assert "messages_unindexed" in plan            # the partial index, not the table


def test_complete_index_leaves_a_read_only_project_alone(tmp_path):
    root = project(tmp_path)
    with Session.open(root) as s:
        with s.store.transaction() as con:
            con.execute("UPDATE messages SET indexed = 0 WHERE id = 1")
        s.store.read_only_reason = "its folder cannot be written"  # (as another user's project opened to read)
        try:
            assert s.complete_index() == 1             # said, not repaired: no write is tried
        finally:
            s.store.read_only_reason = None
        assert s.complete_index() == 0
