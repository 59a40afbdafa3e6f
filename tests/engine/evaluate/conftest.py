"""Fixtures for the experiment tests: a small real demo project (150 messages, built once per
test session) and copies of it whose grades are zeroed on some topics."""
from __future__ import annotations

import shutil

import pytest

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session


@pytest.fixture(scope="session")
def exp_project(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("exp") / "proj", n_messages=150, train=False)


def _copy_with_grades_zeroed(src, dst, zeroed):
    """A copy of the project whose topics for which ``zeroed(topic)`` holds have every grade 0
    (nothing relevant: with cost 0 and nothing to gain, nCS-DCG is undefined there)."""
    shutil.copytree(src, dst)
    with Session.open(dst) as s:
        q = J.qrels(s.store)
        J.save_qrels(s.store, [(t, d, 0) for t, docs in q.items() if zeroed(t) for d in docs])
    return dst


@pytest.fixture(scope="session")
def half_project(exp_project, tmp_path_factory):
    """Topics 19 and above have nothing relevant."""
    return _copy_with_grades_zeroed(exp_project, tmp_path_factory.mktemp("half") / "proj", lambda t: int(t) > 18)


@pytest.fixture(scope="session")
def zero_project(exp_project, tmp_path_factory):
    """No topic has anything relevant."""
    return _copy_with_grades_zeroed(exp_project, tmp_path_factory.mktemp("zero") / "proj", lambda t: True)


@pytest.fixture
def run_spy(monkeypatch):
    """Records whether Session.run_experiment was called (it still runs for real)."""
    calls = []
    real = Session.run_experiment

    def spy(self, *args, **kwargs):
        calls.append(args)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(Session, "run_experiment", spy)
    return calls
