"""Judged sensitive by Message-ID: a copy of a judged message that ingest does not merge (a
mailing-list copy whose subject gets a "[staff] " prefix is stored as ``<mid>~<hash>``) is the
same words, and protected search never shows it. Real demo project, real mbox, real ingest; a
brute-force oracle for the rule on a real ingested project with shared Message-IDs."""
from __future__ import annotations

import email
import mailbox

import pytest
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.protect.search import judged_sensitive, judged_sensitive_among
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"
DEMO_APPROACHES = ("relevance", "postfilter", "joint_postfilter")   # linear rankers trained in conftest.py


def _list_copy(s, doc_id: str, mbox_path) -> bytes:
    """The judged message as a mailing list redistributes it: '[staff] ' before its subject."""
    msg = email.message_from_bytes(s.raw_message(doc_id))
    subject = msg["Subject"]
    del msg["Subject"]
    msg["Subject"] = "[staff] " + subject
    box = mailbox.mbox(str(mbox_path))
    box.add(msg)
    box.flush()
    box.close()
    return msg.as_bytes()


def test_a_list_copy_of_a_judged_message_is_never_shown(demo_copy, tmp_path):
    with Session.open(demo_copy) as s:
        judged = {d for d, lvl in J.sensitivity(s.store, PERSONA).items() if lvl > 0}
        original = next(d for d in sorted(judged) if "~" not in d and s.document(d)["subject"].strip())
        subject = s.document(original)["subject"]
        _list_copy(s, original, tmp_path / "list.mbox")
        s.ingest([tmp_path / "list.mbox"], workers=0)
        copy = s.store.con.execute("SELECT doc_id FROM messages WHERE message_id = ? AND doc_id <> ?",
                                   (original, original)).fetchone()[0]
        assert copy.startswith(original + "~")                     # a separate document ...
        assert copy not in J.sensitivity(s.store, PERSONA)        # ... that no person judged
        assert s.document(copy)["subject"] == "[staff] " + subject
        # the copy is a candidate for its own subject, and near the top of the unprotected list
        plain = [h.doc_id for h in s.search(subject, limit=10).hits]
        assert copy in plain and original in plain
        for approach in DEMO_APPROACHES:
            res = s.protected_search(subject, PERSONA, approach=approach, k=10)
            shown = {h["doc_id"] for h in res["hits"]} | {h["doc_id"] for h in res["held_back"]}
            assert not shown & {original, copy}, approach
            assert res["hits"]                                     # the search itself still answers
        assert {original, copy} <= judged_sensitive(s, PERSONA)
        assert judged_sensitive_among(s, PERSONA, [copy, original]) == {copy, original}


def _eml(folder, name: str, mid: str | None, subject: str, body: str) -> None:
    head = f"Message-ID: <{mid}>\n" if mid else ""
    (folder / name).write_bytes((f"{head}Date: Mon, 5 Mar 2001 08:23:00 -0800\nFrom: ann@corp.com\n"
                                 f"To: bob@corp.com\nSubject: {subject}\n\n{body}\n").encode())


# Message-IDs shared by messages ingest keeps apart (other subjects), one shared by two copies it
# merges (same subject), and one message without a Message-ID.
MAIL = [("a1", "a@x", "alpha", "one"), ("a2", "a@x", "[staff] alpha", "one"), ("a3", "a@x", "alpha again", "two"),
        ("b1", "b@x", "beta", "three"), ("b2", "b@x", "beta", "three, the other copy"),
        ("c1", "c@x", "gamma", "four"), ("c2", "c@x", "Re: gamma", "five"),
        ("d1", "d@x", "delta", "six"), ("e1", None, "no id", "seven")]


@pytest.fixture(scope="module")
def shared_ids(tmp_path_factory):
    base = tmp_path_factory.mktemp("shared")
    mail = base / "mail"
    mail.mkdir()
    for name, mid, subject, body in MAIL:
        _eml(mail, f"{name}.eml", mid, subject, body)
    s = Session.create(base / "proj")
    s.ingest([mail], workers=0)
    yield s
    s.close()


def test_the_fixture_keeps_copies_apart_as_ingest_does(shared_ids):
    rows = dict(shared_ids.store.con.execute("SELECT doc_id, message_id FROM messages"))
    assert len(rows) == 8                                        # b2 merged into b1
    assert sorted(m for m in rows.values() if m == "a@x") == ["a@x"] * 3
    assert sum(1 for d in rows if d.startswith("a@x~")) == 2
    assert sum(1 for d in rows if d.startswith("c@x~")) == 1


def _oracle(rows: dict[str, str], levels, reasons, persona: str, candidates) -> set[str]:
    """Brute force: an id stands for its stored Message-ID (an id not stored, for itself, and a
    copy's id "<mid>~<10 hex digits>" not stored for "<mid>" too); a candidate is judged
    sensitive when any id standing for its Message-ID has a level >= 1 (any topic) or a reason,
    for the persona."""
    judged = {d for p, _, d, lvl in levels if p == persona and lvl > 0} | {d for p, d, _ in reasons if p == persona}

    def stands_for(d):
        if d in rows:
            return {rows[d]}
        mid, _, suffix = d.rpartition("~")
        copy = bool(mid) and len(suffix) == 10 and all(ch in "0123456789abcdef" for ch in suffix)
        return {d, mid} if copy else {d}
    return {c for c in candidates if any(rows.get(c, c) in stands_for(j) for j in judged)}


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_rule_equals_a_brute_force_oracle(shared_ids, data):
    s = shared_ids
    rows = dict(s.store.con.execute("SELECT doc_id, message_id FROM messages"))
    ids = sorted(rows) + ["a@x~0000000000", "zz@x", "b@x~ffffffffff"]     # stored and not stored
    ids += sorted(set(rows.values()) - set(rows))                           # Message-IDs that are not doc_ids
    levels = data.draw(st.lists(st.tuples(st.sampled_from(["p", "q"]), st.sampled_from(["", "t1", "t2"]),
                                          st.sampled_from(ids), st.integers(-1, 2)), max_size=12))
    reasons = data.draw(st.lists(st.tuples(st.sampled_from(["p", "q"]), st.sampled_from(ids),
                                           st.sampled_from(["legal", "personal"])), max_size=4))
    candidates = data.draw(st.lists(st.sampled_from(ids), max_size=15))
    persona = data.draw(st.sampled_from(["p", "q", "nobody"]))
    with s.store.transaction() as con:
        con.execute("DELETE FROM sensitivity")
        con.execute("DELETE FROM sensitivity_reasons")
    J.save_sensitivity(s.store, levels)
    with s.store.transaction() as con:
        con.executemany("INSERT OR IGNORE INTO sensitivity_reasons(persona, doc_id, reason) VALUES (?, ?, ?)", reasons)
    levels = [(p, t, d, lvl) for (p, t, d), lvl in {(p, t, d): lvl for p, t, d, lvl in levels}.items()]
    want = _oracle(rows, levels, reasons, persona, candidates)
    assert judged_sensitive_among(s, persona, candidates) == want
    assert judged_sensitive(s, persona) & set(candidates) == want
    # every stored document: the full set restricted to the project is the oracle over all of it
    assert judged_sensitive(s, persona) & set(rows) == _oracle(rows, levels, reasons, persona, rows)


def test_a_reason_alone_and_a_judgment_on_a_message_id_not_stored(shared_ids):
    s = shared_ids
    rows = dict(s.store.con.execute("SELECT doc_id, message_id FROM messages"))
    a_ids = {d for d, m in rows.items() if m == "a@x"}
    with s.store.transaction() as con:
        con.execute("DELETE FROM sensitivity")
        con.execute("DELETE FROM sensitivity_reasons")
        con.execute("INSERT INTO sensitivity_reasons(persona, doc_id, reason) VALUES ('p', 'c@x', 'legal')")
    J.save_sensitivity(s.store, [("p", "", "a@x", -1), ("p", "t", "a@x", 0), ("p", "", "zz@x", 1)])
    every = sorted(rows) + ["zz@x"]
    c_ids = {d for d, m in rows.items() if m == "c@x"}
    assert judged_sensitive_among(s, "p", every) == c_ids | {"zz@x"}    # a@x: don't know / 0 only
    with s.store.transaction() as con:
        con.execute("INSERT INTO sensitivity_reasons(persona, doc_id, reason) VALUES ('p', ?, 'personal')",
                    (next(d for d in a_ids if d != "a@x"),))
    assert judged_sensitive_among(s, "p", every) == c_ids | a_ids | {"zz@x"}
    assert judged_sensitive_among(s, "q", every) == set()
