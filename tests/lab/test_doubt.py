"""The count of flags and false alarms (scorer.lab.doubt), on readings made up by hand."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from scorer.lab.doubt import _count, _turned_to
from scorer.rules.kingdom import Kingdom


def test_a_reading_is_turned_to_its_truth_with_its_flags() -> None:
    truth = Kingdom.parse("F1 C\nW0 L1")
    read = truth.rotate()
    turned = _turned_to(read, truth, frozenset({(0, 0)}))
    assert turned is not None
    kingdom, flags = turned
    assert kingdom == truth
    assert flags.sum() == 1
    assert _turned_to(Kingdom.parse("F1 C"), truth, frozenset()) is None


def test_flags_on_squares_read_right_are_false_alarms() -> None:
    truth = Kingdom.parse("F1 C\nW0 L1")
    read = Kingdom.parse("F1 C\nW0 L0")  # the lake's crown missed
    found = SimpleNamespace(
        kingdom=read,
        doubtful=frozenset({(0, 1), (1, 1)}),  # the castle (right) and the lake (wrong)
        confirmed=False,
        reasons=("3 squares are doubtful",),
    )
    tally: Counter[str] = Counter()
    _count(tally, found, truth)
    assert tally["flags"] == 2 and tally["false alarms"] == 1
    assert tally["castle flags"] == 1 and tally["castle false alarms"] == 1
    assert tally["flags on squares read wrong"] == 1
    assert tally["total wrong"] == 1 and tally["total wrong but confirmed"] == 0
    assert tally["reason: 3 squares are doubtful"] == 1
