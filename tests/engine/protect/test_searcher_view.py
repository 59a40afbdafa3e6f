"""What a searcher sees of a protected search does not tell that judged-sensitive mail exists:
the counts of candidates and of withheld judged-sensitive documents are the archivist's, shown
only with --show-withheld. Real demo project, real mbox, the real CLI."""
from __future__ import annotations

import json
import mailbox
from email.message import EmailMessage

import pytest

from sasc_desktop.cli import main as sasc

PERSONA = "john-snibert"
DOC = "zanzibar.2@arclight.example.com"


def _ingest_mail(root, path, headers: dict, body: str) -> None:
    """One message (``headers``, ``body``) written to the mbox ``path`` and imported."""
    m = EmailMessage()
    for name, value in headers.items():
        m[name] = value
    m.set_content(body)
    box = mailbox.mbox(str(path))
    box.add(m)
    box.flush()
    box.close()
    assert sasc(["ingest", root, str(path), "--workers", "0", "--json"]) == 0


def _private_mail(root, tmp_path):
    _ingest_mail(root, tmp_path / "new.mbox",
                 {"From": "Carol Diaz <carol@arclight.example.com>", "To": "john@arclight.example.com",
                  "Subject": "zanzibar custody hearing", "Date": "Mon, 04 Mar 2019 10:00:00 -0800",
                  "Message-ID": f"<{DOC}>"},
                 "My divorce custody hearing for zanzibar is on Friday, please keep this private.\n")
    sens = tmp_path / "s.sens"
    sens.write_text(f"{PERSONA} {DOC} 1\n", encoding="utf-8")
    assert sasc(["judgments", "import", root, "--sensitivity", str(sens), "--json"]) == 0


def test_the_searcher_is_not_told_that_judged_sensitive_mail_exists(demo_copy, tmp_path, capsys):
    root = str(demo_copy)
    _private_mail(root, tmp_path)
    capsys.readouterr()
    search = ["search", root, "zanzibar", "--protect", "relevance", "--persona", PERSONA]
    assert sasc(search + ["--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["hits"] == [] and res["held_back"] == []
    assert "withheld_judged_sensitive" not in res and "candidates" not in res
    assert sasc(search) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 shown (") and "withheld" not in out and "candidate" not in out and "held back" not in out
    # the archivist asks for them
    assert sasc(search + ["--json", "--show-withheld"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["hits"], res["withheld_judged_sensitive"], res["candidates"], res["matches"]) == ([], 1, 1, 1)
    assert sasc(search + ["--show-withheld"]) == 0
    assert "withheld as judged sensitive: 1 of 1 candidates (the query matches 1); quoting one: 0" in capsys.readouterr().out.splitlines()


def test_the_flag_is_documented_in_search_help(capsys):
    with pytest.raises(SystemExit) as done:
        sasc(["search", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("--show-withheld with --protect, for the archivist: also list the documents held back for review as too "
            "uncertain, and say how many candidates a person judged sensitive were withheld") in text


def test_the_facade_gives_the_counts_only_when_asked(demo_copy, tmp_path):
    from sasc_desktop.engine.session import Session
    _private_mail(str(demo_copy), tmp_path)
    with Session.open(demo_copy) as s:
        res = s.protected_search("zanzibar", PERSONA, approach="relevance")
        assert res["hits"] == [] and "withheld_judged_sensitive" not in res and "candidates" not in res
        res = s.protected_search("zanzibar", PERSONA, approach="relevance", show_withheld=True)
        assert (res["hits"], res["withheld_judged_sensitive"], res["candidates"]) == ([], 1, 1)


def _quoting_reply(root, tmp_path):
    """A reply that quotes the private mail whole: held back (it carries the judged words)."""
    _ingest_mail(root, tmp_path / "reply.mbox",
                 {"From": "John Snibert <john@arclight.example.com>", "To": "Carol Diaz <carol@arclight.example.com>",
                  "Subject": "Re: zanzibar custody hearing", "Date": "Mon, 04 Mar 2019 11:00:00 -0800",
                  "Message-ID": "<zanzibar.3@arclight.example.com>", "In-Reply-To": f"<{DOC}>"},
                 "Of course, good luck on Friday.\n\n> My divorce custody hearing for zanzibar is on Friday, "
                 "please keep this private.\n")


def test_held_back_documents_are_listed_for_the_archivist_only(demo_copy, tmp_path, capsys):
    """The plain listing showed every searcher "held back (uncertain):" with each document's id
    and subject, also those the prefilter had just removed as predicted sensitive. (Held back
    here: a reply quoting a judged message; the demo's uncertain documents are rarely on a page
    a prefilter search holds back.)"""
    from sasc_desktop.engine.session import Session
    _private_mail(str(demo_copy), tmp_path)
    _quoting_reply(str(demo_copy), tmp_path)
    words = "zanzibar"
    with Session.open(demo_copy) as s:
        held = s.protected_search(words, PERSONA, approach="prefilter", k=10)["held_back"]
    assert [(h["doc_id"], h["quotes"]) for h in held] == [("zanzibar.3@arclight.example.com", DOC)]
    capsys.readouterr()
    root = str(demo_copy)
    search = ["search", root, words, "--protect", "prefilter", "--persona", PERSONA]
    assert sasc(search) == 0
    out = capsys.readouterr().out
    assert "held back" not in out and all(h["doc_id"] not in out for h in held)
    assert sasc(search + ["--show-withheld"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{lines[0].split()[0]} shown, {len(held)} held back for review (")
    assert "held back (uncertain, or quoting a message judged sensitive):" in lines
    assert all(any(h["doc_id"] in line for line in lines) for h in held)
    assert sasc(search + ["--json"]) == 0                     # (the review queue's: always in the JSON)
    assert [h["doc_id"] for h in json.loads(capsys.readouterr().out)["held_back"]] == [h["doc_id"] for h in held]
