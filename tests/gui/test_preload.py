"""Opening a project with personas imports the classifier's libraries in the background, so the
first opened message's evidence line does not wait ~1.7 s for scikit-learn. Checked in a fresh
interpreter (this test process has long imported them)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from test_train_action import build

SCRIPT = textwrap.dedent("""
    import sys
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from sasc_desktop.gui.config import AppState
    from sasc_desktop.gui.mainwindow import MainWindow
    w = MainWindow(AppState())
    loaded = []
    w.project_loaded.connect(loaded.append)
    print("before", "sklearn" in sys.modules)
    w.open_project(sys.argv[1])
    while not loaded:
        app.processEvents()
    w._preload.join(120)
    print("after", "sklearn.linear_model" in sys.modules, w._preload.name)
    w.worker.wait(30_000)
""")


def test_opening_a_project_with_personas_preloads_the_classifier(tmp_path):
    root = build(tmp_path, n=20)["root"]
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(root)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["before False", "after True preload-classifier"]
