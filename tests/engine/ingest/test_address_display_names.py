"""Addresses are who the raw header names, never what a decoded display name spells: an
encoded word holding '@', '<' or ',' ('=?utf-8?Q?ceo=40bank.com?= <attacker@evil.org>') must
not become an address (spoofing). The decoded header, as stored, reads back as the same
addresses (the features, the network and sorting parse it again)."""
from __future__ import annotations

import email
import sqlite3
from email.header import Header
from email.policy import default

from hypothesis import given, settings
from hypothesis import strategies as st

from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import addresses, parse_message
from sasc_desktop.engine.session import Session


def test_encoded_at_sign_is_not_the_sender():
    m = parse_message(msg(frm="=?utf-8?Q?ceo=40bank.com?= <attacker@evil.org>"), "x")
    assert m.from_addr == "attacker@evil.org"
    assert m.sender == '"ceo@bank.com" <attacker@evil.org>'
    assert addresses(m.sender) == ["attacker@evil.org"]


def test_encoded_angle_brackets_are_not_a_recipient():
    m = parse_message(msg(to="=?utf-8?Q?a=3Cb=40c.d=3E?= <real@x.org>",
                          extra="Cc: =?utf-8?Q?Smith=2C_John?= <j@x.org>, =?utf-8?Q?Ann?= <a@x.org>"), "x")
    assert m.recipient_addrs == ("real@x.org", "j@x.org", "a@x.org")
    assert m.to == '"a<b@c.d>" <real@x.org>'
    assert m.cc == '"Smith, John" <j@x.org>, Ann <a@x.org>'


def test_reply_to_too():
    m = parse_message(msg(extra="Reply-To: =?utf-8?B?Ym9zc0Bjb3JwLmNvbQ==?= <phish@evil.org>"), "x")
    assert m.reply_to == '"boss@corp.com" <phish@evil.org>'


def test_ordinary_encoded_names_keep_their_text():
    m = parse_message(msg(frm="=?utf-8?Q?Dan=C3=A9?= <dan@example.org>",
                          to='=?utf-8?Q?Bj=C3=B6rn?= <b@x.com>, "Carol, C" <carol@example.org>'), "x")
    assert (m.sender, m.to) == ("Dané <dan@example.org>", 'Björn <b@x.com>, "Carol, C" <carol@example.org>')
    assert (m.from_addr, m.recipient_addrs) == ("dan@example.org", ("b@x.com", "carol@example.org"))


names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(names, st.sampled_from(["attacker@evil.org", "x.y@sub.example.com"]), st.sampled_from(["q", "b"]))
def test_any_encoded_display_name_oracle(name, addr, enc):
    """The stdlib's structured parser (policy=default) is the oracle for the address."""
    encoded = Header(name, "utf-8").encode() if enc == "b" else "=?utf-8?q?" + "".join(
        c if c.isalnum() and c.isascii() else "".join(f"={b:02X}" for b in c.encode()) for c in name) + "?="
    raw = msg(frm=f"{encoded} <{addr}>")
    oracle = email.message_from_bytes(raw, policy=default)["From"].addresses[0].addr_spec
    m = parse_message(raw, "x")
    assert m.from_addr == oracle.lower() == addr
    assert addresses(m.sender) == [addr]


def test_network_edges_use_the_real_addresses(tmp_path):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([msg(frm="=?utf-8?Q?ceo=40bank.com?= <attacker@evil.org>",
                              to="=?utf-8?Q?a=3Cb=40c.d=3E?= <real@x.org>")]))
    with Session.create(tmp_path / "p") as s:
        s.ingest([src], workers=0)
    con = sqlite3.connect(tmp_path / "p" / "project.sqlite")
    assert con.execute("SELECT sender, recipient, kind, count FROM edges").fetchall() == \
        [("attacker@evil.org", "real@x.org", "to", 1)]
    assert con.execute("SELECT sender, from_addr FROM messages").fetchall() == \
        [('"ceo@bank.com" <attacker@evil.org>', "attacker@evil.org")]
