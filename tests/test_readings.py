"""The values of each extracted text, found once and kept (audits.readings)."""
from __future__ import annotations

import pickle

from audits import readings as R
from facts.match import TextIndex

TEXT = ("Re: change fees\u2014Main cabin on Voyager is $75 per change (was $99 until March 4, 2026).\n"
        "Refunds take 5 to 7 business days; at most 2 free bags, 23 kg each. A 15% discount applies.\n"
        "| Cabin | Fee |\n| Main | $80 |\n")


def _same(a: TextIndex, b: TextIndex) -> None:
    assert (a.text, a.low, a.spans) == (b.text, b.low, b.spans)


def test_index_from_kept_values_is_the_index_from_the_text(tmp_path):
    plain = TextIndex(TEXT, currency="USD")
    assert plain.spans, "the sample holds values"
    _same(R.text_index(TEXT, "USD"), plain)              # no cache: found here
    _same(R.text_index(TEXT, "USD", tmp_path), plain)    # found and stored
    stored = list(tmp_path.rglob("*.pkl"))
    assert len(stored) == 1
    _same(R.text_index(TEXT, "USD", tmp_path), plain)    # loaded
    assert list(tmp_path.rglob("*.pkl")) == stored and not list(tmp_path.rglob("*.tmp"))


def test_kept_values_are_what_is_loaded(tmp_path):
    """A load really comes from the file: what is stored there is what the index gets."""
    R.found_in(TEXT, "USD", tmp_path)
    (path,) = tmp_path.rglob("*.pkl")
    found = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps(found[:1]))
    assert len(R.text_index(TEXT, "USD", tmp_path).spans) == 1


def test_key_follows_text_currency_and_scanner_code(monkeypatch):
    k = R.values_key(TEXT, "USD")
    assert R.values_key(TEXT + " ", "USD") != k
    assert R.values_key(TEXT, "EUR") != k
    monkeypatch.setattr(R, "_fingerprint", lambda: "another scanner")
    assert R.values_key(TEXT, "USD") != k


def test_scanner_fingerprint_covers_the_value_scanner():
    from transforms.fingerprint import module_closure

    assert {"facts.match", "facts.values"} <= set(module_closure("facts.match"))


def test_unreadable_kept_values_are_found_again(tmp_path):
    R.found_in(TEXT, "USD", tmp_path)
    (path,) = tmp_path.rglob("*.pkl")
    path.write_bytes(b"not a pickle")
    _same(R.text_index(TEXT, "USD", tmp_path), TextIndex(TEXT, currency="USD"))
