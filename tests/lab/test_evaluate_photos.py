"""Tests for the photo evaluation's figures (scorer.lab.evaluate_photos)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.lab.evaluate_photos import (
    Reader,
    SceneResult,
    _rotation_matches,
    best_rotation_matches,
    corner_error,
    evaluate_scene,
    format_report,
    match_kingdoms,
    placed_matches,
    summarise,
    wrong_total,
)
from scorer.lab.synth import SceneKingdom, demo_board, make_scene
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


TRUTH_5 = Kingdom.parse(
    "W0 W1 F0 F1 L0\nL1 G0 G1 S0 S1\nM0 M1 C G2 S2\nL0 G2 S2 M2 M3\nW0 F0 L0 G0 S0"
)
SIDE = 100.0


def _square(x0: float, y0: float, w: float, h: float) -> np.ndarray:
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], float)


def test_a_kingdom_read_right_has_every_square_at_its_place() -> None:
    corners = _square(10, 20, SIDE, SIDE)
    assert placed_matches([(BoardLocation(corners, (5, 5)), TRUTH_5)], corners, TRUTH_5) == 25


def test_a_kingdom_read_a_row_short_keeps_the_squares_it_read() -> None:
    corners = _square(0, 0, SIDE, SIDE)
    short = Kingdom.from_cells([list(TRUTH_5.rows[r]) for r in range(4)])
    read = [(BoardLocation(_square(0, 0, SIDE, 0.8 * SIDE), (4, 5)), short)]
    assert placed_matches(read, corners, TRUTH_5) == 20


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_grid_read_from_another_corner_matches_by_place(turns: int) -> None:
    corners = _square(0, 0, SIDE, SIDE)
    read_corners, read = corners.copy(), TRUTH_5
    for _ in range(turns):  # the same squares, their grid started from the next corner
        read = read.rotate()
        read_corners = np.roll(read_corners, 1, axis=0)  # row 0 now runs up the left side
    assert placed_matches([(BoardLocation(read_corners, (5, 5)), read)], corners, TRUTH_5) == 25


def test_a_grid_one_square_off_loses_the_squares_it_misplaces() -> None:
    corners = _square(0, 0, SIDE, SIDE)
    shifted = _square(SIDE / 5, 0, SIDE, SIDE)  # the same labels, one column to the right
    placed = placed_matches([(BoardLocation(shifted, (5, 5)), TRUTH_5)], corners, TRUTH_5)
    # Only squares equal to their left neighbour stay right; the first column is unread.
    expected = sum(TRUTH_5[r, c] == TRUTH_5[r, c - 1] for r in range(5) for c in range(1, 5))
    assert placed == expected < 25


def test_an_empty_square_under_no_kingdom_read_counts_as_read_empty() -> None:
    truth = Kingdom.parse("W0 .\nC F0")
    corners = _square(0, 0, 40, 40)
    assert placed_matches([], corners, truth) == 1


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_corner_error_ignores_where_the_corner_list_starts(shift: int) -> None:
    truth = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    found = np.roll(truth, shift, axis=0) + 1.0
    assert corner_error(found, truth) == pytest.approx(np.sqrt(2))


def _truth(x0: float) -> SceneKingdom:
    return SceneKingdom(_square(x0, 0, SIDE, SIDE), TRUTH_5, f"at {x0}")


def _found(x0: float) -> BoardLocation:
    return BoardLocation(_square(x0, 0, SIDE, SIDE), (5, 5))


def test_one_kingdom_found_is_matched_to_one_true_kingdom_only() -> None:
    # Two true kingdoms close together and one kingdom found between them: the nearest
    # found kingdom of each is the same one, but it is only one of them.
    match = match_kingdoms([_found(2)], [_truth(0), _truth(4)])
    assert match == [(0, pytest.approx(0.02)), (None, np.inf)]


def test_kingdoms_are_paired_for_the_least_total_error_not_each_to_its_nearest() -> None:
    # Each true kingdom's nearest is the first found one (0.02 from both); matching
    # each to its nearest would pair it twice and leave the second unused. The least
    # total error pairs the first true kingdom with the second found one instead.
    truths = [_truth(0), _truth(4)]
    found = [_found(2), _found(-3)]
    errors = [[corner_error(f.corners, t.corners) / SIDE for f in found] for t in truths]
    assert [int(np.argmin(row)) for row in errors] == [0, 0]  # nearest for each: the same
    match = match_kingdoms(found, truths)
    assert [index for index, _ in match] == [1, 0]
    assert [error for _, error in match] == pytest.approx([0.03, 0.02])


def test_no_kingdom_found_matches_none() -> None:
    assert match_kingdoms([], [_truth(0)]) == [(None, np.inf)]
    assert match_kingdoms([_found(0)], []) == []


def test_summary_counts_the_wrong_squares_flagged_in_found_kingdoms() -> None:
    results = [_result(1, True, 60.0, 20), _result(2, True, 60.0, 25), _result(3, False, 60.0, 0)]
    results[0].cells_flagged, results[0].wrong_flagged = 6, 4
    results[1].cells_flagged = 2
    summary = summarise(results)
    assert summary["found_kingdoms_flagged_pct"] == 16.0  # 8 of 50 squares read
    assert summary["found_kingdoms_wrong_flagged_pct"] == 80.0  # 4 of 5 wrong squares
    assert summarise([_result(1, True, 60.0, 25)])["found_kingdoms_wrong_flagged_pct"] is None


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_flags_follow_the_best_rotation(turns: int) -> None:
    truth = Kingdom.parse("W0 F0 L0\nG0 C S0\nM0 W1 F1")
    read = Kingdom.parse("W0 F0 L0\nG0 C S0\nM0 W0 F0")  # two crowns missed
    doubtful = {(2, 1)}  # one of them flagged
    for _ in range(turns):  # the same reading, photographed turned
        read = read.rotate()
        doubtful = {(c, read.height - 1 - r) for r, c in doubtful}
    assert _rotation_matches(read, truth, frozenset(doubtful)) == (7, 1)


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
