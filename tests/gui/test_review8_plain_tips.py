"""Text from mail or from files is shown as written, never read as HTML. Qt guesses whether a
tooltip (or a label without a set format) is HTML: a subject '<img src="file:///.../secret.png">
quarterly report' showed that local file in the results table's tooltip (a named pipe there froze
the window), and a persona name with markup was rendered in the status bar. Real project, real
tooltip shown and grabbed."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage
from PySide6.QtWidgets import QApplication

from sasc_desktop.engine.project.judgments import save_personas
from sasc_desktop.engine.session import Session
from sasc_desktop.gui.models import FROM, SUBJECT

from gui_support import open_project, pump, search


def _red_pixels(image: QImage) -> int:
    return sum(image.pixelColor(x, y) == QColor(255, 0, 0) for x in range(image.width()) for y in range(image.height()))


def test_subject_and_sender_tooltips_and_persona_name_are_plain_text(qtbot, window, tmp_path):
    secret = tmp_path / "secret.png"
    red = QImage(80, 40, QImage.Format.Format_RGB32)
    red.fill(QColor(255, 0, 0))
    assert red.save(str(secret))
    img = f'<img src="file://{secret}">'
    (tmp_path / "in.mbox").write_text(
        "From a@x Thu Mar  1 09:00:00 2001\n"
        f'From: "{img}" <mallory@example.com>\nTo: john@example.com\n'
        f"Subject: {img} quarterly report\nDate: Mon, 05 Jul 2021 10:00:00 -0700\n"
        "Message-ID: <tip1@example.com>\n\nQuarterly report.\n\n")
    with Session.create(tmp_path / "proj") as s:
        s.ingest([tmp_path / "in.mbox"], workers=0)
        save_personas(s.store, [{"id": "p", "name": f"<b>{img}</b>Eve"}])
        s.update_settings(active_persona="p")
    window.resize(1200, 800)
    open_project(qtbot, window, tmp_path / "proj")
    search(qtbot, window, "quarterly")
    table = window.search_panel.table
    model = table.model()
    subject_tip = model.index(0, SUBJECT).data(Qt.ItemDataRole.ToolTipRole)
    assert subject_tip == (f"<p style='white-space:pre-wrap'>&lt;img src=&quot;file://{secret}&quot;&gt; "
                           "quarterly report</p>")
    assert "&lt;img" in model.index(0, FROM).data(Qt.ItemDataRole.ToolTipRole)
    # the tooltip as Qt shows it: the subject's text, not the image (3,200 red pixels before)
    index = model.index(0, SUBJECT)
    pos = table.visualRect(index).center()
    QApplication.sendEvent(table.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos, table.viewport().mapToGlobal(pos)))
    pump(300)
    tips = [w for w in QApplication.topLevelWidgets() if w.objectName() == "qtooltip_label" and w.isVisible()]
    assert len(tips) == 1 and "quarterly report" in tips[0].text()
    assert _red_pixels(tips[0].grab().toImage()) == 0
    # the persona's name in the status bar: its markup shown as written
    label = window.persona_label
    assert label.text() == f"Persona: <b>{img}</b>Eve" and label.textFormat() == Qt.TextFormat.PlainText
    assert _red_pixels(label.grab().toImage()) == 0
    window.close()
