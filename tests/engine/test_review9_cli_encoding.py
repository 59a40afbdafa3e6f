"""On a stdout that is not UTF-8 (a cp1252 console, or LC_ALL=C without UTF-8 mode) plain and
--json output of mail the encoding cannot hold (Japanese subjects, an emoji) do not end in a
UnicodeEncodeError traceback: plain text shows such characters as backslash escapes, JSON as
\\uXXXX escapes (the same JSON); on UTF-8 they are written as they are. Real processes with the
real environments, a real project of real mail. The previous code crashed on both."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.engine.session import Session

MAIL = ("From: =?utf-8?b?5LyK5p2x44CA5LuB?= <hito@opentext.com>\n"          # 伊東　仁
        "Subject: =?utf-8?b?5pel5pys6Kqe44Gu5Lu25ZCNIFpvw6s=?=\n"                # 日本語の件名 Zoë
        "Message-ID: <jp1@opentext.com>\n"
        "Date: Thu, 11 Jul 2002 11:01:45 -0400\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: 8bit\n\n"
        "スパムではありません \U0001F600 budget\n")
SUBJECT = "日本語の件名 Zoë"
SENDER = "伊東\u3000仁 <hito@opentext.com>"


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "mail").mkdir()
    (tmp_path / "mail" / "1.eml").write_bytes(MAIL.encode("utf-8"))
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([tmp_path / "mail"], workers=0)
    return root


def _env(**changes: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIO", "PYTHONUTF8")) and k != "LANG"}
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def _sasc(env: dict, *argv: str) -> bytes:
    p = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *argv], env=env, capture_output=True, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0 and "Traceback" not in err and "UnicodeEncodeError" not in err, err
    return p.stdout


CP1252 = _env(PYTHONIOENCODING="cp1252")
C_LOCALE = _env(PYTHONUTF8="0", LC_ALL="C")
UTF8 = _env(PYTHONIOENCODING="utf-8")


@pytest.mark.parametrize("env, codec", [(CP1252, "cp1252"), (C_LOCALE, "ascii")], ids=["cp1252", "C-locale"])
def test_plain_output_escapes_what_the_encoding_lacks(project, env, codec):
    out = _sasc(env, "search", str(project), "from:opentext.com").decode(codec)
    hit = out.splitlines()[1]
    shown = lambda text: text.encode(codec, "backslashreplace").decode(codec)  # noqa: E731
    # Escaped first, then cut to the column's 28: the next column starts where it does for any
    # other sender (cut first, the stream's escapes widened the column to 44).
    assert hit.endswith("  \\u4f0a\\u6771\\u3000\\u4ec1 <hi  " + shown(SUBJECT))
    assert "\\u65e5\\u672c\\u8a9e" in hit                               # 日本語
    assert ("Zoë" if codec == "cp1252" else "Zo\\xeb") in hit             # (cp1252 has ë)
    body = _sasc(env, "show", str(project), "jp1@opentext.com").decode(codec)
    assert body.endswith(shown("スパムではありません \U0001F600 budget\n"))
    assert "\\U0001f600 budget" in body


def test_json_output_is_ascii_json_when_stdout_is_not_utf8(project):
    for argv in (["search", str(project), "from:opentext.com", "--json"],
                 ["show", str(project), "jp1@opentext.com", "--json"]):
        utf8 = _sasc(UTF8, *argv)
        assert "日本語".encode() in utf8                 # (on UTF-8 as it was: the characters themselves)
        expected = json.loads(utf8.decode("utf-8"))
        expected.pop("ms", None)
        if argv[0] == "search":
            assert [(h["subject"], h["from"]) for h in expected["hits"]] == [(SUBJECT, SENDER)]
        for env in (CP1252, C_LOCALE):
            out = _sasc(env, *argv)
            assert max(out) < 128                       # plain ASCII: "\u65e5" for 日
            got = json.loads(out.decode("ascii"))
            got.pop("ms", None)
            assert got == expected


def test_plain_columns_are_cut_by_display_width_on_utf8(project):
    """Each of the four CJK characters takes two terminal columns: with the 20 of the address
    the sender fills its 28 exactly (cut and padded by characters it took 32, and the subject
    column started four columns late)."""
    hit = _sasc(UTF8, "search", str(project), "from:opentext.com").decode("utf-8").splitlines()[1]
    assert hit.endswith(f"  {SENDER}  {SUBJECT}")
    assert len(SENDER) == 24
