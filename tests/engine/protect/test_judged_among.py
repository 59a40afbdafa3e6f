"""The candidates' judged-sensitive set (read by primary-key lookups) is exactly the
persona's judged-sensitive set (read in full) restricted to the candidates."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.protect.search import judged_sensitive, judged_sensitive_among
from sasc_desktop.engine.session import Session

DOCS = [f"d{i}" for i in range(30)]
judgment = st.tuples(st.sampled_from(["p", "q", "p'x"]), st.sampled_from(["", "t1", "t2", "zz", "a'b"]),
                     st.sampled_from(DOCS), st.integers(0, 3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(judgment, max_size=80), st.lists(st.sampled_from(DOCS + ["nope"]), max_size=40),
       st.sampled_from(["p", "q", "p'x", "nobody"]))
def test_among_equals_full_set_restricted(tmp_path_factory, judgments, candidates, persona):
    root = tmp_path_factory.mktemp("among") / "proj"
    with Session.create(root) as s:
        J.save_sensitivity(s.store, judgments)
        want = judged_sensitive(s, persona) & set(candidates)
        assert judged_sensitive_among(s, persona, candidates) == want
        assert judged_sensitive_among(s, persona, []) == set()


def test_many_candidates_are_chunked(tmp_path):
    with Session.create(tmp_path / "proj") as s:
        docs = [f"x{i}" for i in range(1300)]
        J.save_sensitivity(s.store, [("p", "t" if i % 2 else "", d, i % 3) for i, d in enumerate(docs)])
        assert judged_sensitive_among(s, "p", docs + docs[:5]) == judged_sensitive(s, "p")
        assert len(judged_sensitive(s, "p")) == sum(1 for i in range(1300) if i % 3)
