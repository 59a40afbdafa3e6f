"""A reply or forward that quotes a message judged sensitive is held back, not shown.

Found in the demo collection: John Snibert's "Nora is sharp but lazy; she'll print whatever you
give her" is judged sensitive and withheld, but the reply quoting it in full (judged 0) was in
the searcher's list. Real ingest of real mbox bytes, real protected searches; the quote rule
checked against a brute-force oracle on the demo collection."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingest"))
from mailfactory import mbox, msg  # noqa: E402

from sasc_desktop.engine.project import judgments as J  # noqa: E402
from sasc_desktop.engine.protect.quotes import MIN_QUOTED_CHARS, quotable_parts, quoting_judged  # noqa: E402
from sasc_desktop.engine.protect.search import judged_sensitive, judged_sensitive_among  # noqa: E402
from sasc_desktop.engine.session import Session  # noqa: E402

SECRET = ("Nora is sharp but lazy; she will print whatever you give her about the Vireo case, "
          "so keep the lawsuit out of the interview.")


def test_quotable_parts_exact():
    body = f"Derek,\n\n{SECRET}\n\nThanks, John\n\n-- \nJohn Snibert\nChief Technologist\n"
    own = "Derek, " + SECRET + " Thanks, John"
    assert quotable_parts(body) == (" ".join(body.split()), own)
    # the own words end at a quoted line, a quoted original, an attribution line or a forward marker
    for tail in ("> older text here", "-----Original Message-----\nFrom: X", "On Monday, Bob wrote:\n> hi",
                 "---------- Forwarded message ----------\nFrom: X", "Begin forwarded message:\n"):
        parts = quotable_parts(f"{SECRET}\n\n{tail}\n")
        assert parts[-1] == SECRET, tail
    # quote marks and rewrapping are squashed away
    assert quotable_parts("> " + SECRET.replace("; ", ";\n>   ")) == (SECRET,)
    # short texts quote nothing: a "Thanks!" would match every reply
    short = "x" * (MIN_QUOTED_CHARS - 1)
    assert quotable_parts(short) == ()
    assert quotable_parts("ok\n-- \nJohn Snibert, Chief Technologist, Arclight Sensorworks") == (
        "ok -- John Snibert, Chief Technologist, Arclight Sensorworks",)   # the whole, not the 2-letter own part


ORIGINAL = msg("Interview request", f"Derek,\n\n{SECRET}\n\nThanks, John\n", message_id="<orig@x>",
               frm="John <john@arclight.example>", to="Derek <derek@arclight.example>")
QUOTE_LINES = "\n".join("> " + line for line in f"Derek,\n\n{SECRET[:60]}\n{SECRET[60:]}\n\nThanks, John".split("\n"))
REPLY = msg("Re: Interview request", f"Makes sense, the interview is on.\n\nOn Monday, John wrote:\n{QUOTE_LINES}\n",
            message_id="<reply@x>", date="Mon, 05 Mar 2001 11:00:00 -0800", extra="In-Reply-To: <orig@x>",
            frm="Derek <derek@arclight.example>", to="John <john@arclight.example>")
OUTLOOK = msg("FW: Interview request", "Camille, see below about the interview.\n\n-----Original Message-----\n"
              f"From: John\nSent: Monday\nSubject: Interview request\n\nDerek,\n\n{SECRET}\n\nThanks, John\n",
              message_id="<fw@x>", date="Mon, 05 Mar 2001 12:00:00 -0800", extra="References: <orig@x>",
              frm="Derek <derek@arclight.example>", to="Camille <camille@arclight.example>")
HTML = msg("Re: Interview request", "<html><body><p>Agreed about the interview.</p><blockquote>Derek,<br><br>"
           + SECRET.replace("; ", ";<br>") + "<br><br>Thanks, John</blockquote>"
           + '<img src="http://tracker.example/x.png"></body></html>',
           message_id="<html@x>", date="Mon, 05 Mar 2001 13:00:00 -0800", extra="In-Reply-To: <orig@x>",
           ctype="Content-Type: text/html; charset=us-ascii")
PLAIN_REPLY = msg("Re: Interview request", "Thursday at noon works for the interview.\n", message_id="<plain@x>",
                  date="Mon, 05 Mar 2001 14:00:00 -0800", extra="In-Reply-To: <orig@x>")
PARTIAL = msg("Re: Interview request", "Which interview questions should we skip?\n\n> Nora is sharp but lazy\n",
              message_id="<partial@x>", date="Mon, 05 Mar 2001 15:00:00 -0800", extra="In-Reply-To: <orig@x>")
ELSEWHERE = msg("Notes for the file", f"Copied from somewhere, an interview note: {SECRET}\n", message_id="<else@x>",
                date="Tue, 06 Mar 2001 09:00:00 -0800")
FILLER = [msg(f"weekly note {i}", f"the interview schedule for week {i} is attached", message_id=f"<f{i}@x>",
              date=f"Wed, 07 Mar 2001 1{i}:00:00 -0800") for i in range(6)]
NAMES = ["orig", "reply", "fw", "html", "plain", "partial", "else"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    base = tmp_path_factory.mktemp("quotes")
    (base / "m.mbox").write_bytes(mbox([ORIGINAL, REPLY, OUTLOOK, HTML, PLAIN_REPLY, PARTIAL, ELSEWHERE] + FILLER))
    s = Session.create(base / "proj")
    assert s.ingest([base / "m.mbox"], workers=0).ingested == 7 + len(FILLER)
    # the original judged sensitive, everything else judged not sensitive (the reply too, as the
    # demo's judgments had it), so the classifier can be trained
    from sasc_desktop.engine.classify import import_judgments
    lines = ["john orig@x 1"] + [f"john {n}@x 0" for n in NAMES[1:]] + [f"john f{i}@x {int(i < 2)}" for i in range(6)]
    (base / "sens.txt").write_text("\n".join(lines) + "\n")
    import_judgments(s, None, base / "sens.txt")
    yield s
    s.close()


def test_thread_mates_quoting_the_judged_message(project):
    s = project
    threads = dict(s.store.con.execute("SELECT doc_id, thread_id FROM messages"))
    assert len({threads[f"{n}@x"] for n in NAMES[:6]}) == 1 and threads["else@x"] != threads["orig@x"]
    every = sorted(threads)
    judged = judged_sensitive_among(s, "john", every)
    assert "orig@x" in judged and "reply@x" not in judged
    # quoted with "> " and rewrapped, forwarded Outlook-style, quoted in HTML: held back; a reply that
    # quotes one line (shorter than the message's own words) or none: not; the same words outside the
    # thread: not (the rule looks within a thread)
    assert quoting_judged(s, "john", every, judged) == {"reply@x": "orig@x", "fw@x": "orig@x", "html@x": "orig@x"}
    # nothing judged: nothing quotes a judged message
    assert quoting_judged(s, "nobody", every, set()) == {}


def test_protected_search_holds_back_the_quoting_messages(project):
    s = project
    for approach in ("relevance", "postfilter", "joint"):
        res = s.protected_search("interview", "john", approach=approach, k=20, show_withheld=True)
        shown = {h["doc_id"] for h in res["hits"]}
        assert not shown & {"orig@x", "reply@x", "fw@x", "html@x"}, approach
        assert {"plain@x", "partial@x", "else@x"} <= shown, approach
        quotes = {h["doc_id"]: h["quotes"] for h in res["held_back"]}
        assert {d: q for d, q in quotes.items() if q} == {"reply@x": "orig@x", "fw@x": "orig@x", "html@x": "orig@x"}
        assert res["withheld_quoting_sensitive"] == 3
        assert res["withheld_judged_sensitive"] == 1 + sum(1 for h in range(2))   # orig and f0, f1
        # pages never show them either
        paged = set()
        for off in range(0, 12, 3):
            paged |= {h["doc_id"] for h in s.protected_search("interview", "john", approach=approach, k=3,
                                                            offset=off)["hits"]}
        assert paged == shown, approach


def test_judging_the_original_not_sensitive_releases_the_quotes(project, tmp_path):
    s = project
    J.save_sensitivity(s.store, [("john", "", "orig@x", 0)])
    try:
        res = s.protected_search("interview", "john", approach="relevance", k=20)
        assert {"orig@x", "reply@x", "fw@x", "html@x"} <= {h["doc_id"] for h in res["hits"]}
    finally:
        J.save_sensitivity(s.store, [("john", "", "orig@x", 1)])


def test_cli_names_the_quoted_message(project, capsys):
    from sasc_desktop.cli import main as sasc
    root = str(project.paths.root)
    assert sasc(["search", root, "interview", "--protect", "relevance", "--persona", "john",
                 "--show-withheld", "--limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "quoting one: 3" in out
    assert re.search(r"reply@x .*quotes orig@x", out)
    assert sasc(["search", root, "interview", "--protect", "relevance", "--persona", "john",
                 "--limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "reply@x" not in out and "quotes" not in out     # the searcher's view names nothing held back


def _squash(text: str) -> str:
    return " ".join(re.sub(r"(?m)^[ \t]*(?:>[ \t]?)+", "", text).split())


def test_demo_collection_against_a_brute_force_oracle(tmp_path):
    """Every pair of thread-mates of a 600-message demo project, compared by the rule written out
    plainly (texts squashed, whole text or own words of >= MIN_QUOTED_CHARS contained)."""
    from sasc_desktop.engine.demo_project import build_demo_project
    root = tmp_path / "demo"
    build_demo_project(root, n_messages=600, seed=3, train=False)
    with Session.open(root) as s:
        from sasc_desktop.engine.ingest.text import html_to_text     # (HTML mail: read as its text)
        rows = [(d, t, html_to_text(body) if html else body, html) for d, t, body, html in
                s.store.con.execute("SELECT doc_id, thread_id, body, body_is_html FROM messages")]
        assert any(r[3] for r in rows) and not all(r[3] for r in rows)
        for persona in ("john-snibert", "holly-palmer"):
            sens = judged_sensitive(s, persona)
            want = {}
            for d, t, body, _ in sorted(rows):
                if d in sens:
                    continue
                text = _squash(body)
                for s_id, s_t, s_body, _ in sorted(rows):
                    if s_t != t or s_id == d or s_id not in sens:
                        continue
                    own = re.split(r"(?im)^[ \t]*(?:>|-{2,} *(?:original message|forwarded)|begin forwarded message|"
                                   r".{0,300}\bwrote:[ \t]*$|--[ \t]*$)", s_body, maxsplit=1)[0]
                    parts = [p for p in (_squash(s_body), _squash(own)) if len(p) >= MIN_QUOTED_CHARS]
                    if any(p in text for p in parts):
                        want[d] = s_id
                        break
            every = [r[0] for r in rows]
            got = quoting_judged(s, persona, every, judged_sensitive_among(s, persona, every))
            assert got == want, persona
            assert len(want) >= 3, persona                      # the demo has such replies
