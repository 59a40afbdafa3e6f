import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "ingest"))


@pytest.fixture(scope="session")
def oracle(tmp_path_factory):
    """A real project of random mail (oracle_corpus.MAILS) and, for each message, what a
    brute-force scan knows of it (oracle_corpus.Doc): shared by the oracle tests."""
    from oracle_corpus import build
    session, docs = build(tmp_path_factory.mktemp("oracle"))
    yield session, docs
    session.close()
