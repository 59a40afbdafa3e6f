"""A sensitivity reason is a person saying a document is sensitive: a document with a reason and
no level is never shown by protected search. Real demo project, real mbox, the real CLI."""
from __future__ import annotations

import json
import mailbox
from email.message import EmailMessage

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"


def _mbox(path, subject: str, body: str) -> None:
    m = EmailMessage()
    m["From"] = "Carol Diaz <carol@arclight.example.com>"
    m["To"] = "john@arclight.example.com"
    m["Subject"] = subject
    m["Date"] = "Mon, 04 Mar 2019 10:00:00 -0800"
    m["Message-ID"] = "<zanzibar.1@arclight.example.com>"
    m.set_content(body)
    box = mailbox.mbox(str(path))
    box.add(m)
    box.flush()
    box.close()


def test_a_reason_without_a_level_protects_the_document(demo_copy, tmp_path, capsys):
    root = str(demo_copy)
    _mbox(tmp_path / "new.mbox", "zanzibar custody hearing",
          "My divorce custody hearing for zanzibar is on Friday, please keep this private.\n")
    assert sasc(["ingest", root, str(tmp_path / "new.mbox"), "--workers", "0", "--json"]) == 0
    doc = "zanzibar.1@arclight.example.com"
    capsys.readouterr()
    search = ["search", root, "zanzibar", "--protect", "relevance", "--persona", PERSONA, "--json"]
    assert sasc(search) == 0
    assert [h["doc_id"] for h in json.loads(capsys.readouterr().out)["hits"]] == [doc]   # not judged: shown
    reasons = tmp_path / "r.tsv"
    reasons.write_text(f"{doc}\t{PERSONA}\tpersonal\n", encoding="utf-8")
    assert sasc(["judgments", "import", root, "--reasons", str(reasons), "--json"]) == 0
    capsys.readouterr()
    with Session.open(root) as s:
        from sasc_desktop.engine.project import judgments as J
        assert doc not in J.sensitivity(s.store, PERSONA)                  # a reason, no level
    for approach in ("relevance", "postfilter", "joint_postfilter"):
        assert sasc(search[:4] + [approach] + search[5:]) == 0
        res = json.loads(capsys.readouterr().out)
        assert doc not in {h["doc_id"] for h in res["hits"] + res["held_back"]}, approach
