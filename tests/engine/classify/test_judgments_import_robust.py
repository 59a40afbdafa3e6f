"""Getting judgments into a project robustly: one test per defect of the judgments review
(findings 1-5 and 7-13). Real SQLite projects under tmp_path, real mail files ingested by the
real importer, exact expected values."""
from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import import_categories, import_judgments, sensitivity_reasons, training_labels
from sasc_desktop.engine.classify import judgments_io as JIO
from sasc_desktop.engine.errors import InputError, ProjectError
from sasc_desktop.engine.evaluate.formats import read_qrels, read_sensitivity, sensitivity_maps
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

TABLES = ("qrels", "sensitivity", "sensitivity_reasons", "topics", "personas")
DANA = "dana-whitfield"


def _snapshot(s) -> dict[str, list[tuple]]:
    return {t: sorted(tuple(r) for r in s.store.con.execute(f"SELECT * FROM {t}")) for t in TABLES}


def _eml(path, mid: str | None, subject: str, body: str = "text", extra: str = "", folded: bool = False) -> bytes:
    head = ""
    if mid is not None:
        head = f"Message-ID:\n  <{mid}>\n" if folded else f"Message-ID: <{mid}>\n"
    raw = (f"{head}{extra}Date: Mon, 5 Mar 2001 08:23:00 -0800\nFrom: ann@corp.com\nTo: bob@corp.com\n"
           f"Subject: {subject}\n\n{body}\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return raw


def _project(tmp_path, *folders, name="proj"):
    s = Session.create(tmp_path / name)
    if folders:
        s.ingest(list(folders), workers=0)
    return s


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def _qrels(s) -> dict[str, dict[str, int]]:
    return J.qrels(s.store)


def _grades(s, doc: str) -> dict[str, int]:
    return {t: d[doc] for t, d in _qrels(s).items() if doc in d and d[doc]}


# ------------------------------------------------------------------------------ finding 1
def test_1_copies_and_shared_message_ids_merge_per_doc_id(tmp_path):
    """Two labelled copies of one message: labels merged (highest level and grade, every
    reason), counted once; a different message sharing the Message-ID keeps its own labels."""
    mail = tmp_path / "mail"
    _eml(mail / "a.txt", "m1@x", "board minutes", "privileged")
    _eml(mail / "b_copy.txt", "m1@x", "board minutes", "privileged", extra="X-Copy: 2\n")
    other = _eml(mail / "c_other.txt", "m1@x", "something entirely different", "lunch")
    _write(mail / "a.cats", "1,1,1\n3,2,2\n4,10,1\n")       # topic 2 grade 2; secrecy -> sensitive
    _write(mail / "b_copy.cats", "1,1,2\n3,6,1\n")           # topic 6 grade 1; not sensitive
    _write(mail / "c_other.cats", "1,1,1\n3,12,1\n")          # topic 12 grade 1; not sensitive
    other_id = f"m1@x~{hashlib.sha256(other).hexdigest()[:10]}"
    s = _project(tmp_path, mail)
    assert {r[0]: r[1] for r in s.store.con.execute("SELECT doc_id, subject FROM messages")} == {
        "m1@x": "board minutes", other_id: "something entirely different"}
    assert s.store.con.execute("SELECT COUNT(*) FROM copies").fetchone()[0] == 3
    counts = import_categories(s, mail)
    assert counts == {"messages": 2, "sensitive": 1, "qrels": 26, "topics": 13, "personas": 1, "without_message": 0,
                      "reasons": 1, "not_in_project": 0, "copy_ids": 0, "changed": 0, "topics_changed": 0, "personas_changed": 0}
    assert J.sensitivity(s.store, DANA) == {"m1@x": 1, other_id: 0}
    assert sensitivity_reasons(s, DANA) == {"m1@x": ["secrecy"]}
    assert training_labels(s, DANA) == {"m1@x": 1, other_id: 0}
    assert _grades(s, "m1@x") == {"2": 2, "6": 1}
    assert _grades(s, other_id) == {"12": 1}
    assert sum(len(d) for d in _qrels(s).values()) == 26
    # the same labels from a copy of the folder somewhere else: found by their bytes, same result
    moved = tmp_path / "moved"
    shutil.copytree(mail, moved)
    before = {t: rows for t, rows in _snapshot(s).items() if t not in ("qrels", "sensitivity", "sensitivity_reasons")}
    counts = import_categories(s, moved)
    assert (counts["messages"], counts["sensitive"], counts["without_message"], counts["changed"]) == (2, 1, 0, 0)
    assert J.sensitivity(s.store, DANA) == {"m1@x": 1, other_id: 0}
    assert sensitivity_reasons(s, DANA) == {"m1@x": ["secrecy"]}
    assert _grades(s, "m1@x") == {"2": 2, "6": 1} and _grades(s, other_id) == {"12": 1}
    assert {t: rows for t, rows in _snapshot(s).items() if t in before} == before
    s.close()


def test_1_dev_set_duplicate_of_a_privileged_message(shared_data, tmp_path):
    """The reviewer's reproduction on the enron-categories-dev message 106296 and a copy of it
    labelled not sensitive: the privileged message stays sensitive."""
    src = shared_data / "enron-categories-dev" / "1"
    mail = tmp_path / "m"
    mail.mkdir()
    for ext in ("txt", "cats"):
        shutil.copy(src / f"106296.{ext}", mail / f"106296.{ext}")
    lines = (mail / "106296.txt").read_bytes().split(b"\n")
    (mail / "dup.txt").write_bytes(b"\n".join(lines[:1] + [b"X-Copy: 2"] + lines[1:]))
    (mail / "dup.cats").write_text("1,1,2\n")
    s = _project(tmp_path, mail)
    counts = import_categories(s, mail)
    mid = "11991339.1075842536086.JavaMail.evans@thyme"
    assert (counts["messages"], counts["sensitive"], counts["qrels"], counts["reasons"]) == (1, 1, 13, 1)
    assert J.sensitivity(s.store, DANA) == {mid: 1}
    assert sensitivity_reasons(s, DANA) == {mid: ["secrecy"]}
    assert training_labels(s, DANA) == {mid: 1}
    s.close()


# ------------------------------------------------------------------------------ finding 2
def test_2_byte_order_marks_are_ignored_everywhere(tmp_path):
    bom = b"\xef\xbb\xbf"
    mail = tmp_path / "mail"
    _eml(mail / "a.txt", "m1@x", "s")
    _write(mail / "a.cats", bom + b"1,1,1\n4,10,1\n")
    s = _project(tmp_path, mail)
    sens = _write(tmp_path / "s.txt", bom + b"dana-whitfield m1@x 1\n")
    qrels = _write(tmp_path / "q.txt", bom + b"1 0 m1@x 2\n")
    topics = _write(tmp_path / "t.json", bom + json.dumps([{"id": "1", "title": "one"}]).encode())
    cards = _write(tmp_path / "p.json", bom + json.dumps([{"id": "dana-whitfield", "name": "Dana"}]).encode())
    reasons = _write(tmp_path / "r.tsv", bom + b"docid\tpersona\treason\nm1@x\tdana-whitfield\tsecrecy\n")
    counts = import_judgments(s, qrels, sens, topics, cards, reasons)
    assert counts == {"personas": 1, "topics": 1, "qrels": 1, "sensitivity": 1, "reasons": 1, "not_in_project": 0, "copy_ids": 0,
                      "changed": 0, "topics_changed": 0, "personas_changed": 0}
    assert _snapshot(s) == {
        "qrels": [("1", "m1@x", 2, str(qrels))],
        "sensitivity": [("dana-whitfield", "", "m1@x", 1, str(sens))],
        "sensitivity_reasons": [("dana-whitfield", "m1@x", "secrecy", str(reasons))],
        "topics": [("1", "one", "", "")],
        "personas": [("dana-whitfield", "Dana", json.dumps({"id": "dana-whitfield", "name": "Dana"}))]}
    assert JIO.read_cats(mail / "a.cats") == [(1, 1, 1), (4, 10, 1)]
    s.close()


# ------------------------------------------------------------------------------ finding 3
def test_3_ids_are_normalised_like_ingest_and_unmatched_ids_reported(tmp_path, capsys):
    mail = tmp_path / "mail"
    _eml(mail / "a.txt", "m1@x", "s1")
    _eml(mail / "b.txt", "m2@x", "s2")
    s = _project(tmp_path, mail)
    sens = _write(tmp_path / "s.txt", "p <m1@x> 1\np  <m2@x>  0\np <nosuch@x> 1\n")
    qrels = _write(tmp_path / "q.txt", "1 0 <m1@x> 2\n1 0 ghost@x 1\n")
    counts = import_judgments(s, qrels_path=qrels, sensitivity_path=sens)
    assert counts["not_in_project"] == 2 and counts["sensitivity"] == 3 and counts["qrels"] == 2
    assert J.sensitivity(s.store, "p") == {"m1@x": 1, "m2@x": 0, "nosuch@x": 1}
    assert _qrels(s) == {"1": {"m1@x": 2, "ghost@x": 1}}
    assert training_labels(s, "p") == {"m1@x": 1, "m2@x": 0}
    s.close()
    # the CLI says it, in text and in JSON
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--sensitivity", str(sens)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["0 personas, 0 topics, 0 qrels, 3 sensitivity, 0 reasons imported",
                                "1 judged document id matches no message in this project "
                                "(kept: they apply once that mail is ingested)"]
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--qrels", str(qrels), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["not_in_project"] == 1
    # one document judged two ways once its id is normalised is an error, and nothing is written
    s = Session.open(tmp_path / "proj")
    before = _snapshot(s)
    clash = _write(tmp_path / "clash.txt", "1 0 m1@x 2\n1 0 <m1@x> 0\n")
    with pytest.raises(InputError, match=r"clash.txt: document m1@x \(topic 1\) is judged 2 as 'm1@x' and 0 as '<m1@x>'"):
        import_judgments(s, qrels_path=clash)
    assert _snapshot(s) == before
    s.close()


# ------------------------------------------------------------------------------ finding 4
def test_4_a_bad_file_leaves_the_project_as_it_was(tmp_path, capsys):
    s = _project(tmp_path)
    good = _write(tmp_path / "good.qrels", "1 0 m1@x 1\n")
    bad = _write(tmp_path / "bad.sens", "p m1@x 1\np m1@x\n")
    with pytest.raises(InputError, match="bad.sens:2: expected 3 columns like the first line, found 2"):
        import_judgments(s, qrels_path=good, sensitivity_path=bad)
    assert _snapshot(s) == {t: [] for t in TABLES}
    s.close()
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--qrels", str(good), "--sensitivity", str(bad)]) == 2
    assert "bad.sens:2" in capsys.readouterr().err
    s = Session.open(tmp_path / "proj")
    assert _snapshot(s) == {t: [] for t in TABLES}
    s.close()


def _cats_collection(tmp_path, labels: dict[str, str]):
    mail = tmp_path / "cats"
    for i, (name, cats) in enumerate(labels.items()):
        _eml(mail / f"{name}.txt", f"r{i}@corp.com", f"subject {i}", f"body {i}")
        _write(mail / f"{name}.cats", cats)
    return mail


LABELS = {"101": "1,1,1\n3,10,2\n4,10,1\n", "102": "1,2,1\n4,7,1\n", "103": "1,1,1\n3,6,2\n4,12,1\n"}


@pytest.mark.parametrize("step", ["save_topics", "save_qrels", "save_sensitivity", "save_reasons"])
def test_4_an_interrupted_import_categories_changes_nothing(tmp_path, monkeypatch, step):
    mail = _cats_collection(tmp_path, LABELS)
    s = _project(tmp_path, mail)
    import_categories(s, mail)
    before = _snapshot(s)
    assert len(before["sensitivity_reasons"]) == 3 and len(before["qrels"]) == 39
    _write(mail / "101.cats", "1,1,1\n")       # relabel: everything below would change
    _write(mail / "102.cats", "1,1,1\n3,1,1\n")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(JIO if step == "save_reasons" else J, step, interrupted)
    with pytest.raises(KeyboardInterrupt):
        import_categories(s, mail)
    assert _snapshot(s) == before
    s.close()


def test_4_an_interrupted_import_judgments_changes_nothing(tmp_path, monkeypatch):
    s = _project(tmp_path)
    q1, s1 = _write(tmp_path / "a.qrels", "1 0 d1 1\n"), _write(tmp_path / "a.sens", "p d1 1\n")
    r1 = _write(tmp_path / "a.tsv", "d1\tp\told reason\n")
    import_judgments(s, qrels_path=q1, sensitivity_path=s1, reasons_path=r1)
    before = _snapshot(s)
    q2, s2 = _write(tmp_path / "b.qrels", "1 0 d2 2\n"), _write(tmp_path / "b.sens", "p d2 0\n")
    r2 = _write(tmp_path / "b.tsv", "d1\tp\tnew reason\n")
    monkeypatch.setattr(JIO, "save_reasons", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        import_judgments(s, qrels_path=q2, sensitivity_path=s2, reasons_path=r2, replace=True,
                         topics_path=_write(tmp_path / "t.json", '[{"id": "9", "title": "new"}]'))
    assert _snapshot(s) == before
    s.close()


# ------------------------------------------------------------------------------ finding 5
def test_5_judgments_from_another_import_are_replaced_only_when_asked(tmp_path, capsys):
    mail = _cats_collection(tmp_path, LABELS)        # r0: sensitive, r1: sensitive, r2: not
    s = _project(tmp_path, mail)
    hand = _write(tmp_path / "hand.sens", f"{DANA} r0@corp.com 0\n{DANA} r1@corp.com 0\n{DANA} r2@corp.com 0\n")
    topics = _write(tmp_path / "topics.json", json.dumps([{"id": "1", "title": "archivist topic: board minutes"}]))
    card = {"id": DANA, "name": "Dana (archivist's card)"}
    cards = _write(tmp_path / "cards.json", json.dumps([card]))
    import_judgments(s, sensitivity_path=hand, topics_path=topics, personas_path=cards)
    before = _snapshot(s)
    with pytest.raises(InputError) as err:
        import_categories(s, mail)
    assert str(err.value) == (
        f"this import would change 2 judgments another import made (2 sensitivity levels from {hand}), "
        "redefine 1 topic: 1 ('archivist topic: board minutes' -> 'regulators and price caps'), "
        "replace the persona card of dana-whitfield; nothing was imported. "
        "To replace them, import again with --replace.")
    assert _snapshot(s) == before
    s.close()
    # the CLI refuses the same way, then replaces with --replace and says how many changed
    root = str(tmp_path / "proj")
    assert sasc(["judgments", "import-categories", root, str(mail)]) == 2
    assert "--replace" in capsys.readouterr().err
    assert sasc(["judgments", "import-categories", root, str(mail), "--replace", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["changed"], counts["topics_changed"], counts["personas_changed"]) == (2, 1, 1)
    s = Session.open(tmp_path / "proj")
    assert J.sensitivity(s.store, DANA) == {"r0@corp.com": 1, "r1@corp.com": 1, "r2@corp.com": 0}
    assert {t["id"]: t["title"] for t in J.topics(s.store)}["1"] == "regulators and price caps"
    assert J.personas(s.store)[0]["name"] == "Dana Whitfield"
    after = _snapshot(s)
    # the same source again: idempotent, no --replace needed
    counts = import_categories(s, mail)
    assert (counts["changed"], counts["topics_changed"], counts["personas_changed"]) == (0, 0, 0)
    assert _snapshot(s) == after
    # a TREC file over the categories' grades is refused, then accepted with replace=True
    q = _write(tmp_path / "mine.qrels", "6 0 r2@corp.com 2\n6 0 r0@corp.com 1\n")   # r2 agrees; r0 differs
    with pytest.raises(InputError, match=r"change 1 judgment another import made \(1 relevance grade from "):
        import_judgments(s, qrels_path=q)
    assert _snapshot(s) == after
    counts = import_judgments(s, qrels_path=q, replace=True)
    assert counts["changed"] == 1
    assert _qrels(s)["6"] == {"r0@corp.com": 1, "r1@corp.com": 0, "r2@corp.com": 2}
    # the same file edited and imported again is the same source: no refusal
    _write(q, "6 0 r2@corp.com 2\n6 0 r0@corp.com 2\n")
    assert import_judgments(s, qrels_path=q)["changed"] == 1
    assert _qrels(s)["6"]["r0@corp.com"] == 2
    s.close()


# ------------------------------------------------------------------------------ finding 7
def test_7_moved_or_edited_labelled_mail_is_found_like_ingest_finds_it(tmp_path):
    mail = tmp_path / "mail"
    _eml(mail / "folded.txt", "folded1@x", "folded header", "one", folded=True)
    nomid = _eml(mail / "nomid.txt", None, "no id", "two")
    _write(mail / "folded.cats", "1,1,1\n4,10,1\n")
    _write(mail / "nomid.cats", "1,2,1\n")
    synthetic = "sasc-" + hashlib.sha256(nomid).hexdigest()[:24]
    s = _project(tmp_path, mail)
    assert {r[0] for r in s.store.con.execute("SELECT doc_id FROM messages")} == {"folded1@x", synthetic}
    moved = tmp_path / "moved"
    shutil.copytree(mail, moved)
    counts = import_categories(s, moved)
    assert (counts["messages"], counts["sensitive"], counts["without_message"], counts["not_in_project"]) == (2, 2, 0, 0)
    assert J.sensitivity(s.store, DANA) == {"folded1@x": 1, synthetic: 1}
    # an edited copy (other bytes) of the folded message is still that message (same id and subject)
    edited = tmp_path / "edited"
    _eml(edited / "folded.txt", "folded1@x", "folded header", "one, edited", folded=True)
    _write(edited / "folded.cats", "1,1,1\n3,4,2\n4,10,1\n")
    counts = import_categories(s, edited, replace=True)
    assert (counts["messages"], counts["not_in_project"]) == (1, 0)
    assert _grades(s, "folded1@x") == {"4": 2}
    s.close()
    # labels imported before the mail: the ids are the ones ingest then gives the messages
    s = _project(tmp_path, name="early")
    counts = import_categories(s, mail)
    assert (counts["messages"], counts["not_in_project"]) == (2, 2)
    s.ingest([mail], workers=0)
    assert training_labels(s, DANA) == {"folded1@x": 1, synthetic: 1}
    s.close()


# ------------------------------------------------------------------------------ finding 8
@pytest.mark.parametrize("kind, data, message", [
    ("topics", [{"id": "1", "title": None}], 't.json: topic \'1\': "title" must be a string, found null'),
    ("topics", [{"id": "1", "title": ["a"]}], 't.json: topic \'1\': "title" must be a string, found a list'),
    ("topics", [{"id": "1", "title": "a"}, {"id": 2, "narrative": 7}],
     't.json: topic \'2\': "narrative" must be a string, found a number'),
    ("topics", [{"id": None, "title": "a"}], 't.json: topic 1: "id" must be a non-empty string or an integer, found null'),
    ("topics", [{"title": "a"}], 't.json: topic 1: "id" must be a non-empty string or an integer, found no id'),
    ("topics", ["1"], "t.json: topic 1: expected an object with an \"id\", found a string"),
    ("personas", [{"id": "x", "name": ["a"]}], 't.json: persona \'x\': "name" must be a string, found a list'),
    ("personas", [{"id": ["x"], "name": "X"}], 't.json: persona 1: "id" must be a non-empty string or an integer, found a list'),
])
def test_8_wrong_json_types_are_input_errors_naming_file_and_record(tmp_path, kind, data, message):
    s = _project(tmp_path)
    path = _write(tmp_path / "t.json", json.dumps(data))
    with pytest.raises(InputError) as err:
        import_judgments(s, **{f"{kind}_path": path})
    assert str(err.value) == f"{tmp_path}/{message}"
    assert _snapshot(s) == {t: [] for t in TABLES}
    s.close()


def test_8_reasons_file_with_bad_bytes(tmp_path, capsys):
    s = _project(tmp_path)
    raw = "docid\tpersona\treason\nm1@x\tp\tok\n".encode() + b"m2@x\tp\t\xff\xfe\n"
    path = _write(tmp_path / "r.tsv", raw)
    with pytest.raises(InputError) as err:
        import_judgments(s, reasons_path=path)
    assert raw.index(b"\xff") == 38
    assert str(err.value) == f"{path}:3: not UTF-8 text (invalid start byte at byte 38 of the file)"
    assert _snapshot(s) == {t: [] for t in TABLES}
    s.close()
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--reasons", str(path)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {path}:3: not UTF-8 text (invalid start byte at byte 38 of the file)\n"


# ------------------------------------------------------------------------------ finding 9
def test_9_a_locked_project_is_reported_as_busy(tmp_path):
    mail = _cats_collection(tmp_path, LABELS)
    s = _project(tmp_path, mail)
    s.store.con.execute("PRAGMA busy_timeout = 50")   # the real timeout is 30 s; the error is the same
    other = sqlite3.connect(str(tmp_path / "proj" / "project.sqlite"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ProjectError) as err:
            import_categories(s, mail)
        assert str(err.value) == "the project is busy (another program is writing to it); try again"
        assert isinstance(err.value, sqlite3.OperationalError)   # still what `except sqlite3.Error` expects
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _snapshot(s) == {t: [] for t in TABLES}
    assert import_categories(s, mail)["messages"] == 3   # free again: it goes through
    s.close()


# ------------------------------------------------------------------------------ finding 10
def test_10_non_utf8_reported_with_its_line_and_file_offset(tmp_path):
    lines = [f"1 0 doc{i:05d} 1\n".encode() for i in range(4000)]   # 15 bytes each: well past one read chunk
    lines[3000] = b"1 0 caf\xe9000 1\n"
    path = _write(tmp_path / "latin1.qrels", b"".join(lines))
    offset = 15 * 3000 + 7
    assert b"".join(lines)[offset] == 0xE9
    with pytest.raises(InputError) as err:
        read_qrels(path)
    assert str(err.value) == f"{path}:3001: not UTF-8 text (invalid continuation byte at byte {offset} of the file)"
    s = _project(tmp_path)
    with pytest.raises(InputError, match=r"latin1.qrels:3001: not UTF-8"):
        import_judgments(s, qrels_path=path)
    assert _snapshot(s) == {t: [] for t in TABLES}
    s.close()


# ------------------------------------------------------------------------------ finding 11
def test_11_topics_and_personas_as_id_mappings(tmp_path):
    s = _project(tmp_path)
    topics = _write(tmp_path / "t.json", json.dumps({"topics": {"1": {"title": "one", "narrative": "n"},
                                                                "2": {"title": "two"}}}))
    cards = _write(tmp_path / "p.json", json.dumps({"personas": {"ann": {"name": "Ann"}}}))
    counts = import_judgments(s, topics_path=topics, personas_path=cards)
    assert (counts["topics"], counts["personas"]) == (2, 1)
    assert _snapshot(s)["topics"] == [("1", "one", "", "n"), ("2", "two", "", "")]
    assert [(p["id"], p["name"]) for p in J.personas(s.store)] == [("ann", "Ann")]
    for bad, message in (({"topics": 5}, '"topics" must be a list of topic objects or an object mapping ids '
                                         'to topic objects, not a number'),
                         ({"topics": {"1": [1]}}, "topic '1' must be an object (or a title string), not a list"),
                         (7, 'expected a list of topic objects, each with an "id"; found a number')):
        _write(topics, json.dumps(bad))
        with pytest.raises(InputError) as err:
            import_judgments(s, topics_path=topics)
        assert str(err.value) == f"{topics}: {message}"
    assert len(_snapshot(s)["topics"]) == 2
    _write(topics, json.dumps({"id": 3, "title": "three"}))      # one record on its own
    assert import_judgments(s, topics_path=topics)["topics"] == 1
    assert _snapshot(s)["topics"][-1] == ("3", "three", "", "")
    s.close()


# ------------------------------------------------------------------------------ finding 12
def test_12_comment_lines_in_qrels_and_sensitivity_files(tmp_path):
    qrels = _write(tmp_path / "c.qrels", "# comment line 1\n1 0 a 1\n   # topic 0 doc rel\n#\n2 0 b 0\n")
    sens = _write(tmp_path / "c.sens", "# persona doc level\np a 1\n  #p b 0 x\n")
    assert [(q.topic, q.docid, q.rel) for q in read_qrels(qrels)] == [("1", "a", 1), ("2", "b", 0)]
    assert [(j.persona, j.docid, j.level, j.topic) for j in read_sensitivity(sens)] == [("p", "a", 1, None)]
    s = _project(tmp_path)
    counts = import_judgments(s, qrels_path=qrels, sensitivity_path=sens)
    assert (counts["qrels"], counts["sensitivity"]) == (2, 1)
    assert _qrels(s) == {"1": {"a": 1}, "2": {"b": 0}}
    s.close()


# ------------------------------------------------------------------------------ finding 13
def test_13_dont_know_is_imported_and_left_out_of_training(tmp_path):
    mail = tmp_path / "mail"
    for i in range(4):
        _eml(mail / f"{i}.txt", f"m{i}@x", f"s{i}")
    s = _project(tmp_path, mail)
    sens = _write(tmp_path / "s.txt", "p m0@x -1\np m1@x 1\np m2@x 0\np m3@x -1\n")
    per_topic = _write(tmp_path / "t.txt", "7 p m3@x 1\n8 p m2@x -1\n")
    assert import_judgments(s, sensitivity_path=sens)["sensitivity"] == 4
    assert import_judgments(s, sensitivity_path=per_topic)["sensitivity"] == 2
    assert J.sensitivity(s.store, "p") == {"m0@x": -1, "m1@x": 1, "m2@x": 0, "m3@x": 1}
    # m0 is "don't know" everywhere: left out; m3 is sensitive under topic 7: sensitive
    assert training_labels(s, "p") == {"m1@x": 1, "m2@x": 0, "m3@x": 1}
    # evaluation treats "don't know" as unjudged
    assert sensitivity_maps(read_sensitivity(sens)) == ({"m1@x": 1, "m2@x": 0}, {})
    assert sensitivity_maps(read_sensitivity(per_topic)) == ({}, {"7": {"m3@x": 1}})
    with pytest.raises(InputError, match=r"s2.txt:1: sensitivity level must be 0 \(not sensitive\), 1 to 9 "
                                         r"\(sensitive\) or -1 \(I don't know\), got -2"):
        read_sensitivity(_write(tmp_path / "s2.txt", "p m0@x -2\n"))
    s.close()


def test_5_the_session_facade_passes_replace_reasons_and_progress(tmp_path):
    """The GUI and scripts import through Session: it refuses and replaces exactly as the engine
    functions do, and passes reasons and progress through."""
    from sasc_desktop.engine.progress import Progress
    mail = _cats_collection(tmp_path, LABELS)        # r0: sensitive, r1: sensitive, r2: not
    s = _project(tmp_path, mail)
    hand = _write(tmp_path / "hand.sens", f"{DANA} r0@corp.com 0\n{DANA} r1@corp.com 0\n")
    why = _write(tmp_path / "hand.reasons", f"r2@corp.com\t{DANA}\tlegal\n")
    seen = []
    counts = s.import_judgments(sensitivity=hand, reasons=why, progress=Progress(lambda d, t, m: seen.append((d, t))))
    assert counts["sensitivity"] == 2 and seen and seen[-1][0] == seen[-1][1]
    assert sensitivity_reasons(s, DANA) == {"r2@corp.com": ["legal"]}
    before = _snapshot(s)
    with pytest.raises(InputError) as err:
        s.import_categories(mail)
    assert str(err.value) == (f"this import would change 3 judgments another import made (2 sensitivity levels "
                              f"from {hand}; 1 set of reasons from {why}); nothing was imported. "
                              "To replace them, import again with --replace.")
    assert _snapshot(s) == before
    assert s.import_categories(mail, replace=True)["changed"] == 3
    assert sensitivity_reasons(s, DANA) == {"r0@corp.com": ["legal", "secrecy"], "r1@corp.com": ["personal"]}
    assert J.sensitivity(s.store, DANA) == {"r0@corp.com": 1, "r1@corp.com": 1, "r2@corp.com": 0}
    s.close()


def _sql(s, query: str) -> list[tuple]:
    return [tuple(r) for r in s.store.con.execute(query)]


# ------------------------------------------------------------------------------ second review, finding 1
def test_r2_1_a_source_is_the_resolved_file_not_the_name_typed(tmp_path, monkeypatch):
    """Two files named alike in two folders are two sources; one file named relatively, with
    ./, through a symlink or absolutely is one source, for every kind of file."""
    mail = tmp_path / "mail"
    for i in range(2):
        _eml(mail / f"{i}.txt", f"m{i}@x", f"s{i}")
    s = _project(tmp_path, mail)
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    _write(alice / "judgments.txt", "p m0@x 1\n")
    _write(bob / "judgments.txt", "p m0@x 0\n")
    monkeypatch.chdir(alice)
    import_judgments(s, sensitivity_path="judgments.txt")
    monkeypatch.chdir(bob)
    with pytest.raises(InputError) as err:
        import_judgments(s, sensitivity_path="judgments.txt")
    assert str(err.value) == (f"this import would change 1 judgment another import made (1 sensitivity level from "
                              f"{alice / 'judgments.txt'}); nothing was imported. "
                              "To replace them, import again with --replace.")
    rows = lambda: _sql(s, "SELECT doc_id, level, source FROM sensitivity")  # noqa: E731
    assert rows() == [("m0@x", 1, str(alice / "judgments.txt"))]
    # Alice's file, edited, through ./, an absolute path, a symlink and a detour: her own source each time
    (tmp_path / "link.txt").symlink_to(alice / "judgments.txt")
    monkeypatch.chdir(alice)
    for level, name in enumerate(["./judgments.txt", str(alice / "judgments.txt"), str(tmp_path / "link.txt"),
                                  "../bob/../alice/judgments.txt"], 2):
        _write(alice / "judgments.txt", f"p m0@x {level}\n")
        assert import_judgments(s, sensitivity_path=name)["changed"] == 1
        assert rows() == [("m0@x", level, str(alice / "judgments.txt"))]
    # qrels and reasons files too
    _write(alice / "j.qrels", "1 0 m0@x 1\n")
    _write(alice / "j.tsv", "m0@x\tp\tlegal\n")
    import_judgments(s, qrels_path="./j.qrels", reasons_path="j.tsv")
    assert _sql(s, "SELECT source FROM qrels") == [(str(alice / "j.qrels"),)]
    assert _sql(s, "SELECT source FROM sensitivity_reasons") == [(str(alice / "j.tsv"),)]
    monkeypatch.chdir(bob)
    _write(bob / "j.qrels", "1 0 m0@x 2\n")
    with pytest.raises(InputError, match=rf"1 relevance grade from {alice / 'j.qrels'}\)"):
        import_judgments(s, qrels_path="j.qrels")
    s.close()


def test_r2_1_sources_stored_by_older_versions(tmp_path, monkeypatch):
    """A relative source stored as typed by an older version cannot be resolved (its folder is
    unknown): it is another source, and the refusal says why. A stored absolute path is
    compared resolved: the same file through a symlinked folder is the same source."""
    mail = tmp_path / "mail"
    _eml(mail / "0.txt", "m0@x", "s0")
    s = _project(tmp_path, mail)
    alice = tmp_path / "alice"
    _write(alice / "judgments.txt", "p m0@x 0\n")
    (tmp_path / "shortcut").symlink_to(alice)
    J.save_personas(s.store, [{"id": "p", "name": "p"}])
    J.save_sensitivity(s.store, [("p", "", "m0@x", 1)], source="judgments.txt")           # as typed, relative
    J.save_qrels(s.store, [("1", "m0@x", 1)], source=str(tmp_path / "shortcut" / "j.qrels"))  # absolute, unresolved
    monkeypatch.chdir(alice)
    with pytest.raises(InputError) as err:
        import_judgments(s, sensitivity_path="judgments.txt")
    assert str(err.value) == (
        "this import would change 1 judgment another import made (1 sensitivity level from judgments.txt); "
        "nothing was imported. To replace them, import again with --replace. (judgments.txt: recorded by an "
        "older version as typed, without its folder, so it cannot be told apart from another file of that name; "
        "if it is this file, --replace takes its judgments over.)")
    assert import_judgments(s, sensitivity_path="judgments.txt", replace=True)["changed"] == 1
    assert _sql(s, "SELECT level, source FROM sensitivity") == [(0, str(alice / "judgments.txt"))]
    _write(alice / "j.qrels", "1 0 m0@x 2\n")
    assert import_judgments(s, qrels_path="j.qrels")["changed"] == 1                  # no refusal
    assert _sql(s, "SELECT rel, source FROM qrels") == [(2, str(alice / "j.qrels"))]
    assert J.same_source("demo", "demo") and not J.same_source("demo", str(tmp_path / "demo"))
    assert not J.same_source("", str(alice / "j.qrels"))
    s.close()


# ------------------------------------------------------------------------------ second review, finding 2
def test_r2_2_a_value_left_unchanged_keeps_its_source(tmp_path, capsys):
    """The reviewer's three steps: a person's judgments, then labels that agree with them (no
    refusal, nothing taken over), then corrected labels that disagree: refused without --replace,
    for the grade, the level and the set of reasons alike."""
    mail = _cats_collection(tmp_path, LABELS)        # 101 = r0: topic 10 grade 2, sensitive: legal, secrecy
    s = _project(tmp_path, mail)
    hq = _write(tmp_path / "hand.qrels", "10 0 r0@corp.com 2\n")
    hs = _write(tmp_path / "hand.sens", f"{DANA} r0@corp.com 1\n")
    hr = _write(tmp_path / "hand.reasons", f"r0@corp.com\t{DANA}\tsecrecy\nr0@corp.com\t{DANA}\tlegal\n")
    import_judgments(s, qrels_path=hq, sensitivity_path=hs, reasons_path=hr)
    counts = import_categories(s, mail)                                               # agrees: no refusal
    assert (counts["changed"], counts["topics_changed"], counts["personas_changed"]) == (0, 0, 0)
    assert _sql(s, "SELECT source FROM qrels WHERE topic = '10' AND doc_id = 'r0@corp.com'") == [(str(hq),)]
    assert _sql(s, "SELECT source FROM qrels WHERE topic = '6' AND doc_id = 'r2@corp.com'") == [(str(mail),)]
    assert _sql(s, "SELECT doc_id, level, source FROM sensitivity ORDER BY doc_id") == [
        ("r0@corp.com", 1, str(hs)), ("r1@corp.com", 1, str(mail)), ("r2@corp.com", 0, str(mail))]
    assert _sql(s, "SELECT doc_id, reason, source FROM sensitivity_reasons ORDER BY doc_id, reason") == [
        ("r0@corp.com", "legal", str(hr)), ("r0@corp.com", "secrecy", str(hr)), ("r1@corp.com", "personal", str(mail))]
    before = _snapshot(s)
    _write(mail / "101.cats", "1,1,1\n3,1,1\n")                                      # corrected labels
    with pytest.raises(InputError) as err:
        import_categories(s, mail)
    assert str(err.value) == (f"this import would change 3 judgments another import made (1 relevance grade from "
                              f"{hq}; 1 sensitivity level from {hs}; 1 set of reasons from {hr}); nothing was "
                              "imported. To replace them, import again with --replace.")
    assert _snapshot(s) == before
    s.close()
    assert sasc(["judgments", "import-categories", str(tmp_path / "proj"), str(mail)]) == 2
    assert "another import made" in capsys.readouterr().err
    s = Session.open(tmp_path / "proj")
    assert _snapshot(s) == before
    assert import_categories(s, mail, replace=True)["changed"] == 4                  # + its own topic-1 grade, 0 -> 1
    assert _sql(s, "SELECT level, source FROM sensitivity WHERE doc_id = 'r0@corp.com'") == [
        (0, str(mail))]
    assert sensitivity_reasons(s, DANA) == {"r1@corp.com": ["personal"]}
    s.close()


def test_r2_2_the_store_keeps_the_source_of_an_unchanged_value(tmp_path):
    s = _project(tmp_path)
    J.save_qrels(s.store, [("1", "a", 1), ("1", "b", 0)], source="x")
    J.save_qrels(s.store, [("1", "a", 1), ("1", "b", 2), ("1", "c", 0)], source="y")
    assert sorted(_sql(s, "SELECT doc_id, rel, source FROM qrels")) == [
        ("a", 1, "x"), ("b", 2, "y"), ("c", 0, "y")]
    J.save_sensitivity(s.store, [("p", "", "a", -1), ("p", "7", "a", 1)], source="x")
    J.save_sensitivity(s.store, [("p", "", "a", -1), ("p", "7", "a", 0)], source="y")
    assert sorted(_sql(s, "SELECT topic, level, source FROM sensitivity")) == [("", -1, "x"), ("7", 0, "y")]
    JIO.save_reasons(s, [("p", "a", "legal"), ("p", "b", "tone")], source="x")
    JIO.save_reasons(s, [("p", "a", "legal"), ("p", "b", "tone"), ("p", "b", "personal")], source="y", pairs=[("p", "c")])
    assert sorted(_sql(s, "SELECT doc_id, reason, source FROM sensitivity_reasons")) == [
        ("a", "legal", "x"), ("b", "personal", "y"), ("b", "tone", "y")]
    JIO.save_reasons(s, [], source="z", pairs=[("p", "a")])                          # an emptied set is a change
    assert sorted(_sql(s, "SELECT doc_id FROM sensitivity_reasons")) == [("b",), ("b",)]
    s.close()


# ------------------------------------------------------------------------------ second review, finding 8
def _cli_on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run the real ``sasc`` command with stderr on a pseudo-terminal (so it draws its progress
    bar); return its exit code and everything written to the terminal."""
    import os
    import pty
    import subprocess
    import sys
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from sasc_desktop.cli import main; "
                             "sys.exit(main(sys.argv[1:]))", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            env={**os.environ, "SASC_BLOCK_QT": "1"})
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:          # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=120), out.decode("utf-8", "replace")


@pytest.mark.skipif(not hasattr(__import__("os"), "openpty"), reason="needs a pseudo-terminal")
def test_r2_8_an_import_error_is_not_printed_on_the_progress_bar_line(tmp_path):
    mail = _cats_collection(tmp_path, LABELS)
    s = _project(tmp_path, mail)
    hand = _write(tmp_path / "hand.sens", f"{DANA} r0@corp.com 0\n")
    import_judgments(s, sensitivity_path=hand)
    s.close()
    other = _write(tmp_path / "other.sens", f"{DANA} r0@corp.com 1\n")
    root = str(tmp_path / "proj")
    for args, label in ((["judgments", "import", root, "--sensitivity", str(other)], "judgments ["),
                        (["judgments", "import-categories", root, str(mail)], "labels [")):
        code, out = _cli_on_a_terminal(args)
        assert code == 2
        assert label in out                                       # the bar was drawn ...
        head, error, _ = out.partition("sasc: error: this import would change 1 judgment another import made")
        assert error and head.endswith("\n")                     # ... and the error starts a line of its own


# ------------------------------------------------------------------------------ review 5, finding 2
def _h(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:10]


def test_rev5_2_labels_before_ingest_for_two_messages_with_one_message_id_are_refused(tmp_path):
    """The reviewer's reproduction: two different messages (subjects) share a Message-ID, one
    harmless (1,1,1 + 3,8,1), one private (1,2,1 + 3,8,1). Before ingest, which gets the bare
    Message-ID depends on the order the mail is ingested in: refused, nothing written, and the
    error says to ingest first. After ingest each label is on its own message."""
    mail = tmp_path / "lab"
    _eml(mail / "001.txt", "dupcollide.42@enron.com", "quokka schedule", "nothing unusual")
    private = _eml(mail / "002.txt", "dupcollide.42@enron.com", "quokka schedule - private", "my divorce hearing")
    _write(mail / "001.cats", "1,1,1\n3,8,1\n")
    _write(mail / "002.cats", "1,2,1\n3,8,1\n")
    s = _project(tmp_path)
    before = _snapshot(s)
    with pytest.raises(InputError) as err:
        import_categories(s, mail)
    assert str(err.value) == (
        f"{mail}: the labels of mail not in the project yet cannot be placed where the document id ingest will "
        "give a message depends on the order the mail is ingested in: <dupcollide.42@enron.com>: 001.txt "
        "('quokka schedule') and 002.txt ('quokka schedule - private') are different messages (different "
        f"subjects) with one Message-ID. Ingest the mail first (sasc ingest PROJECT {mail}), then import the "
        "labels again; nothing was imported.")
    assert _snapshot(s) == before
    root = str(tmp_path / "proj")
    s.close()
    assert sasc(["judgments", "import-categories", root, str(mail)]) == 2
    s = Session.open(root)
    s.ingest([mail], workers=0)
    private_id = f"dupcollide.42@enron.com~{_h(private)}"
    counts = import_categories(s, mail)
    assert (counts["messages"], counts["sensitive"], counts["not_in_project"]) == (2, 1, 0)
    assert J.sensitivity(s.store, DANA) == {"dupcollide.42@enron.com": 0, private_id: 1}
    assert training_labels(s, DANA) == {"dupcollide.42@enron.com": 0, private_id: 1}
    assert sensitivity_reasons(s, DANA) == {private_id: ["personal"]}
    assert _grades(s, "dupcollide.42@enron.com") == {"8": 1} and _grades(s, private_id) == {"8": 1}
    s.close()


def test_rev5_2_labels_before_ingest_where_ingest_order_does_not_matter(tmp_path):
    """What ingest will do whatever the order: copies (same subject, other bytes) of a message no
    stored message shares the Message-ID with are one document, the bare Message-ID; a message
    whose Message-ID a stored message (another subject) has is ``<mid>~<hash of its bytes>``.
    Labels imported first are on exactly the documents ingest then makes."""
    stored = tmp_path / "stored"
    _eml(stored / "s.txt", "taken@x", "the stored one", "already here")
    s = _project(tmp_path, stored)
    mail = tmp_path / "lab"
    _eml(mail / "a.txt", "copies@x", "board minutes", "privileged")
    _eml(mail / "b.txt", "copies@x", "board  minutes", "privileged", extra="X-Copy: 2\n")   # same subject to ingest
    other = _eml(mail / "c.txt", "taken@x", "another message", "lunch")
    _write(mail / "a.cats", "1,1,1\n3,2,2\n")
    _write(mail / "b.cats", "1,1,1\n4,10,1\n")
    _write(mail / "c.cats", "1,1,1\n3,12,1\n")
    counts = import_categories(s, mail)
    other_id = f"taken@x~{_h(other)}"
    assert (counts["messages"], counts["sensitive"], counts["not_in_project"]) == (2, 1, 2)
    s.ingest([mail], workers=0)
    assert {r[0] for r in s.store.con.execute("SELECT doc_id FROM messages")} == {"taken@x", "copies@x", other_id}
    assert training_labels(s, DANA) == {"copies@x": 1, other_id: 0}
    assert sensitivity_reasons(s, DANA) == {"copies@x": ["secrecy"]}
    assert _grades(s, "copies@x") == {"2": 2} and _grades(s, other_id) == {"12": 1}
    s.close()


def test_rev5_2_copies_of_a_message_whose_message_id_is_taken_are_refused_before_ingest(tmp_path):
    """Two copies (other bytes) of one message, and a stored message with its Message-ID but
    another subject: ingest names it ``<mid>~<hash of the copy stored first>``, which depends on
    the order: refused; after ingest the labels are placed."""
    stored = tmp_path / "stored"
    _eml(stored / "s.txt", "taken@x", "the stored one", "already here")
    s = _project(tmp_path, stored)
    mail = tmp_path / "lab"
    _eml(mail / "a.txt", "taken@x", "board minutes", "privileged")
    _eml(mail / "b.txt", "taken@x", "board minutes", "privileged", extra="X-Copy: 2\n")
    _write(mail / "a.cats", "1,1,1\n4,10,1\n")
    _write(mail / "b.cats", "1,1,1\n")
    before = _snapshot(s)
    with pytest.raises(InputError, match=r"<taken@x>: a.txt and b.txt are copies \(different bytes\) of one message, "
                                         r"and the project has another message with that Message-ID"):
        import_categories(s, mail)
    assert _snapshot(s) == before
    s.ingest([mail], workers=0)
    (doc,) = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages WHERE doc_id <> 'taken@x'")]
    assert import_categories(s, mail)["messages"] == 1
    assert training_labels(s, DANA) == {doc: 1}
    s.close()


# ------------------------------------------------------------------------------ review 5, finding 3
def test_rev5_3_a_reason_for_a_document_judged_not_sensitive_is_refused(tmp_path, capsys):
    """A reason says a document IS sensitive: with a level 0 for that persona (stored, or in the
    same import) it is refused, listing document and persona, nothing written; so it is beside
    "I don't know" (-1, left out of training). A reason on its own, or beside a level >= 1 under
    another topic, is taken."""
    from sasc_desktop.engine.protect.search import judged_sensitive
    mail = tmp_path / "mail"
    for i in range(5):
        _eml(mail / f"{i}.txt", f"m{i}@x", f"s{i}")
    s = _project(tmp_path, mail)
    import_judgments(s, sensitivity_path=_write(tmp_path / "levels.sens", "p m0@x 0\np m1@x -1\np m2@x 0\n"))
    import_judgments(s, sensitivity_path=_write(tmp_path / "t7.sens", "t7 p m2@x 1\n"))
    before = _snapshot(s)
    bad = _write(tmp_path / "bad.tsv", "m0@x\tp\tlegal\nm1@x\tp\tpersonal\nm2@x\tp\tlegal\nm3@x\tp\tlegal\n")
    with pytest.raises(InputError) as err:
        import_judgments(s, reasons_path=bad)
    assert str(err.value) == (
        f"{bad}: a reason why a document is sensitive is given for 2 documents judged not sensitive (level 0) or "
        "'I don't know' (level -1) for that persona: m0@x (persona p, level 0), m1@x (persona p, level -1). A reason "
        "says the document is sensitive: correct its level (1 or more) or drop the reason; nothing was imported.")
    assert _snapshot(s) == before
    # the same import giving the level 0 and the reason: refused too, --replace or not
    both = _write(tmp_path / "both.sens", "p m4@x 0\n")
    reason4 = _write(tmp_path / "r4.tsv", "m4@x\tp\tlegal\n")
    for replace in (False, True):
        with pytest.raises(InputError, match=r"r4.tsv: a reason why a document is sensitive is given for 1 document "
                                             r"judged not sensitive \(level 0\) for that persona: m4@x \(persona p\)"):
            import_judgments(s, sensitivity_path=both, reasons_path=reason4, replace=replace)
    assert _snapshot(s) == before
    s.close()
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--reasons", str(bad)]) == 2
    assert "m0@x (persona p, level 0)" in capsys.readouterr().err
    s = Session.open(tmp_path / "proj")
    good = _write(tmp_path / "good.tsv", "m2@x\tp\tlegal\nm3@x\tp\tlegal\n")
    assert import_judgments(s, reasons_path=good)["reasons"] == 2
    assert sensitivity_reasons(s, "p") == {"m2@x": ["legal"], "m3@x": ["legal"]}
    assert judged_sensitive(s, "p") == {"m2@x", "m3@x"}     # a reason: judged sensitive (safe side)
    s.close()


def test_rev5_3_a_level_0_against_stored_reasons_needs_replace_which_removes_them(tmp_path):
    from sasc_desktop.engine.protect.search import judged_sensitive
    mail = tmp_path / "mail"
    for i in range(3):
        _eml(mail / f"{i}.txt", f"m{i}@x", f"s{i}")
    s = _project(tmp_path, mail)
    import_judgments(s, sensitivity_path=_write(tmp_path / "l.sens", "p m0@x 1\np m1@x 1\n"),
                     reasons_path=_write(tmp_path / "r.tsv", "m0@x\tp\tlegal\nm0@x\tp\tsecrecy\nm1@x\tp\tlegal\n"))
    before = _snapshot(s)
    zero = _write(tmp_path / "zero.sens", "p m0@x 0\np m1@x 1\np m2@x 0\n")
    with pytest.raises(InputError) as err:
        import_judgments(s, sensitivity_path=zero)
    assert str(err.value) == (
        f"{zero}: judges 1 document not sensitive (level 0) that has stored reasons why it is sensitive: "
        "m0@x (persona p: legal, secrecy); nothing was imported. To judge them not sensitive and remove those "
        "reasons, import again with --replace.")
    assert _snapshot(s) == before
    counts = import_judgments(s, sensitivity_path=zero, replace=True)
    assert counts["changed"] == 2                                  # m0's level and its reasons
    assert J.sensitivity(s.store, "p") == {"m0@x": 0, "m1@x": 1, "m2@x": 0}
    assert sensitivity_reasons(s, "p") == {"m1@x": ["legal"]}
    assert judged_sensitive(s, "p") == {"m1@x"}
    s.close()


def test_7_a_labelled_copy_without_message_id_is_found_like_ingest_finds_it(tmp_path):
    """A message without a Message-ID stored from one mailbox; its labels come with a copy that
    differs only in what a mailbox adds (Status, X-Folder): ingest would merge the copy into the
    stored document, so the labels land on it (they went to a new '<id>~<hash>' document that
    ingest would never make)."""
    mail = tmp_path / "mail"
    _eml(mail / "a.txt", None, "no id here", "the body")
    s = _project(tmp_path, mail)
    (stored,) = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages")]
    labelled = tmp_path / "labelled"
    _eml(labelled / "a.txt", None, "no id here", "the body", extra="Status: RO\nX-Folder: inbox\n")
    _write(labelled / "a.cats", "1,2,1\n")
    counts = import_categories(s, labelled)
    assert (counts["messages"], counts["sensitive"], counts["not_in_project"]) == (1, 1, 0)
    assert J.sensitivity(s.store, DANA) == {stored: 1}
    s.ingest([labelled], workers=0)   # ingest agrees: the copy is that document
    assert [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages")] == [stored]
    s.close()
