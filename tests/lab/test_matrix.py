"""Tests for the condition matrix's judging and table (scorer.lab.matrix)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorer.lab.matrix import Outcome, Read, Row, aligned, fold_cache_key, format_table, judge
from scorer.rules.kingdom import Kingdom

# A 3×3 kingdom worth 2 crowns × 3 forests + 1 crown × 2 lakes = 8 (checked by hand).
TRUTH = Kingdom.parse("F1 F1 F0\nL1 C G0\nL0 W0 W0")


def _with(grid: str) -> Kingdom:
    return Kingdom.parse(grid)


def test_truth_total_is_the_hand_count() -> None:
    from scorer.rules.scoring import score

    assert score(TRUTH).total == 8


def test_right_reading_is_exact() -> None:
    out = judge(TRUTH, Read(TRUTH, frozenset(), confirmed=True))
    assert (out.found, out.shape_ok, out.exact, out.squares_right) == (True, True, True, 9)
    assert not out.total_wrong and not out.silent and not out.flagged


def test_confirmed_wrong_total_is_silent() -> None:
    # The top-left forest read without its crown: total 1 × 3 + 2 = 5, and nothing says so.
    read = Read(_with("F0 F1 F0\nL1 C G0\nL0 W0 W0"), frozenset(), confirmed=True)
    out = judge(TRUTH, read)
    assert out.total_wrong and out.silent and not out.flagged
    assert out.squares_right == 8 and not out.exact


def test_unconfirmed_but_wrong_square_not_flagged_is_still_silent() -> None:
    read = Read(_with("F0 F1 F0\nL1 C G0\nL0 W0 W0"), frozenset({(2, 2)}), confirmed=False)
    assert judge(TRUTH, read).silent


def test_confirmed_with_the_square_flagged_is_still_silent() -> None:
    read = Read(_with("F0 F1 F0\nL1 C G0\nL0 W0 W0"), frozenset({(0, 0)}), confirmed=True)
    assert judge(TRUTH, read).silent


def test_unconfirmed_with_every_wrong_square_flagged_is_flagged() -> None:
    read = Read(_with("F0 F1 F0\nL1 C G0\nL0 W0 W0"), frozenset({(0, 0), (1, 1)}), False)
    out = judge(TRUTH, read)
    assert out.total_wrong and out.flagged and not out.silent


def test_a_turned_reading_is_compared_turned_with_its_flags() -> None:
    wrong = _with("F0 F1 F0\nL1 C G0\nL0 W0 W0")
    turned, flag = wrong.rotate(), frozenset({(0, 2)})  # (0, 0) after a clockwise turn
    out = judge(TRUTH, Read(turned, flag, confirmed=False))
    assert out.squares_right == 8 and out.flagged


def test_wrong_grid_is_flagged_only_when_unconfirmed() -> None:
    short = _with("F1 F1 F0\nL1 C G0")
    assert judge(TRUTH, Read(short, frozenset(), confirmed=True)).silent
    out = judge(TRUTH, Read(short, frozenset(), confirmed=False))
    assert out.flagged and not out.shape_ok and out.squares_right == 0


def test_hidden_squares_counted_flagged_and_the_others_right() -> None:
    # Glare over (0, 0) and (0, 1): the first read as empty-ish wheat, flagged; the second
    # read right but not flagged.
    read = Read(_with("G0 F1 F0\nL1 C G0\nL0 W0 W0"), frozenset({(0, 0)}), confirmed=False)
    out = judge(TRUTH, read, hidden=frozenset({(0, 0), (0, 1)}))
    assert (out.hidden, out.hidden_flagged) == (2, 1)
    assert (out.others, out.others_right) == (7, 7)
    assert out.flagged and not out.silent  # the only wrong square is flagged


def test_not_found_is_neither_flagged_nor_silent() -> None:
    out = judge(TRUTH, None, cut=True)
    assert not out.found and not out.silent and not out.flagged
    assert out.cut and out.unconfirmed


def test_cut_kingdom_confirmed_is_reported() -> None:
    out = judge(TRUTH, Read(TRUTH, frozenset(), confirmed=True), cut=True)
    assert out.cut and not out.unconfirmed


def test_aligned_none_for_another_shape() -> None:
    assert aligned(_with("C F0"), TRUTH, frozenset()) is None


def _outcome(**fields: object) -> Outcome:
    base: dict[str, object] = {
        "found": True,
        "shape_ok": True,
        "exact": True,
        "squares": 25,
        "squares_right": 25,
        "total_wrong": False,
        "flagged": False,
        "silent": False,
    }
    return Outcome(**{**base, **fields})  # type: ignore[arg-type]


def test_row_cells_count_each_column() -> None:
    row = Row("glare")
    row.add([_outcome(seconds=2.0, hidden=2, hidden_flagged=2, others=23, others_right=23)], 0)
    row.add(
        [
            _outcome(
                exact=False,
                squares_right=24,
                total_wrong=True,
                silent=True,
                hidden=2,
                hidden_flagged=1,
                others=23,
                others_right=23,
                seconds=4.0,
            )
        ],
        1,
    )
    cells = row.cells()
    assert cells["found"] == "2/2"
    assert cells["kingdoms exact"] == "1/2"
    assert cells["squares right"] == "98.0%"  # 49 of 50
    assert cells["SILENT WRONG"] == "2"  # one silent total and one phantom kingdom
    assert cells["s/photo"] == "3.00"
    assert "hidden flagged 3/4" in cells["checks"]
    assert "others right 100.0%" in cells["checks"]


@pytest.mark.parametrize("conditions", [["plain"], ["plain", "glare"]])
def test_table_has_a_row_per_condition_and_a_total(conditions: list[str]) -> None:
    rows = [Row(name) for name in conditions]
    for row in rows:
        row.add([_outcome(seconds=1.0)], 0)
    lines = format_table(rows).splitlines()
    assert len(lines) == 2 + len(conditions) + 1
    n = len(conditions)
    assert lines[-1].startswith(f"| all conditions | {n}/{n} |")


def test_the_fold_cache_key_follows_the_data_content_not_its_copy_time(tmp_path: Path) -> None:
    for folder, name in (("aau-boards", "board.jpg"), ("phone-tiles", "tile.jpg")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_bytes(b"pixels")
    key = fold_cache_key(tmp_path)
    board = tmp_path / "aau-boards" / "board.jpg"
    os.utime(board, (0, 0))  # copied again: a new modification time, the same bytes
    assert fold_cache_key(tmp_path) == key
    board.write_bytes(b"pixelz")  # relabelled or re-encoded: the same size, other bytes
    assert fold_cache_key(tmp_path) != key
