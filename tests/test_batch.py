"""Tests for scorer.batch: many inputs of one command line, in order, on every core."""

from __future__ import annotations

import pytest

from scorer import batch


def test_a_few_photos_are_scored_in_this_process() -> None:
    assert batch.worker_count(None, batch.PARALLEL_MIN - 1) == 1
    assert batch.worker_count(None, batch.PARALLEL_MIN) == batch.cores()
    assert batch.worker_count(8, 3) == 3  # never more processes than photos
    assert batch.worker_count(1, 100) == 1


def test_one_by_one_keeps_the_order_and_text_grids_are_not_photos() -> None:
    paths = [f"{k}.txt" for k in range(batch.PARALLEL_MIN + 5)]
    assert batch.score_inputs(paths, str.upper) == [p.upper() for p in paths]


def test_a_progress_bar_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ["a.jpg", "b.jpg", "c.jpg"]
    assert batch.score_inputs(paths, str.upper, jobs=1) == ["A.JPG", "B.JPG", "C.JPG"]
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(batch, "_is_terminal", lambda stream: True)
    batch.score_inputs(paths, str.upper, jobs=1)
    assert "0/3" in capsys.readouterr().err
    batch.score_inputs(["a.jpg", "grid.txt"], str.upper, jobs=1)  # one photo: no bar
    assert capsys.readouterr().err == ""
