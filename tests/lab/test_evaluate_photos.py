"""Tests for the photo evaluation's figures (scorer.lab.evaluate_photos)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.lab.evaluate_photos import (
    Reader,
    SceneResult,
    evaluate_scene,
    format_report,
    summarise,
    wrong_total,
)
from scorer.lab.matching import best_rotation_matches
from scorer.lab.synth import demo_board, make_scene
from scorer.read.classify import BoardPrediction
from scorer.rules.kingdom import ALL_CELLS, EMPTY, Kingdom


def _result(seed: int, found: bool, square_px: float, correct: int) -> SceneResult:
    return SceneResult(
        seed=seed,
        background="wood",
        board="1",
        found=found,
        corner_error=0.01 if found else 0.5,
        shape_ok=found,
        cells=25,
        cells_correct=correct if found else 0,
        cells_correct_true_corners=correct,
        cells_placed_correct=correct if found else correct // 2,
        square_px=square_px,
    )


def test_summary_splits_the_figures_by_square_size() -> None:
    results = [
        _result(1, True, 30.0, 20),
        _result(2, False, 35.0, 24),
        _result(3, True, 60.0, 25),
        _result(4, True, 120.0, 24),
    ]
    summary = summarise(results)
    bands = summary["by_square_size"]
    assert list(bands) == ["under 40 px", "40–80 px", "80 px and over"]
    assert bands["under 40 px"] == {
        "kingdoms": 2,
        "found_pct": 50.0,
        "end_to_end_pct": 40.0,
        "placed_pct": 64.0,  # the kingdom missed keeps the squares read at their place
        "true_corners_pct": 88.0,
    }
    assert bands["40–80 px"]["end_to_end_pct"] == 100.0
    assert bands["80 px and over"]["true_corners_pct"] == 96.0
    assert summary["found_pct"] == 75.0
    assert summary["end_to_end_cell_accuracy_pct"] == 69.0
    assert summary["end_to_end_placed_cell_accuracy_pct"] == 81.0


def test_report_table_lists_each_size_band() -> None:
    summary = summarise([_result(1, True, 30.0, 25), _result(2, True, 90.0, 20)])
    summary.update(
        classifier="held out", original_board_accuracy=99.0, seconds=1.0, by_background={}
    )
    text = format_report(
        {"synthetic": summary, "real_photos": {"found_7x7": "0/0", "photos": {}}, "notes": []}
    )
    assert "| under 40 px | 1 | 100.0% | 100.0% | 100.0% | 100.0% |" in text
    assert "| 80 px and over | 1 | 100.0% | 80.0% | 80.0% | 80.0% |" in text
    assert "each square at its place in the photo: 90.0%" in text


def test_summary_counts_the_wrong_squares_flagged_in_found_kingdoms() -> None:
    results = [_result(1, True, 60.0, 20), _result(2, True, 60.0, 25), _result(3, False, 60.0, 0)]
    results[0].cells_flagged, results[0].wrong_flagged = 6, 4
    results[1].cells_flagged = 2
    summary = summarise(results)
    assert summary["found_kingdoms_flagged_pct"] == 16.0  # 8 of 50 squares read
    assert summary["found_kingdoms_wrong_flagged_pct"] == 80.0  # 4 of 5 wrong squares
    assert summarise([_result(1, True, 60.0, 25)])["found_kingdoms_wrong_flagged_pct"] is None


def test_summary_counts_the_right_totals_left_for_the_player_to_confirm() -> None:
    results = [_result(k, k != 4, 60.0, 25) for k in range(5)]
    results[0].right_unconfirmed = True  # right, but the verdict withholds it
    results[1].total_wrong = True  # wrong: neither right nor unconfirmed-right
    results[2].right_unconfirmed = True
    summary = summarise(results)
    assert summary["found_kingdoms_right_unconfirmed"] == 2
    summary.update(
        classifier="held out", original_board_accuracy=99.0, seconds=1.0, by_background={}
    )
    text = format_report(
        {"synthetic": summary, "real_photos": {"found_7x7": "0/0", "photos": {}}, "notes": []}
    )
    assert "right but left for the player to confirm (the price of the caution): 2" in text


class TruthModel:
    """A stand-in classifier that gives the squares of a whole board a kingdom's labels, in
    the order they are cut (any other set of squares reads as empty)."""

    def __init__(self, kingdom: Kingdom) -> None:
        self.tokens = [cell for _, cell in kingdom.cells()]

    def predict_cell_proba(self, crops: list[np.ndarray]) -> np.ndarray:
        proba = np.full((len(crops), len(ALL_CELLS)), 1e-3)
        for i in range(len(crops)):
            cell = self.tokens[i] if len(crops) == len(self.tokens) else EMPTY
            proba[i, ALL_CELLS.index(cell)] = 1.0
        return proba / proba.sum(axis=1, keepdims=True)


def test_a_scene_is_read_as_the_pipeline_reads_it() -> None:
    scene = make_scene(2, [demo_board(0)], n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    reader = Reader(TruthModel(truth.kingdom))
    (result,) = evaluate_scene(scene, reader)
    assert result.found and result.shape_ok
    assert result.cells == 25
    # The stand-in ignores the pixels, so any board reads the same after decoding
    # (which makes the demo board's squares fit the tile set).
    decoded = reader.board(np.zeros((500, 500, 3), np.uint8), (5, 5)).kingdom
    expected = best_rotation_matches(decoded, truth.kingdom)
    assert expected >= 20
    assert result.cells_correct == result.cells_correct_true_corners == expected
    assert result.cells_placed_correct == expected


def _read(grid: str, doubtful: frozenset[tuple[int, int]] = frozenset()) -> BoardPrediction:
    kingdom = Kingdom.parse(grid)
    ones = np.ones(kingdom.shape)
    return BoardPrediction(kingdom, ones, ones[..., None], tuple(ALL_CELLS[:1]), doubtful)


# The truth "F1 F0 C / W0 W0 ." scores 2 (forest: 2 squares × 1 crown; wheat: 2 × 0).
@pytest.mark.parametrize(
    ("read", "doubtful", "shape_ok", "wrong", "flagged", "expected"),
    [
        ("F1 F0 C\nW0 W0 .", frozenset(), True, 0, 0, (False, False)),  # all right: 2
        ("F1 F1 C\nW0 W0 .", frozenset(), True, 1, 0, (True, True)),  # 2 × 2 = 4, no flag
        ("F0 F0 C\nW0 W0 .", frozenset({(0, 0)}), True, 1, 1, (True, False)),  # 0, flagged
        ("F0 F0 C\nW0 W0 .", frozenset(), True, 1, 0, (True, True)),  # 0, nothing flagged
        ("F0 F0 C\nW0 W0 .", frozenset({(1, 0)}), True, 1, 0, (True, True)),  # flag elsewhere
        ("F0 C", frozenset(), False, 0, 0, (True, True)),  # wrong grid, no flag: 0
        ("F0 C", frozenset({(0, 0)}), False, 0, 0, (True, False)),  # wrong grid, a flag
    ],
)
def test_wrong_total_is_silent_unless_the_wrong_squares_are_flagged(
    read: str,
    doubtful: frozenset[tuple[int, int]],
    shape_ok: bool,
    wrong: int,
    flagged: int,
    expected: tuple[bool, bool],
) -> None:
    truth = Kingdom.parse("F1 F0 C\nW0 W0 .")
    result = SceneResult(0, "wood", "b", True, 0.0, shape_ok, cells=6, wrong_flagged=flagged)
    assert wrong_total(_read(read, doubtful), truth, wrong, result) == expected


@pytest.mark.parametrize(
    ("read", "doubtful", "expected"),
    [
        ("F1 F0 C\nW0 W0 .", frozenset(), (False, False)),  # right and confirmed: 2
        ("F0 F0 C\nW0 W0 .", frozenset({(0, 0)}), (True, True)),  # 0, flagged, yet confirmed
    ],
)
def test_a_wrong_total_shown_as_confirmed_is_silent_whatever_is_flagged(
    read: str, doubtful: frozenset[tuple[int, int]], expected: tuple[bool, bool]
) -> None:
    truth = Kingdom.parse("F1 F0 C\nW0 W0 .")
    result = SceneResult(0, "wood", "b", True, 0.0, True, cells=6, wrong_flagged=len(doubtful))
    read_kingdom = _read(read, doubtful)
    assert wrong_total(read_kingdom, truth, len(doubtful), result, confirmed=True) == expected
