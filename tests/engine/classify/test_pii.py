"""Exact expectations for every PII detector, including the negatives."""
import random

import pytest
from hypothesis import example, given, settings, strategies as st

from sasc_desktop.engine.classify.pii import (IBAN_LENGTHS, PiiHit, aba_valid, detect_pii, find_bank_accounts,
                                              find_dates_of_birth, find_ibans, find_national_ids, find_payment_cards,
                                              find_phones, find_street_addresses, iban_valid, luhn_valid)


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


@given(st.integers(min_value=10 ** 14, max_value=10 ** 15 - 1))
def test_a_card_matches_iff_luhn_valid(n):
    number = "4" + str(n)
    found = find_payment_cards(f"x {number} y")
    assert bool(found) == luhn_valid(number)


# ------------------------------------------------------------------------------ reviewed defects
def test_ibans_followed_by_a_word_or_year_lowercase_and_dashed():
    cases = {
        "IBAN BE68 5390 0754 7034 BIC GKCCBEBB": [("iban", 5, 24, "BE68 5390 0754 7034")],
        "IBAN: BE68539007547034 EUR": [("iban", 6, 22, "BE68539007547034")],
        "IBAN: ES91 2100 0418 4502 0005 1332 BIC: CAIXESBBXXX": [("iban", 6, 35, "ES91 2100 0418 4502 0005 1332")],
        "IBAN: gb82 west 1234 5698 7654 32": [("iban", 6, 33, "gb82 west 1234 5698 7654 32")],
        "IBAN DE89-3704-0044-0532-0130-00": [("iban", 5, 32, "DE89-3704-0044-0532-0130-00")],
        "IBAN: DE89 3704 0044 0532 0130 00 2019": [("iban", 6, 33, "DE89 3704 0044 0532 0130 00")],
        "BE68 5390 0754 7034 GB82 WEST 1234 5698 7654 32": [("iban", 0, 19, "BE68 5390 0754 7034"),
                                                            ("iban", 20, 47, "GB82 WEST 1234 5698 7654 32")],
    }
    for text, expected in cases.items():
        assert spans(find_ibans(text)) == expected, text
        assert spans(detect_pii(text)) == expected, text
    for text in ["IBAN GB82 WEST 1234 5698 7654 33",      # bad checksum
                 "IBAN BE68539007547034EUR",              # the country's length ends inside a word
                 "IBAN DE89 3704 0044 0532 0130 001",     # ... inside a group
                 "XX82 WEST 1234 5698 7654 32",           # no such country
                 "DE89 3704 0044 0532 0130"]:             # too short for DE (22)
        assert find_ibans(text) == [] and detect_pii(text) == [], text
    assert not iban_valid("gb82 wıst 1234 5698 7654 32")    # "ı".upper() == "I": not an IBAN letter


def test_number_runs_are_not_cards_phones_or_ssns():
    for text in ['Modeline "800x600" 36 800 824 896 1024 600', "Scores: 57 47 70 21 33 23 45 24",
                 "Volumes 100 200 300 45 6789 10", "page 212 555 1234 5678", "ip 212.555.1234.123",
                 "version 2.212.555.1234", "4111 1111 1111 1111 2019", "pi 0.4111111111111111",
                 "SSN 123 45 6789 2019", "1999 123-45-6789.5"]:
        assert detect_pii(text) == [], text
    # a neighbour across another separator, a word beginning with digits, an expiry date
    cases = {
        "PA 19104 215-828-5000": [("phone", 9, 21, "215-828-5000")],
        "Toll Free 1-866-522-8575 24hrs.": [("phone", 10, 24, "1-866-522-8575")],
        "(1-800-725-2161 24 hrs)": [("phone", 1, 15, "1-800-725-2161")],
        "SSN 123-45-6789 01/02/1970": [("national_id", 4, 15, "123-45-6789")],
        "SSN 123 45 6789 24hrs": [("national_id", 4, 15, "123 45 6789")],
        "card 4111 1111 1111 1111 12/25 ok": [("payment_card", 5, 24, "4111 1111 1111 1111")],
        "4111111111111111 2019": [("payment_card", 0, 16, "4111111111111111")],
        "4111-1111-1111-1111 2019": [("payment_card", 0, 19, "4111-1111-1111-1111")],
    }
    for text, expected in cases.items():
        assert spans(detect_pii(text)) == expected, text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 9999), min_size=2, max_size=9), st.sampled_from([" ", ".", "-"]))
@example([4900, 2552, 6999, 19, 0], " ")    # a Luhn-valid 4-4-4-2 "card" with a 1-digit group after it
@example([19, 4111, 1111, 1111, 1111], " ")  # a card after a 2-digit group ("Qty 2 4111 ...")
@example([4111, 1111, 1111, 1111, 12], " ")  # and before one ("... 1111 12 25", its expiry)
def test_a_hit_in_a_run_of_numbers_spans_the_whole_run(numbers, sep):
    """A hit on part of a run would have a digit group next to it across its own separator;
    only dialling prefixes may stand before a dashed phone ("x 0-200-200-1000 y"), and a spaced
    card may stand beside groups of other lengths than 4 (its short last group only at the end)."""
    run = sep.join(str(n) for n in numbers)
    text = f"x {run} y"
    hits = detect_pii(text)
    for h in hits:
        if sep == "-" and h.kind == "phone":
            assert h.end == 2 + len(run) and text[h.start - 1] in " -", (text, h)
        elif sep == " " and h.kind == "payment_card":
            before, after = text[2:h.start].split(), text[h.end:2 + len(run)].split()
            cards = {(c.start, c.end) for c in hits if c.kind == "payment_card"}
            if before and not any(e == h.start - 1 for _, e in cards):
                assert len(before[-1]) != 4, (text, h)
            if after and not any(b == h.end + 1 for b, _ in cards):
                assert len(after[0]) != 4 and len(h.text.split()[-1]) >= 4, (text, h)
        else:
            assert (h.start, h.end) == (2, 2 + len(run)), (text, h)


def test_dates_of_birth_in_words_and_any_case():
    cases = {
        "date of birth: march 3, 1970": [("date_of_birth", 15, 28, "march 3, 1970")],
        "born 3-Mar-1970": [("date_of_birth", 5, 15, "3-Mar-1970")],
        "born 3-mar-70": [("date_of_birth", 5, 13, "3-mar-70")],
        "born on the 3rd of March 1970": [("date_of_birth", 12, 29, "3rd of March 1970")],
        "born on March third, 1970": [("date_of_birth", 8, 25, "March third, 1970")],
        "born on the twenty-first of June, 1970": [("date_of_birth", 12, 38, "twenty-first of June, 1970")],
        "BIRTHDAY JUNE 21ST, 1970": [("date_of_birth", 9, 24, "JUNE 21ST, 1970")],
    }
    for text, expected in cases.items():
        assert spans(find_dates_of_birth(text)) == expected, text
        assert spans(detect_pii(text)) == expected, text
    for text in ["Meeting on March 3, 1970", "born in Marseille 1970", "born March 1970"]:
        assert detect_pii(text) == [], text


def test_mastercard_2_series_and_unspaced_plus_1():
    assert spans(detect_pii("MC 2223 0000 4841 0010 and 2223 0000 4841 0011")) == [
        ("payment_card", 3, 22, "2223 0000 4841 0010")]             # the second fails Luhn
    assert spans(detect_pii("MC 2720 9900 0000 0007")) == [("payment_card", 3, 22, "2720 9900 0000 0007")]
    # Luhn-valid, but 2220 and 2721 are outside 2221-2720, and 2-series cards have 16 digits
    for number in ["2220000000000000", "2721000000000004", "2800000000000008", "222100000000000009"]:
        assert luhn_valid(number) and find_payment_cards(f"card {number}") == [], number
    assert spans(detect_pii("call +12125550100.")) == [("phone", 5, 17, "+12125550100")]
    assert spans(detect_pii("call +441234567890")) == [("phone", 5, 18, "+441234567890")]
    assert detect_pii("call +10125550100") == [] and detect_pii("call 12125550100") == []


def test_digits_of_other_scripts_are_not_pii_digits():
    """The detectors match ASCII digits only (re.ASCII): the pre-filters, which count ASCII
    digits and look for ASCII keywords, and the detectors agree."""
    from sasc_desktop.engine.classify.pii import DETECTORS
    for text in ["SSN ١٢٣-٤٥-٦٧٨٩", "SSN １２３-４５-６７８９", "١٢ Main Street", "+44 ٢٠ ٧٩٤٦ ٠٩٥٨",
                 "Bırthday: 03/15/1970", "bİrthday 03/15/1970", "card ４１１１１１１１１１１１１１１１",
                 "routıng 021000021", "ROUTİNG 021000021"]:
        assert detect_pii(text) == [], text
        assert all(f(text) == [] for f in DETECTORS.values()), text
    # the same in ASCII (positive controls); a neighbouring Arabic-Indic digit is not a digit
    assert spans(detect_pii("SSN ٣123-45-6789٣")) == [("national_id", 5, 16, "123-45-6789")]
    assert spans(detect_pii("Birthday: 03/15/1970")) == [("date_of_birth", 10, 20, "03/15/1970")]


def test_bank_accounts_do_not_take_in_trailing_numbers():
    cases = {
        "paid from account 12345678 2 times": [("bank_account", 18, 26, "12345678")],
        "account no. 12345678 - 2001 invoice": [("bank_account", 12, 20, "12345678")],
        "account number: 1234-5678-90 today": [("bank_account", 16, 28, "1234-5678-90")],
        "A/C NO: 8209 9802 0003 158 thanks": [("bank_account", 8, 26, "8209 9802 0003 158")],
        "acct#12345678": [("bank_account", 5, 13, "12345678")],
    }
    for text, expected in cases.items():
        assert spans(find_bank_accounts(text)) == expected, text
        assert spans(detect_pii(text)) == expected, text
    for text in ["account 2001-05-14", "account 2001 report 123456", "accounting 12345678", "account 12 34 56 78"]:
        assert find_bank_accounts(text) == [], text


# ------------------------------------------------------------------------------ second review
def test_real_phones_cards_and_ssns_next_to_other_numbers():
    """Only a neighbour of the same shape across the run's own separator makes a table; a
    phone with "(" or a leading "+" has no neighbour rule; a dashed phone may follow a dialling
    prefix; a spaced card may stand next to any group but one of exactly 4 digits (unless that
    group starts or ends another valid card), and no group may follow its short last group."""
    cases = {
        "Philadelphia, PA 19104 (215) 828-5000": [("phone", 23, 37, "(215) 828-5000")],
        "Philadelphia, PA 19104 +1 215 828 5000": [("phone", 23, 38, "+1 215 828 5000")],
        "Houston, TX 77002 (713) 853-5620": [("phone", 18, 32, "(713) 853-5620")],
        "Houston, TX 77002 713 853 5620": [("phone", 18, 30, "713 853 5620")],          # a 5-digit neighbour
        "EB 3880 (713) 853-5620": [("phone", 8, 22, "(713) 853-5620")],
        "2001-05-14 (503) 555-0123": [("phone", 11, 25, "(503) 555-0123")],
        "2001-05-14 503 555 0123": [("phone", 11, 23, "503 555 0123")],                # "14" ends a date
        "Fax: (713) 646-3490 713 646 3491": [("phone", 5, 19, "(713) 646-3490"), ("phone", 20, 32, "713 646 3491")],
        # lost by the first fix on the real corpora (Enron 1/122671; spamassassin spam-2/00849,
        # 00164, 00673, spam-1/00159)
        "Dow Jones Newswires; 44-207-842-9259; ": [("phone", 24, 36, "207-842-9259")],
        "Heredia, CR&nbsp; =\n011-506-267-7139</font>": [("phone", 24, 36, "506-267-7139")],
        "(Toll Free US)\n+001 407 323 1668 International": [("phone", 20, 32, "407 323 1668")],
        "call us at 1-800-866-667-5399, or": [("phone", 17, 29, "866-667-5399")],
        "fax your order to1-415-873-2700 ": [("phone", 19, 31, "415-873-2700")],
        "$25 4111 1111 1111 1111": [("payment_card", 4, 23, "4111 1111 1111 1111")],
        "paid 25 4111 1111 1111 1111": [("payment_card", 8, 27, "4111 1111 1111 1111")],
        "Qty 2 4111 1111 1111 1111 exp 12/25": [("payment_card", 6, 25, "4111 1111 1111 1111")],
        "card 4111 1111 1111 1111 12 25": [("payment_card", 5, 24, "4111 1111 1111 1111")],
        "Amex 3782 822463 10005 12 25": [("payment_card", 5, 22, "3782 822463 10005")],
        "Diners 3056 930902 5904 12 25": [("payment_card", 7, 23, "3056 930902 5904")],
        "4900 2552 6999 19 0": [],                      # Luhn-valid 4-4-4-2, then another group
        "4900 2552 6999 19": [("payment_card", 0, 17, "4900 2552 6999 19")],
        "Visa 4111 1111 1111 1111 5500 0000 0000 0004": [("payment_card", 5, 24, "4111 1111 1111 1111"),
                                                         ("payment_card", 25, 44, "5500 0000 0000 0004")],
        "TX 77002 123 45 6789": [("national_id", 9, 20, "123 45 6789")],
        "SSN 123 45 6789 01/02/1970": [("national_id", 4, 15, "123 45 6789")],
    }
    for text, expected in cases.items():
        assert spans(detect_pii(text)) == expected, text
    # the first review's runs stay rejected, and other runs of one shape
    for text in ['Modeline "800x600" 36 800 824 896 1024 600 601 603 625', "Scores: 57 47 70 21 33 23 45 24",
                 "Volumes 100 200 300 45 6789 10", "page 212 555 1234 5678", "ip 212.555.1234.123",
                 "version 2.212.555.1234", "4111 1111 1111 1111 2019", "2019 4111 1111 1111 1111",
                 "1234 4111 1111 1111 1111", "4111 1111 1111 1111 1234 5678", "Room 12 503 555 0123",
                 "call me at 503 555 0123 2 times", "age 45 123 45 6789", "SSN 123 45 6789 12",
                 "SSN 123 45 6789.5", "4111 1111 1111 1111.5", "v 2.503.555.0123"]:
        assert detect_pii(text) == [], text


def _iban(country: str, bban: str) -> str:
    """An IBAN with the right check digits, computed here from ISO 13616's definition."""
    check = 98 - int("".join(str(int(c, 36)) for c in bban + country + "00")) % 97
    return f"{country}{check:02d}{bban}"


def test_an_iban_is_never_a_card_ssn_or_account_it_contains():
    assert spans(detect_pii("IBAN: BE61821107065877")) == [("iban", 6, 22, "BE61821107065877")]   # was a card
    assert spans(detect_pii("IBAN AT33 5515 7527 7472 7345")) == [("iban", 5, 29, "AT33 5515 7527 7472 7345")]
    rng = random.Random(2)
    for country, length in sorted(IBAN_LENGTHS.items()):
        for _ in range(25):
            iban = _iban(country, "".join(rng.choice("0123456789") for _ in range(length - 4)))
            spaced = " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
            assert spans(detect_pii(f"IBAN: {iban}")) == [("iban", 6, 6 + len(iban), iban)], iban
            assert spans(detect_pii(f"IBAN {spaced} ok")) == [("iban", 5, 5 + len(spaced), spaced)], spaced
    # digits glued to letters are not a card or an SSN, also where no IBAN passes
    assert luhn_valid("4111111111111111") and detect_pii("ref BE4111111111111111") == []
    assert detect_pii("part AB123-45-6789") == [] and detect_pii("cpe3439333139383434.cpe.net") == []


def test_iban_lengths_registry():
    """SWIFT's examples for the countries registered most recently, Honduras among them."""
    for example in ["BI4210000100010000332045181", "DJ2100010000000154000100186", "FK88SC123456789012",
                    "HN88CABF00000000000250005469", "MN121234123456789123", "NI45BAPR00000013000003558124",
                    "OM810180000001299123456", "RU0304452522540817810538091310419", "SO211000001001000100141",
                    "YE15CBYE0001018861234567891234"]:
        assert IBAN_LENGTHS[example[:2]] == len(example)
        assert spans(detect_pii(f"IBAN {example} BIC")) == [("iban", 5, 5 + len(example), example)]
    assert len(IBAN_LENGTHS) == 89 and IBAN_LENGTHS["HN"] == 28


def test_bank_accounts_exclude_dates_and_phone_numbers():
    cases = {
        "account: 713 853 5620": [("phone", 9, 21, "713 853 5620")],
        "account 713-853-5620": [("phone", 8, 20, "713-853-5620")],
        "account 1-713-853-5620": [("phone", 8, 22, "1-713-853-5620")],
        # the keyword names the number: an account number in a phone's shape
        "account no. 713 853 5620": [("bank_account", 12, 24, "713 853 5620")],
        "acct # 713-853-5620": [("bank_account", 7, 19, "713-853-5620")],
        "Account Number: 713-853-5620": [("bank_account", 16, 28, "713-853-5620")],
        "account 7138535620": [("bank_account", 8, 18, "7138535620")],
        "account 12-34-56 ok": [("bank_account", 8, 16, "12-34-56")],      # not a date: 34 is no month or day
    }
    for text, expected in cases.items():
        assert spans(detect_pii(text)) == expected, text
    for text in ["account 05-14-2001", "account 14-05-2001", "account no. 2001-5-14", "acct 12-31-99"]:
        assert detect_pii(text) == [] and find_bank_accounts(text) == [], text


# ------------------------------------------------------------------------------ offsets property
# Real PII pieces with their hits (kind, start, end) inside the piece, and pieces that must give none.
PIECES: list[tuple[str, list[tuple[str, int, int]]]] = [
    ("4111 1111 1111 1111", [("payment_card", 0, 19)]),
    ("5500-0000-0000-0004", [("payment_card", 0, 19)]),
    ("378282246310005", [("payment_card", 0, 15)]),
    ("2223 0000 4841 0010", [("payment_card", 0, 19)]),
    ("SSN 123-45-6789", [("national_id", 4, 15)]),
    ("078 05 1120", [("national_id", 0, 11)]),
    ("(503) 555-0123", [("phone", 0, 14)]),
    ("+44 20 7946 0958", [("phone", 0, 16)]),
    ("+12125550100", [("phone", 0, 12)]),
    ("1-866-522-8575", [("phone", 0, 14)]),
    ("GB82 WEST 1234 5698 7654 32", [("iban", 0, 27)]),
    ("iban be68 5390 0754 7034", [("iban", 5, 24)]),
    ("DE89-3704-0044-0532-0130-00", [("iban", 0, 27)]),
    ("routing 021000021", [("bank_account", 8, 17)]),
    ("account no. 12345678", [("bank_account", 12, 20)]),
    ("born on 03/15/1962", [("date_of_birth", 8, 18)]),
    ("date of birth: march 3, 1970", [("date_of_birth", 15, 28)]),
    ("born on the 3rd of March 1970", [("date_of_birth", 12, 29)]),
    ("DOB: Jan 5, 1970", [("date_of_birth", 5, 16)]),
    ("221 Baker St", [("street_address", 0, 12)]),
    ("350 5th Ave, Suite 3300, New York, NY 10118", [("street_address", 0, 43)]),
    ("4111 1111 1111 1112", []),            # Luhn-invalid
    ("4111111111111112", []),
    ("GB82 WEST 1234 5698 7654 33", []),    # bad IBAN checksum
    ("57 47 70 21 33 23 45 24", []),        # a run of numbers
    ("212.555.1234.123", []),
    ("100 200 300 45 6789 10", []),
    ("routing 021000022", []),              # bad ABA checksum
    ("666-12-3456", []),                    # never-issued SSN area
    ("SSN ١٢٣-٤٥-٦٧٨٩", []),
    ("Bırthday: 03/15/1970", []),
    # second review
    ("Visa 4111 1111 1111 1111 5500 0000 0000 0004", [("payment_card", 5, 24), ("payment_card", 25, 44)]),
    ("EB 3880 (713) 853-5620", [("phone", 8, 22)]),
    ("44-207-842-9259", [("phone", 3, 15)]),
    ("IBAN: BE61821107065877", [("iban", 6, 22)]),
    ("HN88CABF00000000000250005469", [("iban", 0, 28)]),
    ("account: 713 853 5620", [("phone", 9, 21)]),
    ("account 05-14-2001", []),
    ("page 212 555 1234 5678", []),
]
# Padding: no ASCII letter or digit, and at least one character that is neither a space nor a
# separator, so no piece can join its neighbour.
_PAD_CHARS = ["é", "ü", "中", "🙂", "👩\u200d💻", "\r\n", "\n", " ", "\t", "—", "١", "٣", "７", "İ", "ı", "ß", ";", "|",
              "\u0301", "«", "»", "\u00a0"]
_BLOCKERS = ["é", "中", "🙂", "—", "٣", "７", "İ", "ı", ";", "|", "«"]


@pytest.mark.parametrize("piece,expected", PIECES)
def test_each_piece_alone(piece, expected):
    assert spans(detect_pii(piece)) == [(k, s, e, piece[s:e]) for k, s, e in expected]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(len(PIECES))),
                          st.lists(st.sampled_from(_PAD_CHARS), max_size=4),
                          st.sampled_from(_BLOCKERS),
                          st.lists(st.sampled_from(_PAD_CHARS), max_size=4)), max_size=10),
       st.lists(st.sampled_from(_PAD_CHARS), max_size=3))
def test_offsets_point_at_the_pieces_placed(placed, lead):
    text, expected = "".join(lead), []
    for i, pad_a, blocker, pad_b in placed:
        piece, hits = PIECES[i]
        expected += [(k, len(text) + s, len(text) + e, piece[s:e]) for k, s, e in hits]
        text += piece + "".join(pad_a) + blocker + "".join(pad_b)
    got = detect_pii(text, "body")
    assert spans(got) == expected
    for h in got:
        assert text[h.start:h.end] == h.text and h.field == "body"
