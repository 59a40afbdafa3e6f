"""The floating F1 panel stays on the screen (review 10b; a real project, offscreen). With the
window moved partly off the screen's right edge, the panel went "over the window's right edge",
which was off the screen too: entirely out of sight. Now its rectangle, frame and all, is kept
within the screen's available geometry, wherever the window is. (The offscreen platform's
screen, 800 x 600 unless configured; the reviewer's case was a 1920 x 1080 screen with the
window at x = 1500, which the same clamp covers.)"""
from __future__ import annotations

import pytest

from sasc_desktop.gui.help import PANEL_WIDTH

from gui_support import open_project, pump


@pytest.mark.parametrize("where", ["right", "left", "below"])
def test_the_floating_panel_is_on_the_screen_wherever_the_window_is(qtbot, window, project, where):
    window.resize(800, 600)
    pump(100)
    open_project(qtbot, window, project)
    screen = window.screen().availableGeometry()
    at = {"right": (screen.right() - 400, screen.top() + 20),          # half the window beyond the right edge
          "left": (screen.left() - 500, screen.top() + 20),            # most of it beyond the left edge
          "below": (screen.left() + 20, screen.bottom() - 200)}[where]   # most of it below the bottom
    window.move(*at)
    pump(100)
    window.help_action.trigger()                      # F1
    pump(150)
    panel = window.shortcuts_panel
    assert panel.isVisible() and panel.isFloating()
    outer = panel.frameGeometry()
    assert screen.contains(outer), (where, screen.getRect(), outer.getRect(), window.frameGeometry().getRect())
    assert panel.width() == PANEL_WIDTH
    window.move(at[0] + 30, at[1])                     # the window moved with the panel open: still on the screen
    pump(150)
    assert screen.contains(panel.frameGeometry()), (where, panel.frameGeometry().getRect())
