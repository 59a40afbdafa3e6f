"""Session.search(sort=...) sorts the whole result set, not a page: every page of a sorted search
equals a brute-force oracle (all hits fetched in rank order, sorted in Python) on a real demo
project, for every sort, direction and offset; ranks, scores and the total stay the search's own."""
from __future__ import annotations

from datetime import datetime

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session
from sasc_desktop.engine.sorting import display_name, sender_sort_key, text_sort_key

# Plain words (the fast scorer), and queries Whoosh runs itself (AND, a phrase, a filter).
QUERIES = ("please", "draft OR thanks", "please AND draft", '"let me know"', "please from:arclight.example.com")

# Messages matching "please" without a date, a sender or a subject, and a mixed-case sender /
# subject: missing values go last in both directions; case is ignored.
EXTRA = [
    msg("Undated note", "please file this", frm="Zed <zed@example.org>", message_id="<nodate1@x>", date=None),
    msg("another undated", "please again", frm="amy <amy@example.org>", message_id="<nodate2@x>", date=None),
    msg("", "please, no subject", frm="Bob <bob@example.org>", message_id="<nosubj@x>",
        date="Tue, 01 Jan 2019 20:00:00 +1000"),
    msg("no sender", "please, no sender", frm="", message_id="<nosender@x>", date="Tue, 01 Jan 2019 09:00:00 -0500"),
    msg("ALPHA capitals", "please shout", frm="AARON <aaron@example.org>", message_id="<caps@x>",
        date="Thu, 03 Jan 2019 09:00:00 +0000"),
    # Sorted by the name shown, not the raw header: quotes a mail program added, an accent.
    msg("\u00c9tude of quotes", "please see the quoted name", frm="\"'Quentin Quote'\" <zz@example.org>",
        message_id="<quoted@x>", date="Fri, 04 Jan 2019 09:00:00 +0000"),
    msg("accented sender", "please, accents", frm="\u00c9mile Zola <emile@example.org>", message_id="<accent@x>",
        date="Sat, 05 Jan 2019 09:00:00 +0000"),
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    base = tmp_path_factory.mktemp("sorted")
    root = build_demo_project(base / "proj", n_messages=200, train=False)
    extra = base / "extra.mbox"
    extra.write_bytes(mbox(EXTRA))
    with Session.open(root) as s:
        assert s.ingest([extra], workers=0).ingested == len(EXTRA)
    s = Session.open(root)
    yield s
    s.close()


def oracle(hits, sort: str, descending: bool):
    """The hits (in rank order) sorted in Python: missing values last either way, ties by rank."""
    def key(h):
        if sort == "date":
            return None if not h.date else datetime.fromisoformat(h.date).timestamp()
        value = sender_sort_key(h.sender) if sort == "sender" else text_sort_key(h.subject)
        return value or None
    present = [h for h in hits if key(h) is not None]
    missing = [h for h in hits if key(h) is None]
    # (sorted() is stable with reverse=True too: ties keep rank order)
    return sorted(present, key=key, reverse=descending) + missing


@pytest.mark.parametrize("query", QUERIES)
def test_every_page_of_a_sorted_search_is_the_oracle_s(demo, query):
    ranked = demo.search(query, limit=10_000)
    total = ranked.total
    assert total == len(ranked.hits) > 5
    assert [h.rank for h in ranked.hits] == list(range(1, total + 1))
    for sort in ("date", "sender", "subject"):
        for descending in (False, True):
            want = oracle(ranked.hits, sort, descending)
            for offset, limit in ((0, 10), (7, 10), (0, total), (total - 3, 10), (total, 10), (10, 1)):
                page = demo.search(query, limit=limit, offset=offset, sort=sort, descending=descending)
                assert page.total == total
                assert page.hits == tuple(want[offset:offset + limit]), (sort, descending, offset, limit)
                assert page.terms == ranked.terms


def test_missing_values_go_last_in_both_directions_and_case_is_ignored(demo):
    for descending in (False, True):
        dates = demo.search("please", limit=10_000, sort="date", descending=descending).hits
        assert {h.doc_id for h in dates[-2:]} == {"nodate1@x", "nodate2@x"}   # undated: last
        assert all(h.date for h in dates[:-2])
        assert dates[-2].rank < dates[-1].rank                                  # (ties: rank order)
        subjects = demo.search("please", limit=10_000, sort="subject", descending=descending).hits
        assert subjects[-1].doc_id == "nosubj@x" and all(h.subject for h in subjects[:-1])
        senders = demo.search("please", limit=10_000, sort="sender", descending=descending).hits
        assert senders[-1].doc_id == "nosender@x" and all(h.sender for h in senders[:-1])
    senders = [h.sender for h in demo.search("please", limit=10_000, sort="sender").hits]
    assert senders[0].startswith("AARON")          # before 'Ahmed ...' and 'amy' (case ignored)
    amy = senders.index("amy <amy@example.org>")
    assert amy < min(i for i, x in enumerate(senders) if x[:1] == "B")   # (not after every capital)
    # By the name shown, blind to quotes and accents: 'Quentin Quote' among the Q's although its
    # raw header starts with a quote (and its address with z); 'Émile' among the E's, not after 'Z'.
    names = [display_name(x) for x in senders]
    assert "Quentin Quote" in names and "\u00c9mile Zola" in names
    firsts = [text_sort_key(n)[:1] for n in names]
    assert firsts[-1] == "" and firsts[:-1] == sorted(firsts[:-1])    # (the one without a sender last)
    assert firsts[names.index("Quentin Quote")] == "q" and firsts[names.index("\u00c9mile Zola")] == "e"
    subjects = [h.subject for h in demo.search("please", limit=10_000, sort="subject").hits]
    firsts = [text_sort_key(x)[:1] for x in subjects]
    assert firsts[-1] == "" and firsts[:-1] == sorted(firsts[:-1]) and firsts[subjects.index("\u00c9tude of quotes")] == "e"
    assert any(f > "e" for f in firsts)
    # Dates by the moment they name: +10:00 on 1 January is before -05:00 on 1 January ... in UTC
    dated = [h for h in demo.search("please", limit=10_000, sort="date").hits if h.date]
    times = [datetime.fromisoformat(h.date).timestamp() for h in dated]
    assert times == sorted(times) and [h.date for h in dated] != sorted(h.date for h in dated)


def test_a_bad_sort_is_refused_with_the_choices(demo):
    with pytest.raises(InputError, match="date, sender, subject"):
        demo.search("please", sort="size")


@pytest.mark.parametrize("sender, shown, key", [
    ("Jessica Tran <jessica.tran@x.org>", "Jessica Tran", "jessica tran"),
    ("\"'Jeff Dasovich'\" <jeff@x.org>", "Jeff Dasovich", "jeff dasovich"),
    ("\"Smith, John\" <js@x.org>", "Smith, John", "smith, john"),
    ("<only@x.org>", "only@x.org", "only@x.org"),
    ("only@x.org", "only@x.org", "only@x.org"),
    ("\u00c9mile \u0152uvre <e@x.org>", "\u00c9mile \u0152uvre", "emile \u0153uvre"),
    ("STRASSE <s@x.org>", "STRASSE", "strasse"),
    ("Stra\u00dfe <s@x.org>", "Stra\u00dfe", "strasse"),      # casefold: \u00df -> ss
    ("", "", ""),
    ("   ", "", ""),
])
def test_sender_display_name_and_sort_key_exact(sender, shown, key):
    assert display_name(sender) == shown
    assert sender_sort_key(sender) == key
