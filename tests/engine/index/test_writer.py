"""The fast segment writer (in-memory term pool, block-at-a-time posting writes) writes the
same index as Whoosh's own SegmentWriter: same terms, postings, weights, values, term
statistics and scores, through several commits with segment merges and deletions."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

from whoosh.codec.whoosh3 import W3Codec
from whoosh.writing import SegmentWriter

from sasc_desktop.engine.index import SearchIndex
from sasc_desktop.engine.index.search_index import document_fields
from sasc_desktop.engine.index.schema import analyse_document

WORDS = [f"w{i}ord" for i in range(60)] + ["pipeline", "budget", "gas", "contract", "lunch"]


def _docs(n: int, seed: int):
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) for i in range(len(WORDS))]      # Zipf: some terms span many blocks
    base = datetime(2001, 1, 1)
    out = []
    for i in range(n):
        words = lambda k: " ".join(rng.choices(WORDS, weights, k=k))
        analysed = analyse_document(words(rng.randint(0, 6)), words(rng.randint(0, 80)),
                                    words(rng.randint(1, 30)) if rng.random() < 0.3 else "",
                                    f"Person {i % 7} <p{i % 7}@x.org>", f"p{(i + 1) % 9}@x.org", "", "",
                                    f"p{i % 7}@x.org", [f"p{(i + 1) % 9}@x.org"])
        row = {"doc_id": f"d{seed}-{i}", "id": i, "thread_id": f"t{i % 23}", "folder": rng.choice(["in", "sent", ""]),
               "ts": (base + timedelta(hours=37 * i)).timestamp() if rng.random() < 0.9 else None}
        out.append(document_fields(row, analysed))
    return out


def _build(path, fast: bool):
    ix = SearchIndex(path, create=True)
    batches = [_docs(700, 1), _docs(3, 4), _docs(300, 2), _docs(2, 5), _docs(50, 3)]
    for n, batch in enumerate(batches):
        w = ix.writer() if fast else SegmentWriter(ix.ix, codec=W3Codec(compression=0))
        if n == 4:
            for i in range(0, 300, 7):
                w.delete_by_term("doc_id", f"d2-{i}")
        for doc in batch:
            w.add_document(**doc)
        w.commit(optimize=n == 3)   # one merge of every segment so far (postings re-added through the pool)
    return ix


def _dump(ix):
    r = ix.ix.reader()
    out = {}
    for field in sorted(r.indexed_field_names()):
        for term in r.lexicon(field):
            ti = r.term_info(field, term)
            m = r.postings(field, term)
            posts = []
            while m.is_active():
                posts.append((m.id(), m.weight(), m.value()))
                m.next()
            out[(field, term)] = (ti.doc_frequency(), ti.weight(), ti.min_length(), ti.max_length(),
                                  ti.max_weight(), ti.min_id(), ti.max_id(), posts)
    lengths = {f: [r.doc_field_length(d, f) for d in range(r.doc_count_all())] for f in ("subject", "body", "all")}
    stored = [r.stored_fields(d) for d in range(r.doc_count_all()) if not r.is_deleted(d)]
    return out, lengths, r.doc_count(), stored


def test_fast_writer_writes_what_whoosh_writes(tmp_path):
    fast, stock = _build(tmp_path / "fast", True), _build(tmp_path / "stock", False)
    got, want = _dump(fast), _dump(stock)
    assert got[2] == want[2] == 1055 - 43
    assert len(fast.ix._segments()) == len(stock.ix._segments()) == 2
    assert got[1] == want[1]
    assert got[3] == want[3] and got[3][0].keys() == {"doc_id", "id"}
    assert got[0].keys() == want[0].keys()
    for key in want[0]:
        assert got[0][key] == want[0][key], key
    assert any(v[0] > 128 for v in want[0].values())          # multi-block posting lists were compared
    # Separate segment files (a compound segment is read through a private in-memory copy).
    assert not list((tmp_path / "fast").glob("*.seg")) and list((tmp_path / "fast").glob("*.pst"))
    for query in ["pipeline", "budget gas w3ord", '"pipeline budget"', "from:p3@x.org", "date:2001-03"]:
        a = [(h[1], round(h[2], 6)) for h in fast.search(query, limit=50)[0]]
        b = [(h[1], round(h[2], 6)) for h in stock.search(query, limit=50)[0]]
        assert a == b, query
    fast.close(), stock.close()
