"""Build real RFC 822 bytes for tests."""
from __future__ import annotations


def msg(subject="Hello", body="Body text.", *, frm="Alice <alice@example.org>", to="Bob <bob@example.org>",
        message_id="<m1@example.org>", date="Mon, 05 Mar 2001 10:00:00 -0800", extra="", ctype=None) -> bytes:
    heads = [f"From: {frm}", f"To: {to}", f"Subject: {subject}"]
    if message_id:
        heads.append(f"Message-ID: {message_id}")
    if date:
        heads.append(f"Date: {date}")
    if extra:
        heads.append(extra.rstrip("\n"))
    heads.append("MIME-Version: 1.0")
    heads.append(ctype or "Content-Type: text/plain; charset=us-ascii")
    return ("\n".join(heads) + "\n\n" + body + "\n").encode("utf-8", "surrogateescape")


def mbox(messages: list[bytes]) -> bytes:
    out = []
    for m in messages:
        quoted = b"\n".join((b">" + line) if line.lstrip(b">").startswith(b"From ") else line
                            for line in m.split(b"\n"))
        out.append(b"From sender@example.org Mon Mar  5 10:00:00 2001\n" + quoted.rstrip(b"\n") + b"\n\n")
    return b"".join(out)


def ingested_project(root, mails: list[dict]):
    """A real project at ``root / "proj"`` holding ``mails`` (msg() keyword dicts) imported from
    one mbox, as an open Session (close it when done)."""
    from sasc_desktop.engine.session import Session
    src = root / "m.mbox"
    src.write_bytes(mbox([msg(**m) for m in mails]))
    s = Session.create(root / "proj")
    s.ingest([src], workers=0)
    return s


def found(session, query) -> set[str]:
    """The doc ids a search of ``query`` finds (all of them: its total is checked to be the hits')."""
    r = session.search(query, limit=1000)
    assert r.total == len(r.hits)
    return {h.doc_id for h in r.hits}


def module_project(mails: list[dict]):
    """A module-scoped pytest fixture: :func:`ingested_project` of ``mails``, open for the
    module's tests and closed after them (``project = module_project(MAILS)``)."""
    import pytest

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory):
        s = ingested_project(tmp_path_factory.mktemp("project"), mails)
        yield s
        s.close()
    return fixture
