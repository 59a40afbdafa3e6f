"""Menus a keyboard user can drive: every mnemonic (the underlined letter, Alt+letter or the
letter in an open menu) is unique within its menu, so a letter never lands on the wrong item."""
from __future__ import annotations

from collections import Counter

from PySide6.QtWidgets import QMenu


def mnemonic(text: str) -> str | None:
    """The letter after a single "&" ("&&" is a literal ampersand), lower case; None if none."""
    i = 0
    while i < len(text) - 1:
        if text[i] == "&":
            if text[i + 1] != "&":
                return text[i + 1].lower()
            i += 2
            continue
        i += 1
    return None


def menus(window):
    """(title, [action texts]) for the menu bar and every menu and submenu in it."""
    def walk(menu: QMenu, title: str):
        yield title, [a.text() for a in menu.actions() if not a.isSeparator()]
        for a in menu.actions():
            if a.menu():
                a.menu().aboutToShow.emit()  # (a submenu filled when shown: Open recent)
                yield from walk(a.menu(), f"{title} ▸ {a.text()}")
    yield "menu bar", [a.text() for a in window.menuBar().actions()]
    for top in window.menuBar().actions():
        if top.menu():
            top.menu().aboutToShow.emit()
            yield from walk(top.menu(), top.text())


def test_the_mnemonic_reader():
    assert mnemonic("Keyboard &shortcuts") == "s"
    assert mnemonic("&Query syntax") == "q"
    assert mnemonic("Salt && &pepper") == "p"
    assert mnemonic("/tmp/a&&b") is None and mnemonic("plain") is None


def test_every_mnemonic_is_unique_within_its_menu(window, tmp_path):
    # a recent project whose path has an "&" in it: shown as it is, no mnemonic made of it
    window.state.project_opened(tmp_path / "Smith & Jones")
    window.state.project_opened(tmp_path / "R&D")
    seen = dict(menus(window))
    assert "&Help" in seen and len(seen) >= 5            # menu bar, File, Open recent, Tools, Help
    for title, texts in seen.items():
        letters = Counter(m for m in map(mnemonic, texts) if m)
        clashes = {letter: [t for t in texts if mnemonic(t) == letter] for letter, n in letters.items() if n > 1}
        assert not clashes, f"{title}: the same mnemonic on {clashes}"
    assert mnemonic(next(t for t in seen["&Help"] if "syntax" in t)) != mnemonic(
        next(t for t in seen["&Help"] if "shortcuts" in t))
    recent = next(texts for title, texts in seen.items() if "recent" in title)
    assert [t.replace("&&", "&") for t in recent] == [str(tmp_path / "R&D"), str(tmp_path / "Smith & Jones")]
