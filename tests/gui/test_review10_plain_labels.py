"""Labels that show what the user typed, or what came from mail or files, show it as written
(review 10, real project, offscreen). The Preferences error quotes the domain typed: with Qt's
AutoText, typing '<img src="/some/local.png">' and pressing OK showed that local image in the
dialog. Now it is plain text; and every label left to Qt's guess (AutoText) in the window and its
dialogs shows a fixed text from the code."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QLabel

from gui_support import open_prefs, open_project, pump, wait_idle

GREEN = QColor(0, 255, 0)


def _green_pixels(widget) -> int:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return sum(1 for y in range(0, image.height(), 2) for x in range(0, image.width(), 2)
               if image.pixelColor(x, y) == GREEN)



def test_a_domain_typed_as_markup_is_shown_as_written(qtbot, window, project, tmp_path):
    picture = tmp_path / "local.png"
    image = QImage(120, 120, QImage.Format.Format_RGB32)
    image.fill(GREEN)
    assert image.save(str(picture))
    open_project(qtbot, window, project)
    dlg = open_prefs(qtbot, window)
    typed = f'<img src="{picture}">'
    dlg.domains.setText(typed)
    dlg.accept()                                   # OK: refused, the reason quotes what was typed
    wait_idle(qtbot, window)
    pump(50)
    assert dlg.isVisible() and dlg.error.isVisible()
    assert typed in dlg.error.text()
    assert _green_pixels(dlg) == 0                 # was: the 120 x 120 green picture, in the dialog
    assert dlg.error.textFormat() == Qt.TextFormat.PlainText
    assert dlg.error.height() >= dlg.error.heightForWidth(dlg.error.width())   # all of the reason in view
    dlg.reject()
    window.close()


FIXED_AUTO_TEXT = {"", "Active persona:", "Internal domains:", "&Threshold chosen for:", "&Model:", "&Folds:"}


def test_no_label_leaves_text_from_outside_to_qts_guess(qtbot, window, project):
    open_project(qtbot, window, project)
    dlg = open_prefs(qtbot, window)
    window.show_import()
    window.show_quality()
    window.help_action.trigger()
    pump(50)
    tops = (window, dlg, window.import_dialog, window.quality_dialog)
    guessed = {(type(top).__name__, label.objectName(), label.text())
               for top in tops for label in top.findChildren(QLabel)
               if label.textFormat() == Qt.TextFormat.AutoText}
    # The preferences' error and note, the shortcuts panel, the quality dialog's progress step and
    # sentence were left to Qt's guess: now only form titles written in the code are.
    assert {text for _, _, text in guessed} <= FIXED_AUTO_TEXT, guessed
    for name in ("preferencesError", "qualityStep", "qualitySentence", "personaLabel", "jobLabel",
                 "messageLabel", "collectionLabel"):
        labels = [label for top in tops for label in top.findChildren(QLabel, name)]
        assert labels and all(label.textFormat() == Qt.TextFormat.PlainText for label in labels), name
    window.help_action.trigger()
    dlg.reject()
    window.import_dialog.close()
    window.quality_dialog.close()
    window.close()
