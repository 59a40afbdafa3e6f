"""Exact expectations for the sensitivity cue counts (engine/classify/cues.py)."""
import math
import re

from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.classify.cues import CUE_KINDS, CUE_NAMES, CUE_PATTERNS, cue_counts, cue_features


def test_each_family_counts_whole_words_only():
    text = ("Privileged and CONFIDENTIAL: our attorney says the litigation may settle. "
            "Hello Mom, my son is sick; the hospital called. "
            "Her resume and résumé came in; we are hiring. This is ridiculous!! Really?!")
    assert cue_counts(text) == {"legal": 3, "secrecy": 1, "personal": 2, "employment": 3, "health": 2, "emotion": 1}
    # words that merely start like a cue are not cues
    assert cue_counts("hello moment sonic sadness hellish courtesy dadaist legalese") == dict.fromkeys(CUE_KINDS, 0)
    # stems marked \w* do cover their derivations
    assert cue_counts("litigate litigators confidentiality frustrating promotion")["legal"] == 2
    assert cue_counts("confidentiality")["secrecy"] == 1
    assert cue_counts("frustrating")["emotion"] == 1
    assert cue_counts("promotion")["employment"] == 1
    assert cue_counts("Do NOT forward this; internal use only")["secrecy"] == 2


def test_cue_features_exact():
    f = cue_features("Confidential: resume", "I am so frustrated!! ?! and the lawyer and the court")
    assert set(f) == set(CUE_NAMES) and len(CUE_NAMES) == 2 * len(CUE_KINDS) + 1
    assert f["secrecy_subject"] == 1.0 and f["employment_subject"] == 1.0 and f["legal_subject"] == 0.0
    assert f["emotion_body"] == math.log1p(1)
    assert f["legal_body"] == math.log1p(2)
    assert f["exclaim"] == math.log1p(2)
    assert f["secrecy_body"] == 0.0 and f["health_subject"] == 0.0


def _oracle(text: str) -> dict[str, int]:
    """Brute force: at each position, the first family whose pattern matches a whole word there
    (the combined regex tries families in order), then skip past the match."""
    pats = [(k, re.compile(rf"\b(?:{p})\b", re.I)) for k, p in CUE_PATTERNS.items()]
    out, i = dict.fromkeys(CUE_KINDS, 0), 0
    while i <= len(text):
        for k, rx in pats:
            m = rx.match(text, i)
            if m and m.end() > m.start():
                out[k] += 1
                i = m.end()
                break
        else:
            i += 1
    return out


WORDS = ["attorney", "secret", "son", "job", "sick", "hate", "hello", "moment", "the", "do not forward", "Legal",
         "SORRY", "hiring", "court", "courtesy", "x", "!!", "?!", ",", " "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=30), st.sampled_from([" ", "", ",", "\n"]))
def test_counts_equal_a_brute_force_scan(words, sep):
    text = sep.join(words)
    assert cue_counts(text) == _oracle(text)
