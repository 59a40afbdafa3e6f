"""Subject, the key column, stays in view in a narrow results pane: at 800 x 600 the fixed
columns (Rank, Score, Sensitivity, Date: 340 px of a 407 px pane) left it entirely off-screen.
In a narrow pane the Date loses its time, Sensitivity is titled "Sens." and Score goes, step by
step, as far as needed; at 1280 x 800 everything is as it was."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.models import COLUMNS, DATE, SCORE, SENS

from gui_support import open_project, pump, search, wait_idle, wait_until
from test_train_action import build

SHOTS = Path("/tmp/s7/gui_fix")
LEAST_SUBJECT = 120   # px of Subject in view
LEAST_FROM = 60       # px of From in view


def _visible(table, col) -> int:
    header = table.horizontalHeader()
    if table.isColumnHidden(col):
        return 0
    left = header.sectionViewportPosition(col)
    right = left + header.sectionSize(col)
    return max(0, min(right, table.viewport().width()) - max(left, 0))


def _trained(tmp_path) -> Path:
    from sasc_desktop.engine.classify import train
    root = build(tmp_path)["root"]
    with Session.open(root) as s:
        train(s, "holly-palmer")
    return root


def test_subject_and_from_stay_in_view_in_a_narrow_window(qtbot, window, tmp_path):
    open_project(qtbot, window, _trained(tmp_path))
    search(qtbot, window, "topic")
    panel = window.search_panel
    table, model = panel.table, panel.model
    assert not table.isColumnHidden(SENS)            # a model: the Sensitivity column is there
    for w, h in ((800, 600), (1024, 700), (1280, 800)):
        window.resize(w, h)
        pump(150)
        shown = {COLUMNS[c]: _visible(table, c) for c in range(len(COLUMNS))}
        assert shown["Subject"] >= LEAST_SUBJECT, f"{w}x{h}: {shown}"
        assert shown["From"] >= LEAST_FROM, f"{w}x{h}: {shown}"
        header = table.horizontalHeader()
        widths = [header.sectionSize(c) for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
        assert sum(widths) <= table.viewport().width(), f"{w}x{h}: a column scrolled out of view"
        assert shown["Rank"] > 0 and shown["Sensitivity"] > 0 and shown["Date"] > 0
        if SHOTS.is_dir():
            window.grab().save(str(SHOTS / f"results_{w}x{h}.png"))
    # at the default size, the columns are as they were: Score, "Sensitivity", the date with its time
    date = model.index(0, DATE).data()
    assert not table.isColumnHidden(SCORE) and model.headerData(SENS, Qt.Orientation.Horizontal) == "Sensitivity"
    assert len(date) == 16 and date[10] == " "
    window.resize(800, 600)
    pump(150)
    date = model.index(0, DATE).data()
    assert len(date) == 10 and date in model.index(0, DATE).data(Qt.ItemDataRole.ToolTipRole)   # the whole of it in the tooltip
    assert table.isColumnHidden(SCORE) and model.headerData(SENS, Qt.Orientation.Horizontal) == "Sens."


def _sens_fits(panel) -> None:
    table, header = panel.table, panel.table.horizontalHeader()
    shown = {COLUMNS[c]: _visible(table, c) for c in range(len(COLUMNS))}
    assert panel.model.headerData(SENS, Qt.Orientation.Horizontal) == "Sens."
    assert header.sectionSize(SENS) == panel._narrow[SENS], shown      # ~65 px, not the 94 px of "Sensitivity"
    assert shown["Subject"] >= LEAST_SUBJECT, shown
    assert shown["From"] >= LEAST_FROM, shown


def test_sensitivity_narrowed_when_the_window_is_narrow_before_the_first_search(qtbot, window, tmp_path):
    # The app started in a 800 x 600 window: the level is already "Sens." before Sensitivity is
    # shown; the first search with a model showed it at its full width (Subject 91 px).
    window.resize(800, 600)
    pump(150)
    open_project(qtbot, window, _trained(tmp_path))
    assert window.search_panel.table.isColumnHidden(SENS)
    search(qtbot, window, "topic")
    pump(150)
    assert not window.search_panel.table.isColumnHidden(SENS)
    _sens_fits(window.search_panel)


def test_sensitivity_narrowed_when_a_persona_is_chosen_in_a_narrow_window(qtbot, window, tmp_path):
    from sasc_desktop.engine.classify import train
    root = build(tmp_path, active=None)["root"]
    with Session.open(root) as s:
        train(s, "holly-palmer")
    open_project(qtbot, window, root)
    search(qtbot, window, "topic")
    panel = window.search_panel
    assert panel.table.isColumnHidden(SENS)          # no persona: no Sensitivity
    window.resize(800, 600)
    pump(150)
    assert panel.narrow_level == 3
    window.save_preferences({"active_persona": "holly-palmer"})
    wait_until(lambda: not panel.table.isColumnHidden(SENS), 60, "the Sensitivity column")
    wait_idle(qtbot, window)
    pump(150)
    _sens_fits(panel)
