"""Tests for the rules by which a row is the kingdom's (scorer.detect.rows)."""

from __future__ import annotations

import warnings

import numpy as np

from scorer.detect import Side
from scorer.detect.edges import GridEdges
from scorer.detect.params import DEFAULT
from scorer.detect.rows import GROW_RULES, KEEP_RULES, Row, row_beyond, row_not_kingdom


def _row(tiles: list[float], lit: list[float]) -> Row:
    """The top edge row of a 5×5 grid of 20-px squares on a flat work image."""
    flat = np.zeros((140, 140, 3), np.float32)
    to_photo = np.array([[20.0, 0, 20], [0, 20.0, 20], [0, 0, 1]])
    edges = GridEdges((flat, flat), to_photo, DEFAULT)
    return Row(edges, (0, 5, 0, 5), Side.TOP, np.array(tiles), np.array(lit))


def test_each_rule_has_its_own_name() -> None:
    for rules in (GROW_RULES, KEEP_RULES):
        names = [name for name, _ in rules]
        assert len(set(names)) == len(names)


def test_a_row_of_bare_table_is_neither_grown_nor_kept() -> None:
    bare = _row([0.0] * 5, [0.0] * 5)
    assert not row_beyond(bare)
    assert row_not_kingdom(bare)


def test_a_row_of_tiles_in_any_light_grows_and_stays() -> None:
    tiles = _row([1.0] * 5, [1.0] * 5)
    assert row_beyond(tiles)
    assert not row_not_kingdom(tiles)


def test_a_row_wholly_off_the_photo_is_judged_without_numpy_warnings() -> None:
    # No square of the row lies in the photo (every measure NaN): nothing says it is tile,
    # so no rule keeps or grows it, and NaN must not reach numpy's nan-functions' warnings.
    off = _row([np.nan] * 5, [np.nan] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not row_beyond(off)
        assert row_not_kingdom(off)
