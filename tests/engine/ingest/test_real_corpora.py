"""The real corpora in ../shared/data (skipped where absent)."""
from __future__ import annotations

import hashlib
import re

import pytest

from sasc_desktop.engine.session import Session


def sha_tree(root):
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_spamassassin_all_accounted_for(shared_data, tmp_path):
    src = shared_data / "spamassassin"
    files = sum(1 for p in src.rglob("*") if p.is_file() and not p.name.startswith("."))
    assert files == 6046
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src])
        assert r.ingested + r.duplicates + len(r.skipped) == 6046
        assert all(x.reason for x in r.skipped)
        assert s.store.count_messages() == r.ingested == s.index.doc_count()
        assert s.stats()["unindexed"] == 0


@pytest.mark.slow
def test_enron_categories_all_parsed(shared_data, tmp_path):
    src = shared_data / "enron-categories-dev"
    before = sha_tree(src)
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src])
        assert r.ingested == 875
        assert all(x.reason == "no email headers: the first line is not a 'Name: value' header"
                   and x.source.endswith((".cats", "categories.txt")) for x in r.skipped)
        assert len(r.skipped) == 876   # 875 .cats sidecars and categories.txt
        rows = s.store.con.execute(
            "SELECT message_id, synthetic_id, date, ts, sender, from_addr, subject FROM messages").fetchall()
        assert len(rows) == 875
        for row in rows:
            assert row["message_id"] and row["synthetic_id"] == 0
            assert row["date"] and row["ts"] is not None
            assert row["sender"] and "@" in row["from_addr"]
        # subjects: every message whose source has a non-empty Subject header got it, exactly
        # (these headers are plain ASCII; 33 of the 875 sources have an empty Subject)
        by_id = {r_["message_id"]: r_["subject"] for r_ in rows}
        expected_empty = 0
        for path in sorted(src.glob("*/*.txt")):
            raw = path.read_bytes()
            mid = re.search(rb"^Message-ID:\s*<([^>]+)>", raw, re.M | re.I).group(1).decode()
            head = raw.split(b"\n\n", 1)[0]
            subj = re.search(rb"^Subject:[ \t]*(.*(?:\n[ \t].*)*)", head, re.M)
            want = " ".join(subj.group(1).decode("ascii").split()) if subj else ""
            expected_empty += not want
            assert " ".join(by_id[mid].split()) == want, path
        assert expected_empty == 33
        assert s.search("enron").total > 0
    assert sha_tree(src) == before
