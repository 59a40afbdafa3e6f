"""'I don't know' (-1) and reasons: a reason says a document IS sensitive, so it cannot stand
beside a -1 any more than beside a 0. An import refuses a -1 over stored reasons unless
--replace (which removes them, so training leaves the document out), and always refuses a
reason for a document whose highest level would be -1. Real projects, real mail, real SQLite."""
from __future__ import annotations

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import import_judgments, sensitivity_reasons, training_labels
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.protect.search import judged_sensitive
from sasc_desktop.engine.session import Session

TABLES = ("qrels", "sensitivity", "sensitivity_reasons", "topics", "personas")


def _snapshot(s) -> dict[str, list[tuple]]:
    return {t: sorted(tuple(r) for r in s.store.con.execute(f"SELECT * FROM {t}")) for t in TABLES}


def _write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def _project(tmp_path, n: int = 5) -> Session:
    mail = tmp_path / "mail"
    mail.mkdir()
    for i in range(n):
        (mail / f"{i}.eml").write_text(
            f"Message-ID: <m{i}@x>\nDate: Mon, 5 Mar 2001 08:23:00 -0800\nFrom: ann@corp.com\n"
            f"To: bob@corp.com\nSubject: s{i}\n\nbody {i}\n")
    s = Session.create(tmp_path / "proj")
    s.ingest([mail], workers=0)
    return s


def test_dont_know_over_stored_reasons_is_refused_and_replace_takes_the_document_out_of_training(tmp_path):
    s = _project(tmp_path)
    import_judgments(s, sensitivity_path=_write(tmp_path / "l.sens", "p m0@x 1\np m1@x 1\np m2@x 0\np m3@x 1\n"),
                     reasons_path=_write(tmp_path / "r.tsv", "m0@x\tp\tlegal\nm0@x\tp\tsecrecy\nm1@x\tp\tlegal\n"))
    assert training_labels(s, "p") == {"m0@x": 1, "m1@x": 1, "m2@x": 0, "m3@x": 1}
    before = _snapshot(s)
    dk = _write(tmp_path / "dk.sens", "p m0@x -1\np m3@x -1\n")
    with pytest.raises(InputError) as err:
        import_judgments(s, sensitivity_path=dk)
    assert str(err.value) == (
        f"{dk}: judges 1 document 'I don't know' (level -1) that has stored reasons why it is sensitive: "
        "m0@x (persona p: legal, secrecy); nothing was imported. To judge them 'I don't know' and remove "
        "those reasons, import again with --replace.")
    assert _snapshot(s) == before
    assert training_labels(s, "p") == {"m0@x": 1, "m1@x": 1, "m2@x": 0, "m3@x": 1}

    counts = import_judgments(s, sensitivity_path=dk, replace=True)
    assert counts["changed"] == 3                                 # m0's level, m0's reasons, m3's level
    assert J.sensitivity(s.store, "p") == {"m0@x": -1, "m1@x": 1, "m2@x": 0, "m3@x": -1}
    assert sensitivity_reasons(s, "p") == {"m1@x": ["legal"]}
    assert training_labels(s, "p") == {"m1@x": 1, "m2@x": 0}      # both "don't know" left out
    assert judged_sensitive(s, "p") == {"m1@x"}                   # a -1 without a reason is not withheld
    s.close()


def test_a_reason_for_a_dont_know_document_is_refused_even_with_replace(tmp_path):
    s = _project(tmp_path)
    import_judgments(s, sensitivity_path=_write(tmp_path / "l.sens", "p m0@x -1\np m1@x -1\np m2@x 0\n"))
    import_judgments(s, sensitivity_path=_write(tmp_path / "t7.sens", "t7 p m1@x 2\n"))
    before = _snapshot(s)
    bad = _write(tmp_path / "bad.tsv", "m0@x\tp\tlegal\nm1@x\tp\tlegal\nm3@x\tp\tpersonal\n")
    for replace in (False, True):
        with pytest.raises(InputError) as err:
            import_judgments(s, reasons_path=bad, replace=replace)
        assert str(err.value) == (
            f"{bad}: a reason why a document is sensitive is given for 1 document judged 'I don't know' (level -1) "
            "for that persona: m0@x (persona p). A reason says the document is sensitive: correct its level "
            "(1 or more) or drop the reason; nothing was imported.")
        assert _snapshot(s) == before
    # a -1 and a reason in one import: refused too; a 0 and a -1 named apart, with their levels
    both = _write(tmp_path / "both.sens", "p m3@x -1\np m4@x 0\n")
    reasons = _write(tmp_path / "r34.tsv", "m3@x\tp\tlegal\nm4@x\tp\tlegal\n")
    for replace in (False, True):
        with pytest.raises(InputError) as err:
            import_judgments(s, sensitivity_path=both, reasons_path=reasons, replace=replace)
        assert str(err.value) == (
            f"{reasons}: a reason why a document is sensitive is given for 2 documents judged not sensitive "
            "(level 0) or 'I don't know' (level -1) for that persona: m3@x (persona p, level -1), "
            "m4@x (persona p, level 0). A reason says the document is sensitive: correct its level (1 or more) "
            "or drop the reason; nothing was imported.")
        assert _snapshot(s) == before
    # a level >= 1 under another topic (m1) or no level at all (m3): the reason is taken
    good = _write(tmp_path / "good.tsv", "m1@x\tp\tlegal\nm3@x\tp\tpersonal\n")
    assert import_judgments(s, reasons_path=good)["reasons"] == 2
    assert training_labels(s, "p") == {"m1@x": 1, "m2@x": 0, "m3@x": 1}
    assert judged_sensitive(s, "p") == {"m1@x", "m3@x"}
    s.close()


def test_mixed_zero_and_dont_know_over_reasons_name_each_level(tmp_path):
    s = _project(tmp_path)
    import_judgments(s, sensitivity_path=_write(tmp_path / "l.sens", "p m0@x 1\np m1@x 1\n"),
                     reasons_path=_write(tmp_path / "r.tsv", "m0@x\tp\tlegal\nm1@x\tp\tsecrecy\n"))
    both = _write(tmp_path / "both.sens", "p m0@x 0\np m1@x -1\n")
    with pytest.raises(InputError) as err:
        import_judgments(s, sensitivity_path=both)
    assert str(err.value) == (
        f"{both}: judges 2 documents not sensitive (level 0) or 'I don't know' (level -1) that have stored reasons "
        "why they are sensitive: m0@x (persona p, level 0: legal), m1@x (persona p, level -1: secrecy); nothing "
        "was imported. To judge them so and remove those reasons, import again with --replace.")
    import_judgments(s, sensitivity_path=both, replace=True)
    assert sensitivity_reasons(s, "p") == {}
    assert training_labels(s, "p") == {"m0@x": 0}
    assert judged_sensitive(s, "p") == set()
    s.close()


def test_an_older_project_with_a_reason_beside_dont_know_keeps_it_withheld_and_positive(tmp_path):
    """Rows an older version let in (written here straight into the store): the stored reason
    wins, for protection (withheld) and for training (a positive), until the level is imported
    again with --replace."""
    s = _project(tmp_path)
    J.save_sensitivity(s.store, [("p", "", "m0@x", -1), ("p", "", "m1@x", 0), ("p", "", "m2@x", 1)], source="old")
    with s.store.transaction() as con:
        con.executemany("INSERT INTO sensitivity_reasons(persona, doc_id, reason, source) VALUES (?, ?, ?, ?)",
                        [("p", "m0@x", "legal", "old"), ("p", "m1@x", "legal", "old")])
    assert training_labels(s, "p") == {"m0@x": 1, "m1@x": 1, "m2@x": 1}
    assert judged_sensitive(s, "p") == {"m0@x", "m1@x", "m2@x"}
    import_judgments(s, sensitivity_path=_write(tmp_path / "dk.sens", "p m0@x -1\n"), replace=True)
    assert training_labels(s, "p") == {"m1@x": 1, "m2@x": 1}
    assert judged_sensitive(s, "p") == {"m1@x", "m2@x"}
    s.close()


def test_the_cli_refuses_dont_know_over_reasons_and_replace_changes_training(tmp_path, capsys):
    s = _project(tmp_path)
    s.close()
    proj = str(tmp_path / "proj")
    sens = _write(tmp_path / "l.sens", "p m0@x 1\np m1@x 0\n")
    reasons = _write(tmp_path / "r.tsv", "m0@x\tp\tlegal\n")
    assert sasc(["judgments", "import", proj, "--sensitivity", str(sens), "--reasons", str(reasons)]) == 0
    dk = _write(tmp_path / "dk.sens", "p m0@x -1\n")
    capsys.readouterr()
    assert sasc(["judgments", "import", proj, "--sensitivity", str(dk)]) == 2
    assert "'I don't know' (level -1) that has stored reasons" in capsys.readouterr().err
    assert sasc(["judgments", "import", proj, "--sensitivity", str(dk), "--replace"]) == 0
    s = Session.open(tmp_path / "proj")
    assert training_labels(s, "p") == {"m1@x": 0}
    s.close()
