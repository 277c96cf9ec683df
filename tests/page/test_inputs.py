"""The page's inputs away from the browser: typed grids, the sample photo, the rules line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.page.common import problem_for
from scorer.page.inputs import parse_grids, sample_photo
from scorer.page.ranking import rules_line
from scorer.rules.errors import BoardNotFoundError
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import Rules, TieBreakOrder


def test_typed_grids_split_at_blank_lines_and_count_lines_from_the_top() -> None:
    text = "F1 F0\nF0 C\n\n\nM2 C\nX1 S0\n\nW0 C"
    kingdoms, problems = parse_grids(text)
    assert [(k.key, k.source) for k in kingdoms] == [
        ("typed-1", "typed grid 1"),
        ("typed-3", "typed grid 3"),
    ]
    assert kingdoms[0].kingdom == Kingdom.parse("F1 F0\nF0 C")
    assert [p.message for p in problems] == [
        "Typed grid 2 (line 6, square 1, 'X1'): unknown terrain letter 'X'."
    ]
    assert problems[0].hint.startswith("Fix that square")


def test_blank_text_has_no_kingdoms_and_no_problems() -> None:
    assert parse_grids(" \n\n") == ([], [])


def test_sample_photo_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    photo = tmp_path / "board.jpg"
    photo.write_bytes(b"not really a photo")
    monkeypatch.setenv("KINGDOMINO_SAMPLE", str(photo))
    sample = sample_photo()
    assert sample is not None and sample.sample
    assert (sample.name, sample.data) == ("board.jpg (sample)", b"not really a photo")
    monkeypatch.setenv("KINGDOMINO_SAMPLE", "")
    assert sample_photo() is None
    monkeypatch.setenv("KINGDOMINO_SAMPLE", str(tmp_path / "missing.jpg"))
    assert sample_photo() is None


def test_rules_line_names_the_house_rule_and_the_automatic_size() -> None:
    line = rules_line(Rules(middle_kingdom=True, tiebreak=TieBreakOrder.CROWNS_FIRST))
    assert line.startswith("Rules: grid size from each kingdom (5×5, or 7×7 for Mighty Duel)")
    assert "Harmony off · Middle Kingdom on · house rule" in line


def test_a_board_not_found_offers_the_corners() -> None:
    problem = problem_for(BoardNotFoundError("no kingdom-sized area of tiles found"))
    assert problem.kind == "BoardNotFoundError" and problem.corners_help
    assert problem.message == "No kingdom-sized area of tiles found" and problem.hint
