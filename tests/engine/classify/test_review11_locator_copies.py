"""Labels imported before the mail (``import_categories``) are placed on the documents ingest
WILL make, by ingest's own rule for copies (:func:`..ingest.importer.same_message`: the
Message-ID, the subject, the Date and the text, or the other's text with something added before
or after it). The prediction grouped the files of one Message-ID by subject alone: two
DIFFERENT messages with one Message-ID and subject (a broken mailer's <1234@localhost>, other
date, other text), which ingest stores as two documents ('<mid>' and '<mid>~<hash>'), had their
labels merged onto one id -- the bare Message-ID, the other message's once ingested, or refused
as 'copies of one message'. Real files, real imports, real SQLite; the property checks the
prediction against what ingest then does, file by file."""
from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sasc_desktop.engine.classify import import_categories, sensitivity_reasons, training_labels
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.ingest.parse import raw_digest
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

DANA = "dana-whitfield"
MID = "1234@localhost"
DATES = ["Mon, 2 Sep 2002 10:00:00 +0000", "Tue, 14 Jan 2003 16:30:00 +0000"]
TEXTS = ["Meet me at the harbour on Friday.", "My diagnosis came back positive, please keep this private."]
FOOTER = "\n-- \nILUG mailing list\nhttp://lists.example/ilug"


def _eml(path, date: str, text: str, subject: str = "Hello", extra: str = "") -> bytes:
    raw = (f"Message-ID: <{MID}>\n{extra}Date: {date}\nFrom: alice@one.example\nTo: bob@two.example\n"
           f"Subject: {subject}\n\n{text}\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return raw


def _h(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:10]


def _tables(s) -> dict[str, list[tuple]]:
    return {t: sorted(tuple(r) for r in s.store.con.execute(f"SELECT * FROM {t}"))
            for t in ("qrels", "sensitivity", "sensitivity_reasons", "topics", "personas")}


def _docs(s) -> set[str]:
    return {r[0] for r in s.store.con.execute("SELECT doc_id FROM messages")}


def _graded(s, topic: str) -> set[str]:
    return {d for d, g in J.qrels(s.store).get(topic, {}).items() if g}


def test_two_messages_with_one_message_id_and_subject_are_two_documents_when_the_id_is_taken(tmp_path):
    """A stored message has the Message-ID: each of two other messages (same subject, other
    date and text) is ingested as '<mid>~<hash of its bytes>', whatever the order; their labels
    are placed on those two documents before ingest (they were refused as copies of one message)."""
    stored = tmp_path / "stored"
    _eml(stored / "s.txt", "Sun, 1 Sep 2002 09:00:00 +0000", "The stored one, already here.")
    mail = tmp_path / "lab"
    harmless = _eml(mail / "001.txt", DATES[0], TEXTS[0])
    private = _eml(mail / "002.txt", DATES[1], TEXTS[1])
    (mail / "001.cats").write_text("1,1,1\n3,8,1\n")
    (mail / "002.cats").write_text("1,2,1\n3,9,1\n")
    with Session.create(tmp_path / "proj") as s:
        s.ingest([stored], workers=0)
        counts = import_categories(s, mail)
        assert (counts["messages"], counts["sensitive"], counts["not_in_project"]) == (2, 1, 2)
        one, two = f"{MID}~{_h(harmless)}", f"{MID}~{_h(private)}"
        assert J.sensitivity(s.store, DANA) == {one: 0, two: 1}
        assert sensitivity_reasons(s, DANA) == {two: ["personal"]}
        assert (_graded(s, "8"), _graded(s, "9")) == ({one}, {two})
        r = s.ingest([mail], workers=0)
        assert (r.ingested, r.duplicates) == (2, 0)
        assert _docs(s) == {MID, one, two}                     # the documents ingest made: the labels' ids
        assert training_labels(s, DANA) == {one: 0, two: 1}
        assert s.document(two)["body"] == TEXTS[1]


def test_two_messages_with_one_message_id_and_subject_before_ingest_are_refused(tmp_path):
    """No stored message has the Message-ID: which of the two takes the bare id depends on the
    order the mail is ingested in (as for two subjects): refused, nothing written. A list's copy
    of the first (its footer added: the same message) is no third message. After ingest, each
    message's labels are on its own document, the list copy's merged with the first's."""
    mail = tmp_path / "lab"
    _eml(mail / "001.txt", DATES[0], TEXTS[0])
    private = _eml(mail / "002.txt", DATES[1], TEXTS[1])
    _eml(mail / "003.txt", DATES[0], TEXTS[0] + FOOTER, extra="List-Id: <ilug.lists.example>\n")
    (mail / "001.cats").write_text("1,1,1\n3,8,1\n")
    (mail / "002.cats").write_text("1,2,1\n3,9,1\n")
    (mail / "003.cats").write_text("1,1,1\n3,11,2\n")
    with Session.create(tmp_path / "proj") as s:
        before = _tables(s)
        with pytest.raises(InputError) as err:
            import_categories(s, mail)
        assert str(err.value) == (
            f"{mail}: the labels of mail not in the project yet cannot be placed where the document id ingest will "
            f"give a message depends on the order the mail is ingested in: <{MID}>: 001.txt ('Hello') and 002.txt "
            "('Hello') are different messages (different dates or texts) with one Message-ID. Ingest the mail first "
            f"(sasc ingest PROJECT {mail}), then import the labels again; nothing was imported.")
        assert _tables(s) == before
        r = s.ingest([mail], workers=0)
        assert (r.ingested, r.duplicates) == (2, 1)
        two = f"{MID}~{_h(private)}"
        assert _docs(s) == {MID, two}
        counts = import_categories(s, mail)
        assert (counts["messages"], counts["sensitive"], counts["not_in_project"]) == (2, 1, 0)
        assert training_labels(s, DANA) == {MID: 0, two: 1}
        assert (_graded(s, "8"), _graded(s, "9"), _graded(s, "11")) == ({MID}, {two}, {MID})


def test_copies_with_a_footer_or_a_banner_added_are_one_document(tmp_path):
    """Copies by ingest's rule (the same Date; a list footer added, and a server's banner added
    to that: each has every other's text in it) share the bare Message-ID before ingest as after."""
    mail = tmp_path / "lab"
    _eml(mail / "001.txt", DATES[0], TEXTS[0])
    _eml(mail / "002.txt", DATES[0], TEXTS[0] + FOOTER, extra="List-Id: <ilug.lists.example>\n")
    _eml(mail / "003.txt", DATES[0], "[External sender] " + TEXTS[0] + FOOTER, extra="X-Banner: 1\n")
    for n, topic in ((1, 8), (2, 9), (3, 10)):
        (mail / f"00{n}.cats").write_text(f"1,1,1\n3,{topic},1\n")
    with Session.create(tmp_path / "proj") as s:
        counts = import_categories(s, mail)
        assert (counts["messages"], counts["not_in_project"]) == (1, 1)
        r = s.ingest([mail], workers=0)
        assert (r.ingested, r.duplicates) == (1, 2) and _docs(s) == {MID}
        assert (_graded(s, "8"), _graded(s, "9"), _graded(s, "10")) == ({MID}, {MID}, {MID})


def test_copies_that_are_one_message_only_in_some_orders_are_refused(tmp_path):
    """A footer copy and a banner copy are each a copy of the plain text, not of each other:
    ingest makes them one document or two by the order it meets them (the stored text is the
    one a new copy is compared with), so their labels are refused before ingest."""
    mail = tmp_path / "lab"
    _eml(mail / "001.txt", DATES[0], TEXTS[0] + FOOTER)
    _eml(mail / "002.txt", DATES[0], "[External sender] " + TEXTS[0])
    _eml(mail / "003.txt", DATES[0], TEXTS[0])
    for n in (1, 2, 3):
        (mail / f"00{n}.cats").write_text("1,1,1\n")
    with Session.create(tmp_path / "proj") as s:
        with pytest.raises(InputError, match=rf"<{MID}>: 001.txt, 002.txt and 003.txt are copies of one message "
                                             r"only in some orders \(each with something added to the text of "
                                             r"another, not of every other\)"):
            import_categories(s, mail)
    # (the order matters: 001 then 002 are two documents; 003 first makes all three one)
    for name, order in (("a", ("001", "002", "003")), ("b", ("003", "001", "002"))):
        with Session.create(tmp_path / f"p{name}") as s:
            for n, f in enumerate(order):
                part = tmp_path / f"{name}{n}"
                part.mkdir()
                (part / f"{f}.txt").write_bytes((mail / f"{f}.txt").read_bytes())
                s.ingest([part], workers=0)
            assert len(_docs(s)) == {"a": 2, "b": 1}[name]


# one file: (date, text, a list footer added?, copy number: other bytes)
_FILES = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.booleans(), st.integers(0, 3)),
                  min_size=1, max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=_FILES, taken=st.booleans())
def test_the_prediction_is_what_ingest_does(tmp_path_factory, files, taken):
    """Files sharing one Message-ID and subject (and, when ``taken``, a stored message with it):
    when the labels are placed before ingest, the document each file's labels are on is the one
    ingest then stores that file in; they are refused exactly where that depends on the order
    (no stored message and two different messages; a stored one and a message in copies with
    other bytes)."""
    root = tmp_path_factory.mktemp("locator")
    mail = root / "lab"
    names = []
    for n, (date, text, footer, copy) in enumerate(files):
        name = f"{n:03d}"
        _eml(mail / f"{name}.txt", DATES[date], TEXTS[text] + (FOOTER if footer else ""), extra=f"X-Copy: {copy}\n")
        (mail / f"{name}.cats").write_text(f"1,1,1\n3,{n + 1},1\n")  # topic n+1: this file's own label
        names.append(name)
    messages: dict[tuple[int, int], set[bytes]] = {}
    for n, (date, text, _, _) in enumerate(files):
        messages.setdefault((date, text), set()).add((mail / f"{names[n]}.txt").read_bytes())
    order_matters = len(messages) > 1 if not taken else any(len(b) > 1 for b in messages.values())
    with Session.create(root / "proj") as s:
        if taken:
            _eml(root / "stored" / "s.txt", "Sun, 1 Sep 2002 09:00:00 +0000", "The stored one.")
            s.ingest([root / "stored"], workers=0)
        if order_matters:
            with pytest.raises(InputError, match="depends on the order the mail is ingested in"):
                import_categories(s, mail)
            return
        import_categories(s, mail)
        s.ingest([mail], workers=0)
        stored = dict(s.store.con.execute("SELECT c.raw_sha256, m.doc_id FROM copies c JOIN messages m "
                                          "ON m.id = c.message"))   # (identical files: one copies row)
        where = {name: stored[raw_digest((mail / f"{name}.txt").read_bytes())] for name in names}
        for n, name in enumerate(names):
            assert _graded(s, str(n + 1)) == {where[name]}, name
        assert set(J.sensitivity(s.store, DANA)) == set(where.values())
