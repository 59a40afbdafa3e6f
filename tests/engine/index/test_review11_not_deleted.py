"""A query of NOTs alone that Whoosh runs itself (-report -"zz yy": a phrase) listed a deleted
document: Whoosh's InverseMatcher skipped deleted documents except one right after the NOT-ed
part's last match in a segment. An import re-threading a message indexes it again (its old
document deleted), so the message was listed twice (total 3 of 2 messages). query.Not's matcher
skips it. Oracle: the project's messages scanned for the words; real import of two mailboxes,
real Whoosh index (two segments, a deleted document)."""
from __future__ import annotations

import pytest
from index_support import run_by_whoosh
from mailfactory import mbox, msg

from sasc_desktop.engine.session import Session

FIRST = [
    dict(message_id="<m1@x>", subject="quarterly report", body="the quarterly report is attached",
         frm="Ann <ann@x.org>", to="bob@x.org", date="Mon, 10 Jun 2019 10:00:00 +0000"),
    dict(message_id="<m2@x>", subject="Re: lunch", body="sure, see you at noon", frm="Bob <bob@x.org>",
         to="ann@x.org", date="Wed, 12 Jun 2019 10:00:00 +0000"),
]
SECOND = [   # (arriving, it becomes the head of m2's thread: m2 is indexed again)
    dict(message_id="<m0@x>", subject="lunch", body="lunch tomorrow?", frm="Ann <ann@x.org>",
         to="bob@x.org", date="Tue, 11 Jun 2019 10:00:00 +0000"),
]
MAILS = FIRST + SECOND


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    base = tmp_path_factory.mktemp("notdel")
    s = Session.create(base / "proj")
    for n, mails in enumerate((FIRST, SECOND)):
        src = base / f"b{n + 1}.mbox"
        src.write_bytes(mbox([msg(**m) for m in mails]))
        s.ingest([src], workers=0)
    searcher = s.index.searcher()
    assert searcher.doc_count_all() - searcher.doc_count() >= 1   # (a deleted document: the case)
    yield s
    s.close()


def answers(s, query, whoosh: bool):
    with run_by_whoosh(whoosh):
        r = s.search(query, limit=100)
        ranked = s.index.ranked(query)
    return r.total, sorted(h.doc_id for h in r.hits), ranked[2], len(ranked[0])


def holding(*words) -> list[str]:
    """The messages none of ``words`` is in (subject or body, as words), by a scan."""
    def has(m, w):
        return w in f"{m['subject']} {m['body']}".lower().replace(",", " ").replace("?", " ").split()
    return sorted(m["message_id"][1:-1] for m in MAILS if not any(has(m, w) for w in words))


@pytest.mark.parametrize("whoosh", [True, False], ids=["whoosh", "fast"])
@pytest.mark.parametrize("query, left_out", [
    ('-report -"zz yy"', ["report"]),
    ('NOT report NOT "zz yy"', ["report"]),
    ('-"quarterly report"', ["report"]),           # (a phrase alone: m1 is the only one holding it)
    ('-lunch -"zz yy"', ["lunch"]),
    ('-noon -"zz yy"', ["noon"]),
    ('-report -"see you"', ["report", "see"]),
    ('-zzz -"zz yy"', []),
    ("-report", ["report"]),                      # (no phrase: the fast path, the same answers)
    ("-report -noon", ["report", "noon"]),
    ("NOT (lunch OR quarterly)", ["lunch", "quarterly"]),
])
def test_nots_alone_never_list_a_deleted_document(project, query, left_out, whoosh):
    want = holding(*left_out)
    total, ids, ranked_total, ranked_len = answers(project, query, whoosh)
    assert (total, ids, ranked_total, ranked_len) == (len(want), want, len(want), len(want))


def test_the_exact_case(project):
    """The review's case: total 3 (m2, m0, m2) by Whoosh, 2 for -report."""
    assert answers(project, '-report -"zz yy"', True)[:2] == (2, ["m0@x", "m2@x"])
