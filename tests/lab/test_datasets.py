"""Tests for scorer/lab/datasets.py: loading the labelled sets, and the audited phone labels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.lab import datasets
from scorer.rules.kingdom import Cell


@pytest.mark.parametrize(
    ("folder", "token"),
    [("wheat_0", "W0"), ("mine_3", "M3"), ("castle", "C"), ("empty", "."), ("swamp_2", "S2")],
)
def test_folder_cell(folder: str, token: str) -> None:
    assert datasets.folder_cell(folder).token == token


@pytest.mark.parametrize(("file", "token"), sorted(datasets.PHONE_LABEL_FIXES.items()))
def test_every_label_fix_is_a_real_label_that_changes_the_folder(file: str, token: str) -> None:
    folder, _, name = file.partition("/")
    assert name.endswith(".jpg")
    assert Cell.parse(token).token == token
    assert datasets.folder_cell(folder).token != token


def _write_crop(path: Path, value: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), np.full((16, 16, 3), value, np.uint8))


def test_tile_folders_apply_fixes_and_keep_the_published_label(tmp_path: Path) -> None:
    _write_crop(tmp_path / "mine_1" / "a_1.jpg", 10)
    _write_crop(tmp_path / "mine_1" / "a_2.jpg", 20)
    _write_crop(tmp_path / "swamp_0" / "b_1.jpg", 30)
    tiles = datasets._load_tile_folders(
        tmp_path, "phone", datasets._photo_id, {"mine_1/a_2.jpg": "M2"}
    )
    assert [(t.cell.token, t.published_cell.token) for t in tiles] == [
        ("M1", "M1"),
        ("M2", "M1"),
        ("S0", "S0"),
    ]
    assert [t.published for t in tiles] == [None, Cell.parse("M1"), None]
    assert [t.group for t in tiles] == ["phone-a", "phone-a", "phone-b"]


def test_label_fixes_name_files_of_the_phone_set(shared_data: Path) -> None:
    base = shared_data / "phone-tiles"
    missing = [f for f in datasets.PHONE_LABEL_FIXES if not (base / f).is_file()]
    assert not missing, f"label fixes for files that are not in phone-tiles/: {missing}"
    tiles = datasets.load_phone_tiles(shared_data)
    changed = [t for t in tiles if t.published is not None]
    assert len(changed) == len(datasets.PHONE_LABEL_FIXES)
    assert sorted(t.cell.token for t in changed) == sorted(datasets.PHONE_LABEL_FIXES.values())
