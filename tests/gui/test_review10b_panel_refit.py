"""The docked F1 panel is fitted again when the panes' content changes, not only on F1, a
resize or a move (review 10b; real projects with trained models, one read-only, offscreen). At
1024 x 640 the panel docked beside one project; a read-only project opened next put its notice
bar above the panes, its results got a Sensitivity column (a wider least width) and its messages
taller sensitivity lines: the results fell to 416 px < their least 421 and the sensitivity line
lost 3 px, with the panel still docked. Now opening a project, the notice bar shown or hidden, a
search's results and a message shown refit the panel: docked where a width fits (the results at
their least, the message's header and sensitivity line whole, every shortcut), else floating."""
from __future__ import annotations

from sasc_desktop.engine.session import Session

from gui_support import open_doc, open_project, pump, search
from test_review10_read_only import read_only   # noqa: F401  (the fixture)
from test_train_action import build


def _trained(tmp, n=90):
    from sasc_desktop.engine.classify import train
    root = build(tmp, n=n)["root"]
    with Session.open(root) as s:
        train(s, "holly-palmer")
    return root


def _fits(window, when) -> None:
    panel = window.shortcuts_panel
    assert panel.isVisible(), when
    sp, doc = window.search_panel, window.doc_view
    assert sp.width() >= sp.least_width(), (when, sp.width(), sp.least_width(), panel.isFloating())
    sens = doc.sensitivity
    if sens.isVisible():
        assert sens.height() >= sens.heightForWidth(sens.width()), (when, sens.height(), panel.isFloating())
    assert doc.header.height() >= doc.header.heightForWidth(doc.header.width()), when
    text = panel.widget()
    assert text.height() >= text.heightForWidth(text.width()), when


def test_the_docked_panel_is_refitted_when_the_content_changes(qtbot, window, tmp_path, read_only):  # noqa: F811
    writable = build(tmp_path / "w")["root"]          # no model: no Sensitivity column
    locked = _trained(tmp_path / "ro")
    read_only(locked)
    window.resize(1024, 640)
    pump(100)
    open_project(qtbot, window, writable)
    window.help_action.trigger()                       # F1: docked (it fits)
    pump(150)
    panel = window.shortcuts_panel
    assert not panel.isFloating()
    _fits(window, "F1")

    open_project(qtbot, window, locked)                # the notice bar takes its height
    pump(50)
    assert window.notice_bar.isVisible()
    _fits(window, "read-only project opened")
    search(qtbot, window, "topic")                     # a Sensitivity column: the results need more
    pump(50)
    _fits(window, "results")
    for i in range(8):
        open_doc(qtbot, window, window.search_panel.model.hits[i].doc_id)
        pump(50)
        _fits(window, f"message {i}")
    window.notice_bar.close_button.click()             # the bar dismissed: its room back
    pump(50)
    _fits(window, "notice bar hidden")
    window.help_action.trigger()
    pump(50)
    assert not panel.isVisible()
