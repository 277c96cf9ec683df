"""Tests for scorer.lab.bench: the timing of one rectified board, stage by stage."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.lab import bench, evaluate_photos
from scorer.lab.fit import fit_cell_classifier
from scorer.read import classify
from scorer.read.cells import cells_features


def test_bench_board_times_every_stage(capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    board = rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)
    crops = [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(20)]
    model = fit_cell_classifier(cells_features(crops), ["W0", "C"] * 10, kind="hgb", max_iter=5)
    timings = bench.bench_board(board, (3, 3), model, repeat=3)
    assert set(timings) == {"split", "features", "model", "decode", "total"}
    assert all(len(seconds) == 3 and min(seconds) >= 0 for seconds in timings.values())
    bench.print_medians("test board", timings)
    printed = capsys.readouterr().out
    assert "features" in printed
    assert "median" in printed
    compared = bench.bench_board(board, (3, 3), model, repeat=2, sklearn_trees=True)
    assert len(compared["model_sklearn"]) == 2


def test_bench_refuses_an_unreadable_board(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jpg"
    with pytest.raises(SystemExit, match="cannot read"):
        bench._board_image(str(missing), 5)


def test_committed_model_reads_a_board_as_scikit_learn_does(fixtures: Path) -> None:
    """The flat trees give the committed model's probabilities as scikit-learn does."""
    if not (classify.MODEL_DIR / classify.MODEL_FILE).exists():
        pytest.skip("no committed model")
    model = classify.load_model()
    paths = sorted((fixtures / "cells").glob("*.jpg"))[:25]
    features = cells_features([cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths])
    expected = bench.sklearn_proba(model, features)
    assert np.allclose(model.expand_proba(model.predict_proba(features)), expected, atol=1e-12)


@pytest.mark.parametrize(
    ("argv", "rest"),
    [
        (["--photo"], []),
        (["--photo", "game.jpg", "--repeats", "3"], ["game.jpg", "--repeats", "3"]),
        (["--repeats", "3", "--photo"], ["--repeats", "3"]),
    ],
)
def test_photo_hands_the_rest_of_the_line_to_the_photo_bench(
    argv: list[str], rest: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[list[str]] = []
    monkeypatch.setattr(evaluate_photos, "bench_main", lambda a: given.append(list(a)) or 0)
    assert bench.main(argv) == 0
    assert given == [rest]


def test_board_options_are_parsed_and_unknown_ones_refused() -> None:
    args = bench._parser().parse_args(["--grid", "7", "--repeat", "3", "--sklearn-trees"])
    assert (args.grid, args.repeat, args.sklearn_trees, args.board) == (7, 3, True, None)
    with pytest.raises(SystemExit):
        bench.main(["--photos"])  # not an abbreviation of anything
