"""Reviewed input checks and failures of sensitivity classification, on real projects (real
mail files, real SQLite): each is a clear error (exit 2 from the CLI), raised before any work."""
import json

import numpy as np
import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import cross_validate, import_judgments
from sasc_desktop.engine.classify.api import check_seed
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session


def _project(tmp_path, n: int = 12) -> Session:
    """n messages, every third one judged sensitive for persona p1."""
    folder = tmp_path / "mail"
    folder.mkdir()
    lines = []
    for i in range(n):
        text = "confidential settlement terms" if i % 3 == 0 else "lunch menu for friday"
        (folder / f"{i:03d}.eml").write_text(f"Message-ID: <m{i}@corp.com>\nDate: Mon, 5 Mar 2001 10:00:00 -0800\n"
                                             f"From: ann@corp.com\nTo: carl@corp.com\nSubject: note {i}\n\n{text}\n")
        lines.append(f"p1 m{i}@corp.com {int(i % 3 == 0)}")
    (tmp_path / "sens.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "personas.json").write_text(json.dumps([{"id": "p1", "name": "Persona One"}]))
    s = Session.create(tmp_path / "proj")
    s.ingest([folder], workers=1)
    import_judgments(s, sensitivity_path=tmp_path / "sens.txt", personas_path=tmp_path / "personas.json")
    return s


# ------------------------------------------------------------------------------ cross-validation seed
@pytest.mark.parametrize("seed", ["-1", "99999999999", str(2 ** 32)])
def test_a_seed_numpy_cannot_take_is_a_clear_error(tmp_path, capsys, seed):
    s = _project(tmp_path, n=12)
    root = str(s.root)
    with pytest.raises(InputError, match=rf"^the cross-validation seed must be between 0 and 4294967295, got {seed}$"):
        cross_validate(s, "p1", folds=2, seed=int(seed))
    s.close()
    assert sasc(["classify", "cv", root, "--persona", "p1", "--seed", seed]) == 2
    captured = capsys.readouterr()
    assert captured.err.endswith(f"the cross-validation seed must be between 0 and 4294967295, got {seed}\n")
    assert "Traceback" not in captured.err


def test_seeds_numpy_takes_are_taken():
    assert [check_seed(v) for v in (0, 7, 2 ** 32 - 1, np.int64(5))] == [0, 7, 4294967295, 5]
    for bad in (True, 1.5, "3", None):
        with pytest.raises(InputError, match="the cross-validation seed must be a whole number, got "):
            check_seed(bad)
