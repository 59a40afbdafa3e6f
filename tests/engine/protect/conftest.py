"""A small real demo project (200 messages) with its sensitivity model and the linear rankers of
the approaches these tests search with, built once; tests that change a project work on a copy."""
from __future__ import annotations

import shutil

import pytest

DEMO_PERSONA = "john-snibert"
DEMO_APPROACHES = ("relevance", "postfilter", "joint_postfilter")


@pytest.fixture(scope="session")
def demo200(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    from sasc_desktop.engine.session import Session
    root = build_demo_project(tmp_path_factory.mktemp("demo200") / "proj", n_messages=200, train=False)
    with Session.open(root) as s:
        for approach in DEMO_APPROACHES:
            s.train_protection(DEMO_PERSONA, approach, ranker="linear", depth=60)
    return root


@pytest.fixture
def demo_copy(demo200, tmp_path):
    """A copy of the demo project, for a test that adds mail or judgments."""
    root = tmp_path / "proj"
    shutil.copytree(demo200, root)
    return root
