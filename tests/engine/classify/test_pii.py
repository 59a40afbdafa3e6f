"""Exact expectations for every PII detector, including the negatives."""
import pytest
from hypothesis import given, strategies as st

from sasc_desktop.engine.classify.pii import (PiiHit, aba_valid, detect_pii, find_bank_accounts, find_dates_of_birth,
                                              find_ibans, find_national_ids, find_payment_cards, find_phones,
                                              find_street_addresses, iban_valid, luhn_valid)


def spans(hits):
    return [(h.kind, h.start, h.end, h.text) for h in hits]


def test_luhn():
    assert luhn_valid("4111 1111 1111 1111")
    assert luhn_valid("79927398713")
    assert not luhn_valid("4111 1111 1111 1112")
    assert not luhn_valid("79927398710")


def test_payment_cards_luhn_valid_only():
    text = "Visa 4111 1111 1111 1111, order 4111-1111-1111-1112, amex 3782 822463 10005."
    assert spans(find_payment_cards(text)) == [
        ("payment_card", 5, 24, "4111 1111 1111 1111"), ("payment_card", 58, 75, "3782 822463 10005")]


def test_luhn_invalid_number_never_matches():
    assert find_payment_cards("tracking 4111111111111112 and 1234567890123456") == []
    assert detect_pii("ref 4111111111111112") == []


def test_card_needs_plausible_prefix_and_no_glued_digits():
    assert find_payment_cards("0000000000000000") == []
    assert find_payment_cards("94111111111111111") == []  # 17 digits starting with 9


def test_ssn_with_invalid_areas_excluded():
    text = "SSN 123-45-6789; 000-12-3456 666-12-3456 912-34-5678 123-00-4567 123-45-0000; 078 05 1120"
    assert spans(find_national_ids(text)) == [("national_id", 4, 15, "123-45-6789"),
                                              ("national_id", 78, 89, "078 05 1120")]


def test_ssn_separators_must_agree():
    assert find_national_ids("123-45 6789") == []


def test_iban_mod97():
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert iban_valid("DE89370400440532013000")
    assert not iban_valid("GB82 WEST 1234 5698 7654 33")
    text = "pay to DE89 3704 0044 0532 0130 00 not GB82 WEST 1234 5698 7654 33."
    assert spans(find_ibans(text)) == [("iban", 7, 34, "DE89 3704 0044 0532 0130 00")]


def test_bank_account_and_routing():
    assert aba_valid("021000021") and not aba_valid("021000022")
    text = "Routing 021000021, account no. 123456789, routing 021000022."
    assert spans(find_bank_accounts(text)) == [("bank_account", 8, 17, "021000021"),
                                               ("bank_account", 31, 40, "123456789")]
    assert find_bank_accounts("account 12345") == []  # too short


def test_phones():
    text = "Call (503) 555-0123 or 617.555.0199 or +44 20 7946 0958; not 555-1234 or 123-456-7890."
    assert spans(find_phones(text)) == [("phone", 5, 19, "(503) 555-0123"), ("phone", 23, 35, "617.555.0199"),
                                        ("phone", 39, 55, "+44 20 7946 0958")]


def test_dates_of_birth_need_a_cue():
    text = "She was born on 03/14/1962. DOB: March 5, 1961. Birthday 1990-07-04. Meeting on 04/05/2001."
    assert spans(find_dates_of_birth(text)) == [("date_of_birth", 16, 26, "03/14/1962"),
                                                ("date_of_birth", 33, 46, "March 5, 1961"),
                                                ("date_of_birth", 57, 67, "1990-07-04")]


def test_street_addresses():
    text = "I live at 1234 SE Cedar Hollow Ave, Portland, OR 97215 and work at 10 Downing Street. Room 5 Main."
    assert spans(find_street_addresses(text)) == [
        ("street_address", 10, 54, "1234 SE Cedar Hollow Ave, Portland, OR 97215"),
        ("street_address", 67, 84, "10 Downing Street")]


def test_detect_pii_orders_and_resolves_overlaps():
    text = "card 4111111111111111 phone (503) 555-0123"
    hits = detect_pii(text, "body")
    assert hits == [PiiHit("payment_card", 5, 21, "4111111111111111", "body"),
                    PiiHit("phone", 28, 42, "(503) 555-0123", "body")]
    assert hits[0].to_json() == {"kind": "payment_card", "start": 5, "end": 21, "text": "4111111111111111",
                                 "field": "body"}
    with pytest.raises(Exception):
        hits[0].kind = "x"  # frozen


@given(st.text(max_size=300))
def test_offsets_always_point_at_the_text(text):
    for h in detect_pii(text):
        assert text[h.start:h.end] == h.text


@given(st.integers(min_value=10 ** 14, max_value=10 ** 15 - 1))
def test_a_card_matches_iff_luhn_valid(n):
    number = "4" + str(n)
    found = find_payment_cards(f"x {number} y")
    assert bool(found) == luhn_valid(number)
