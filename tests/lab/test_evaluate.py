"""Tests for scorer.lab.evaluate: the figures and the report (not the full cross-validation)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.lab import evaluate, evaluate_photos
from scorer.rules.kingdom import ALL_CELLS, Kingdom


def test_accuracies_split_terrain_and_crowns() -> None:
    result = evaluate._accuracies(["W0", "W1", "C", "M2"], ["W0", "W0", "C", "S2"])
    assert result == {"both": 0.5, "terrain": 0.75, "crowns": 0.75}


def test_aau_figures_count_boards_and_mistakes() -> None:
    truth = Kingdom.parse("W1 W0\nC F0")
    tokens = [c.token for c in ALL_CELLS]
    proba = np.full((4, len(tokens)), 0.001)
    for i, token in enumerate(["W1", "W0", "C", "L0"]):
        proba[i, tokens.index(token)] = 1.0
    proba[3, tokens.index("L0")] = 0.6  # the wrong square is a close call: flagged
    proba[3, tokens.index("F0")] = 0.4
    board = evaluate.datasets.Board("b", np.zeros((2, 2, 3), np.uint8), truth, "g")
    figures = evaluate._aau_figures([board], proba)
    assert figures["decoded"]["both"] == 0.75
    assert figures["boards_exact_grid"] == 0.0
    assert figures["boards_exact_score"] == 1.0  # both score 2: the wrong square has no crown
    assert figures["mistakes"] == ["board b (1, 1): F0→L0"]
    assert figures["flagged"] == 0.25
    assert figures["wrong_flagged"] == 1
    assert figures["boards_silent_wrong"] == 0  # the score is right


def test_aau_figures_count_a_wrong_score_with_its_wrong_square_unflagged_as_silent() -> None:
    truth = Kingdom.parse("W1 W0\nC F0")  # wheat 2 squares × 1 crown = 2
    tokens = [c.token for c in ALL_CELLS]
    proba = np.full((4, len(tokens)), 0.001)
    for i, token in enumerate(["W0", "W0", "C", "F0"]):  # the crown missed, surely: 0
        proba[i, tokens.index(token)] = 1.0
    board = evaluate.datasets.Board("b", np.zeros((2, 2, 3), np.uint8), truth, "g")
    figures = evaluate._aau_figures([board], proba)
    assert figures["boards_exact_score"] == 0.0
    assert figures["wrong_flagged"] == 0
    assert figures["boards_silent_wrong"] == 1


def test_report_quotes_every_summary_figure() -> None:
    accuracies = {"both": 0.995, "terrain": 0.999, "crowns": 0.996}
    confusion = evaluate._confusion(["W0", "C"], ["W0", "C"])
    result = {
        "folds": 5,
        "seed": 0,
        "seconds": 1.0,
        "summary": {
            "aau_squares_right": 0.995,
            "aau_terrain_right": 0.999,
            "aau_crowns_right": 0.996,
            "aau_boards_exact_score": 0.93,
            "aau_boards_exact_grid": 0.9,
            "aau_boards_silent_wrong": 1,
            "phone_tiles_right": 0.98,
            "phone_tiles_right_published": 0.9712,
            "duel_tiles_right": 0.9,
            "duel_game1_squares_right": 49,
            "duel_game1_squares": 49,
        },
        "aau": {
            "boards": 57,
            "squares": 1425,
            "raw": accuracies,
            "decoded": accuracies,
            "confusion": confusion,
            "mistakes": ["board 1 (0, 0): W0→W1", "board 2 (1, 1): S1→S2"],
            "flagged": 0.02,
            "wrong_flagged": 1,
        },
        "phone": {
            "squares": 10,
            **accuracies,
            "confusion": evaluate._confusion(["M2", "M1"], ["M1", "M1"]),
            "published": {"squares": 10, "both": 0.9712, "terrain": 0.99, "crowns": 0.98},
            "relabelled": 3,
        },
        "duel": {
            "tiles": {"squares": 5, **accuracies},
            "game1": {"right": 49, "squares": 49, "best_rotation_right": 49, "mistakes": []},
        },
    }
    report = evaluate.format_report(result)
    assert "99.50%" in report
    assert "93.00%" in report
    assert "49/49" in report
    assert "| 1 of 57 |" in report
    assert "| **W0** |" in report
    assert report.count("| truth \\ predicted |") == 2  # aau-boards and phone-tiles
    assert "2.00% of all squares, 1 of the 2 wrong ones" in report
    assert "3 crops whose folder is plainly wrong" in report
    assert "| phone-tiles fully right, against the folders as published | 97.12% |" in report


@pytest.mark.parametrize(
    ("argv", "rest"),
    [
        (["--photos"], []),
        (["--photos", "--held-out", "--n", "20"], ["--held-out", "--n", "20"]),
        (["--no-write", "--photos", "--data", "d"], ["--no-write", "--data", "d"]),
        (["--photo", "--n", "3"], ["--n", "3"]),  # an abbreviation, as argparse allows
    ],
)
def test_photos_hands_the_rest_of_the_line_to_the_photo_evaluation(
    argv: list[str], rest: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[list[str]] = []
    monkeypatch.setattr(evaluate_photos, "main", lambda a: given.append(list(a)) or 0)
    assert evaluate.main(argv) == 0
    assert given == [rest]


def test_cross_validation_options_are_parsed_and_unknown_ones_refused() -> None:
    args = evaluate._parser().parse_args(["--folds", "3", "--seed", "2"])
    assert (args.folds, args.seed, args.jobs, args.photos) == (3, 2, 2, False)
    with pytest.raises(SystemExit):
        evaluate.main(["--held-out"])  # an option of --photos only
