"""A judged document id is normalised only when it is one id: ``<a@b>`` -> ``a@b``, a copy's
``<a@b>~hash`` -> ``a@b~hash``; any other id with '<', '>' or white space is refused, naming the
file and line. Before, the first ``<...>`` group (or the first word) of any id was kept: a copy's
``<mid>~hash`` lost its ``~hash`` and its judgment landed silently on the other message with that
Message-ID, and a reasons line whose doc id held a space kept only its first word. Real
enron-categories-dev mail, real ingest, real SQLite."""
from __future__ import annotations

import shutil

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import import_judgments
from sasc_desktop.engine.classify.judgments_io import normalise_id, sensitivity_reasons
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session


def enron_mail(shared_data, folder, n: int = 20):
    """The first ``n`` labelled messages of enron-categories-dev/1 (.txt and .cats) in ``folder``."""
    folder.mkdir()
    for txt in sorted((shared_data / "enron-categories-dev" / "1").glob("*.txt"))[:n]:
        shutil.copy(txt, folder / txt.name)
        shutil.copy(txt.with_suffix(".cats"), folder / txt.with_suffix(".cats").name)
    return folder


def enron_project(shared_data, tmp_path, n: int = 20, extra=None) -> Session:
    """A project of ``n`` enron-categories-dev messages (and ``extra(mail_folder)`` written
    beside them), ingested, with their .cats labels imported; open (close it)."""
    mail = enron_mail(shared_data, tmp_path / "mail", n)
    if extra is not None:
        extra(mail)
    s = Session.create(tmp_path / "proj")
    s.ingest([mail], workers=0)
    return s


def _other_subject_copy(mail):
    """A message with the Message-ID of the first one and another subject: ingest stores it as
    a second document, ``<Message-ID>~<hash>``."""
    first = sorted(mail.glob("*.txt"))[0]
    data = first.read_bytes().replace(b"\nSubject: ", b"\nSubject: Fwd: ", 1)
    assert data != first.read_bytes()
    (mail / "zz-copy.txt").write_bytes(data)


def test_ids_normalised(tmp_path):
    assert normalise_id("<a@b>") == "a@b"
    assert normalise_id("  <a@b>\t") == "a@b"
    assert normalise_id("a@b") == "a@b"
    assert normalise_id("<a@b>~0123456789") == "a@b~0123456789"
    assert normalise_id("a@b~0123456789") == "a@b~0123456789"
    for bad in ("<a@b", "a@b>", "<a@b><c@d>", "<a@b> c", "a b", "<a b>", "x<a@b>", "<a@b>~<h>", "<<a@b>>", "<>"):
        with pytest.raises(InputError) as e:
            normalise_id(bad)
        assert str(e.value) == (f"the document id {bad!r} is not one id: write <id> or id (a copy's id <id>~hash "
                                "or id~hash), with no white space and no other '<' or '>'")


def test_a_copy_id_written_in_brackets_keeps_its_hash(shared_data, tmp_path):
    s = enron_project(shared_data, tmp_path, extra=_other_subject_copy)
    copy, = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages WHERE doc_id LIKE '%~%'")]
    mid, digest = copy.split("~")
    other = s.store.con.execute("SELECT doc_id FROM messages WHERE doc_id NOT LIKE ? ORDER BY doc_id LIMIT 1",
                                (mid + "%",)).fetchone()[0]
    sens = tmp_path / "zoe.txt"
    sens.write_text(f"zoe <{mid}>~{digest} 1\nzoe <{mid}> 0\nzoe <{other}> 1\nzoe <{mid}>~ffffffffff 1\n")
    out = import_judgments(s, sensitivity_path=sens)
    assert (out["sensitivity"], out["not_in_project"], out["copy_ids"]) == (4, 1, 1)
    assert J.sensitivity(s.store, "zoe") == {copy: 1, mid: 0, other: 1, f"{mid}~ffffffffff": 1}
    s.close()


@pytest.mark.parametrize("written", ["<{mid}", "{mid}>", "<{mid}><x@y>", "x<{mid}>"])
def test_a_malformed_id_in_qrels_or_sensitivity_is_refused_with_its_line(shared_data, tmp_path, written):
    s = enron_project(shared_data, tmp_path, n=3)
    mid = s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id LIMIT 1").fetchone()[0]
    bad = written.format(mid=mid)
    qrels, sens = tmp_path / "q.txt", tmp_path / "s.txt"
    qrels.write_text(f"# comment\n1 0 {mid} 1\n1 0 {bad} 2\n")
    sens.write_text(f"zoe {mid} 0\n\nzoe {bad} 1\n")
    why = (f"the document id {bad!r} is not one id: write <id> or id (a copy's id <id>~hash or id~hash), "
           "with no white space and no other '<' or '>'")
    for kwargs, where in ((dict(qrels_path=qrels), f"{qrels}:3"), (dict(sensitivity_path=sens), f"{sens}:3")):
        with pytest.raises(InputError) as e:
            import_judgments(s, **kwargs)
        assert str(e.value) == f"{where}: {why}"
    assert s.store.con.execute("SELECT COUNT(*) FROM qrels").fetchone()[0] == 0
    assert s.store.con.execute("SELECT COUNT(*) FROM sensitivity").fetchone()[0] == 0
    s.close()


def test_a_reasons_doc_id_with_a_space_is_refused_not_cut(shared_data, tmp_path, capsys):
    s = enron_project(shared_data, tmp_path, n=3)
    a, b = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id LIMIT 2")]
    s.close()
    reasons = tmp_path / "r.tsv"
    reasons.write_text(f"docid\tpersona\treason\n<{a}>\tzoe\tlegal\n{a} {b}\tzoe\tpersonal\n")
    capsys.readouterr()
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--reasons", str(reasons)]) == 2
    assert capsys.readouterr().err == (
        f"sasc: error: {reasons}, line 3: the document id {a + ' ' + b!r} is not one id: write <id> or id "
        "(a copy's id <id>~hash or id~hash), with no white space and no other '<' or '>'\n")
    reasons.write_text(f"docid\tpersona\treason\n<{a}>\tzoe\tlegal\n<{b}>\tzoe\tpersonal\n")
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--reasons", str(reasons)]) == 0
    with Session.open(tmp_path / "proj") as s:
        assert sensitivity_reasons(s, "zoe") == {a: ["legal"], b: ["personal"]}


def test_real_files_still_import(shared_data, tmp_path, capsys):
    """The enron .cats labels, and the demo's own qrels, sensitivity and reasons files (as
    `sasc demo` writes them) imported by the CLI into a project of the demo mail."""
    s = enron_project(shared_data, tmp_path)
    s.close()
    assert sasc(["judgments", "import-categories", str(tmp_path / "proj"), str(tmp_path / "mail")]) == 0
    assert capsys.readouterr().out == ("20 messages, 6 sensitive, 260 qrels, 13 topics, 1 personas, "
                                       "0 without_message, 6 reasons\n")
    from sasc_desktop.engine.demo_project import build_demo_project
    demo = build_demo_project(tmp_path / "demo", n_messages=60, train=False)
    mail = demo / "demo-mail"
    with Session.create(tmp_path / "again") as s:
        s.ingest([mail / "mail"], workers=0)
    capsys.readouterr()
    assert sasc(["judgments", "import", str(tmp_path / "again"), "--qrels", str(mail / "qrels.txt"),
                 "--sensitivity", str(mail / "sensitivity.txt"), "--reasons", str(mail / "reasons.tsv"),
                 "--topics", str(mail / "topics.json")]) == 0
    with Session.open(demo) as d, Session.open(tmp_path / "again") as s:
        for table in ("qrels", "sensitivity", "sensitivity_reasons"):
            cols = {"qrels": "topic, doc_id, rel", "sensitivity": "persona, topic, doc_id, level",
                    "sensitivity_reasons": "persona, doc_id, reason"}[table]
            rows = lambda x: sorted(map(tuple, x.store.con.execute(f"SELECT {cols} FROM {table}")))  # noqa: E731
            assert rows(s) == rows(d) and rows(s)
        assert s.store.con.execute("SELECT COUNT(*) FROM sensitivity WHERE doc_id NOT IN "
                                   "(SELECT doc_id FROM messages)").fetchone()[0] == 0
