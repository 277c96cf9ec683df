"""Tests for the reasons a square cannot be read (scorer.read.hidden)."""

from __future__ import annotations

import pytest

from scorer.i18n import using
from scorer.read.hidden import Cause, Unreadable


@pytest.mark.parametrize(
    ("cause", "reason"),
    [
        (Cause.GLARE, "glare hides row 3 column 2"),
        (Cause.CUT_OFF, "the photo's edge cuts off row 3 column 2"),
        (
            Cause.HIDDEN,
            "row 3 column 2 reads as empty inside the kingdom: something may hide it",
        ),
        (
            Cause.COVERED,
            "something covers row 3 column 2: it reads as empty but does not look like the table",
        ),
    ],
)
def test_each_cause_names_the_square_as_a_player_counts(cause: Cause, reason: str) -> None:
    assert Unreadable((2, 1), cause).reason == reason


def test_a_reason_without_a_translation_stays_whole_in_any_language() -> None:
    with using("de"):
        text = Unreadable((0, 4), Cause.GLARE).reason
    assert "1" in text and "5" in text
