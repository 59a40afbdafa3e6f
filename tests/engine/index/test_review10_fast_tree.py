"""The numpy evaluation of whole query trees (fastscore.TreeEvaluator: prefixes, wildcards, date
filters in every syntax, folder:/from:/to:/thread: filters, AND, OR, NOT, -word) gives exactly
what Whoosh gives: the same matches, scores (to floating-point tolerance; in practice bit for
bit), order (ties included) and totals. Oracle: Whoosh itself (fastscore.FORCE_WHOOSH), on a real
demo project (a multi-segment index with deletions) plus hand-made messages without a date, in
odd folders, with field weights from the project's settings (a weight of 0 removes a field),
for ranked pages, every match (SearchIndex.ranked) and sorted searches with offsets. A second
index holds a segment of more than 5,000 documents, where Whoosh ORs in a weighted tree."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from mailfactory import mbox, msg

from sasc_desktop.engine.errors import QueryError
from sasc_desktop.engine.index import SearchIndex, fastscore
from sasc_desktop.engine.session import Session

EXTRA = [
    msg("Undated budget note", "please file this budget", frm="Zed <zed@example.org>", message_id="<nd1@x>", date=None),
    msg("budget review", "review the report please", frm="Amy Odd <amy@odd.example.org>", to="Bob <bob@example.org>",
        message_id="<odd1@x>", date="Tue, 01 Jan 2019 20:00:00 +1000"),
    msg("Re: budget review", "meeting about the budget draft", frm="Bob <bob@example.org>", to="amy@odd.example.org",
        message_id="<odd2@x>", date="Sat, 29 Feb 2020 23:59:59 -0800"),
    msg("lunch", "lunch friday", frm="Cy <cy@example.org>", message_id="<odd3@x>", date="Thu, 31 Dec 2020 23:00:00 +0000"),
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    base = tmp_path_factory.mktemp("review10")
    root = build_demo_project(base / "proj", n_messages=300, train=False)
    odd = base / "Odd Folder ÄÖ" / "Sub.Dir"
    odd.mkdir(parents=True)
    (odd / "extra.mbox").write_bytes(mbox(EXTRA))
    with Session.open(root) as s:
        assert s.ingest([base / "Odd Folder ÄÖ"], workers=0).ingested == len(EXTRA)
    s = Session.open(root)
    con = s.store.con
    values = {
        "from": [r[0] for r in con.execute("SELECT DISTINCT from_addr FROM messages WHERE from_addr != '' ORDER BY 1 LIMIT 4")],
        "thread": [r[0] for r in con.execute("SELECT thread_id FROM messages GROUP BY thread_id ORDER BY COUNT(*) DESC LIMIT 3")],
    }
    yield s, values
    fastscore.FORCE_WHOOSH = False
    s.close()


WORDS = ["please", "budget", "meeting", "draft", "thanks", "review", "report", "lunch", "project", "nosuchword"]
PATTERNS = ["bud*", "re*", "a*", "pl*", "me?t*", "b?dget", "r*ort", "zzq*", "rev*", "th*"]
DATES = ["date:2019", "date:2020-03", "date:>2020-03", "date:<2020", "date:>=2020-02", "date:<=2019-12",
         "date:(2020-01 2020-03)", "date:[2020-01 to 2020-06]", "date:2020-02-29", "date:>2020-02-29",
         "date:[2019-06 to]", "date:(>2019-03 <2019-09)", "date:<2019-01"]
FOLDERS = ["folder:inbox", "folder:sent", '"folder:sent items"', "folder:projects", "folder:sub.dir",
           "folder:palmer_holly/inbox", '"folder:odd folder äö"', "folder:nosuch"]
WEIGHTS = [None, {"subject": 2.0, "body": 1.0, "attachments": 0.7}, {"subject": 0.0, "body": 1.0, "attachments": 0.7},
           {"subject": 3.0, "body": 0.0, "attachments": 0.0}, {"subject": 1.0, "body": 1.0, "attachments": 1.0}]


@st.composite
def queries(draw, values):
    field_values = [f"from:{a}" for a in values["from"]] + [f"thread:{t}" for t in values["thread"]] + \
        ["to:example.org", "from:bob", "to:amy@odd.example.org"]
    atom = st.one_of(
        st.sampled_from(WORDS), st.sampled_from(PATTERNS), st.sampled_from(DATES), st.sampled_from(FOLDERS),
        st.sampled_from(field_values),
        st.builds(lambda f, w: f"{f}:{w}", st.sampled_from(["subject", "body", "all"]),
                  st.sampled_from(WORDS + PATTERNS)))
    parts = draw(st.lists(atom, min_size=1, max_size=5))
    out = []
    for i, p in enumerate(parts):
        neg = draw(st.sampled_from(["", "", "", "-", "NOT "]))
        if i:
            out.append(draw(st.sampled_from([" ", " ", " ", " OR ", " AND "])))
        out.append(neg + p)
    text = "".join(out)
    if draw(st.booleans()) and len(parts) > 1:
        text = f"({text}) {draw(st.sampled_from(WORDS + DATES + FOLDERS))}"
    return text


def _both(fn):
    fastscore.FORCE_WHOOSH = True
    try:
        want = fn()
    except QueryError as exc:
        want = exc
    finally:
        fastscore.FORCE_WHOOSH = False
    try:
        got = fn()
    except QueryError as exc:
        got = exc
    return got, want


def _same_scores(got, want):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-12, atol=0)


def check(s, text, weights, k, offset, sort, descending):
    if weights is not None:
        s.update_settings(field_weights=weights)
    w = s.settings()["field_weights"]
    got, want = _both(lambda: s.index.search(text, limit=k, offset=offset, weights=w))
    if isinstance(want, QueryError):
        assert isinstance(got, QueryError) and str(got) == str(want)
        return False
    assert got[1] == want[1], text                           # totals
    assert [h[:2] for h in got[0]] == [h[:2] for h in want[0]], text   # same documents, same order
    _same_scores([h[2] for h in got[0]], [h[2] for h in want[0]])
    got, want = _both(lambda: s.index.ranked(text, weights=w))
    assert got[2] == want[2]
    assert np.array_equal(got[0], want[0]), text
    _same_scores(got[1], want[1])
    got, want = _both(lambda: s.search(text, limit=k, offset=offset, sort=sort, descending=descending))
    assert got.total == want.total
    assert [(h.rank, h.doc_id) for h in got.hits] == [(h.rank, h.doc_id) for h in want.hits], (text, sort)
    _same_scores([h.score for h in got.hits], [h.score for h in want.hits])
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(data=st.data())
def test_tree_evaluation_equals_whoosh(demo, data):
    s, values = demo
    text = data.draw(queries(values), label="query")
    weights = data.draw(st.sampled_from(WEIGHTS), label="weights")
    k = data.draw(st.sampled_from([1, 10, 100, 5000]), label="k")
    offset = data.draw(st.sampled_from([0, 0, 3, 40]), label="offset")
    sort = data.draw(st.sampled_from(["date", "sender", "subject"]), label="sort")
    check(s, text, weights, k, offset, sort, data.draw(st.booleans(), label="descending"))


def test_an_empty_date_filter_in_a_segment_is_no_damaged_index(demo):
    """Whoosh failed here too (review 10 left it to the fast path): its AndNotMatcher.skip_to ran
    the date side off its end (IndexError, reported as a damaged index). query._AndNotMatcher
    stops there now (review 11, test_review11_and_not_skip): both paths answer, alike."""
    s, _values = demo
    text = "(date:2020-03 -please) date:2019"     # (March 2020 and 2019 at once: nothing)
    got, want = _both(lambda: s.index.search(text, limit=10))
    assert got[:2] == want[:2] == ([], 0)
    want = s.index.ranked("please date:2019", weights=None)
    got = s.index.ranked("please date:2019 date:2019", weights=None)
    assert got[2] == want[2] > 0 and np.array_equal(got[0], want[0])


SHAPES = ["a*", "re*", "b?dget", "bud* lunch", "date:2020", "budget date:2020", "please date:>2020-03",
          "folder:inbox", "date:(2020-01 2020-03)", "date:[2020-01 to 2020-06]", "date:<=2020-02 date:>=2019",
          "budget -draft", "budget NOT date:2020", "NOT budget", "NOT budget NOT lunch", "budget AND lunch",
          "budget OR folder:inbox", "subject:bud*", "from:bob budget", "to:example.org re*", "energy*",
          "please folder:sent date:2020"]


@pytest.mark.parametrize("text", SHAPES)
def test_the_measured_shapes_take_the_fast_path_and_equal_whoosh(demo, text):
    s, _values = demo
    searcher = s.index.searcher()
    q = s.index.parse(text, s.settings()["field_weights"])
    s.index.fast_scorer(searcher).evaluate(q)           # (no Unsupported: these never reach Whoosh)
    for sort in (None, "date", "sender", "subject"):
        for descending in (False, True):
            check(s, text, None, 25, 5, sort, descending) if sort else check(s, text, None, 25, 5, "date", descending)


def test_unknown_shapes_fall_back_to_whoosh(demo):
    s, _values = demo
    searcher = s.index.searcher()
    for text in ('"budget meeting"', "bud*"):
        q = s.index.parse(text, None)
        if text.startswith('"'):
            with pytest.raises(fastscore.Unsupported):
                s.index.fast_scorer(searcher).evaluate(q)
        check(s, text, None, 10, 0, "date", False)


# --- a segment of over 5,000 documents: Whoosh ORs there in a tree weighted by sizes -----------

@pytest.fixture(scope="module")
def big_index(tmp_path_factory):
    from test_writer import _docs
    ix = SearchIndex(tmp_path_factory.mktemp("review10big") / "ix", create=True)
    for n, batch in enumerate([_docs(5200, 21), _docs(300, 22)]):
        w = ix.writer()
        if n == 1:
            for i in range(0, 5200, 7):
                w.delete_by_term("doc_id", f"d21-{i}")
        for doc in batch:
            w.add_document(**doc)
        w.commit(merge=False)
    assert max(r.doc_count_all() for r, _b in ix.searcher().reader().leaf_readers()) > 5000
    yield ix
    fastscore.FORCE_WHOOSH = False
    ix.close()


def test_large_segment_trees_equal_whoosh(big_index):
    from test_writer import WORDS as W
    rng = np.random.default_rng(7)
    vocab = list(W[:30]) + ["w1*", "w2?ord", "pi*", "b*", "nosuch*", "date:2001", "date:>2001-06", "folder:in",
                            "from:p3", "to:x.org", "thread:t4", "NOT w3ord"]
    for i in range(40):
        words = rng.choice(vocab, size=rng.integers(1, 6)).tolist()
        if i % 4 == 1:
            words.insert(1, "-" + words[0])
        if i % 4 == 2:
            words = [" AND ".join(words)]
        text = " ".join(words)
        for weights in (None, {"subject": 0.0, "body": 1.0, "attachments": 2.0}):
            got, want = _both(lambda: big_index.ranked(text, weights=weights))
            if isinstance(want, QueryError):
                continue
            assert got[2] == want[2], text
            assert np.array_equal(got[0], want[0]), text
            _same_scores(got[1], want[1])
