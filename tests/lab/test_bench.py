"""Tests for scorer.lab.bench: the timing of one rectified board, stage by stage."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorer.lab import bench
from scorer.read.cells import cells_features
from scorer.read.classify import CellClassifier


def test_bench_board_times_every_stage(capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    board = rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)
    crops = [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(20)]
    model = CellClassifier(kind="hgb", max_iter=5).fit(cells_features(crops), ["W0", "C"] * 10)
    timings = bench.bench_board(board, (3, 3), model, repeat=3)
    assert set(timings) == {"split", "features", "model", "decode", "total"}
    assert all(len(seconds) == 3 and min(seconds) >= 0 for seconds in timings.values())
    bench.print_medians("test board", timings)
    printed = capsys.readouterr().out
    assert "features" in printed
    assert "median" in printed


def test_bench_refuses_an_unreadable_board(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jpg"
    with pytest.raises(SystemExit, match="cannot read"):
        bench._board_image(str(missing), 5)
