"""Tests for the light normalisation of reading (scorer.read.light)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.read.corrections import read_and_correct
from scorer.read.light import (
    NEUTRAL,
    Light,
    colours_table,
    corrected,
    fit_affine,
    fit_colours,
    fit_light,
    needs_correction,
    parse_colours,
    reading_light,
    square_colours,
    terrain_colours,
)
from scorer.read.params import DEFAULT
from scorer.rules.errors import ModelFileError
from scorer.rules.kingdom import Kingdom

Board = tuple[np.ndarray, Kingdom]
Relit = Callable[..., np.ndarray]


@pytest.mark.parametrize(
    ("gain", "red", "blue"),
    [
        (0.35, 1.3, 0.6),  # dim, warm lamp light
        (0.5, 1.0, 1.0),  # underexposed
        (0.8, 0.8, 1.4),  # cool fluorescent light
        (1.4, 1.0, 1.0),  # overexposed, nothing saturated yet
    ],
)
def test_a_known_gain_and_cast_are_recovered(
    crop_board: Board, relit: Relit, gain: float, red: float, blue: float
) -> None:
    board, grid = crop_board
    before = fit_light(board, grid.shape)
    after = fit_light(relit(board, gain, red, blue), grid.shape)
    applied = np.log([gain * blue, gain, gain * red])
    np.testing.assert_allclose(after.offset - before.offset, applied, atol=0.12)


def test_a_normally_lit_board_is_left_exactly_as_it_is(crop_board: Board) -> None:
    board, grid = crop_board
    light = reading_light(board, grid.shape)
    assert light is NEUTRAL
    assert corrected(board, light) is board


def test_dim_warm_light_is_brought_back_near_the_board_as_photographed(
    crop_board: Board, relit: Relit
) -> None:
    board, grid = crop_board
    dim = relit(board, 0.35, 1.3, 0.6)
    light = reading_light(dim, grid.shape)
    assert needs_correction(light)
    back = corrected(dim, light).astype(np.float64)
    # Mean error per channel within 8 levels of 255 (the quantisation of a third of the
    # light is 3 levels), where the dim board is 60 levels off.
    assert np.abs(back - board).mean() < 8.0
    assert np.abs(dim.astype(np.float64) - board).mean() > 40.0


def test_a_veil_of_glare_is_fitted_as_a_lift_not_as_over_exposure(crop_board: Board) -> None:
    """A veil adds about the same light to every level: a gain alone takes it for a photo
    exposed too long, a gain and a lift recover it. Seen as ``0.8 × board + 90``, a board
    fitted as ``gain × terrain + lift`` has 0.8 times its gain and 0.8 times its lift
    plus 90 (some bright pixels clip at 255, so the tolerances are loose)."""
    board, grid = crop_board
    veiled = np.clip(board.astype(np.float64) * 0.8 + 90, 0, 255).astype(np.uint8)
    colours = square_colours(veiled, grid.shape)
    gain_only = fit_colours(colours)
    assert gain_only.exposure - fit_light(board, grid.shape).exposure > 0.5
    plain_colours = square_colours(board, grid.shape)
    plain = fit_affine(plain_colours, fit_colours(plain_colours))
    light = fit_affine(colours, gain_only)
    assert plain.lift is not None and light.lift is not None
    np.testing.assert_allclose(np.exp(light.offset - plain.offset), 0.8, atol=0.12)
    np.testing.assert_allclose(light.lift, 0.8 * plain.lift + 90, atol=20)
    assert not needs_correction(Light(light.offset - plain.offset))


@pytest.mark.parametrize(
    ("offset", "expected"),
    [
        ((0.0, 0.0, 0.0), False),
        (tuple(np.full(3, DEFAULT.dark_light + 0.05)), False),
        (tuple(np.full(3, DEFAULT.dark_light - 0.05)), True),
        (tuple(np.full(3, DEFAULT.bright_light + 0.05)), True),
        ((0.0, 0.0, DEFAULT.red_cast - 0.05), False),
        ((0.0, 0.0, DEFAULT.red_cast + 0.05), True),
        ((-DEFAULT.blue_cast - 0.05, 0.0, 0.0), True),
    ],
)
def test_only_light_outside_the_bands_is_corrected(
    offset: tuple[float, float, float], expected: bool
) -> None:
    assert needs_correction(Light(np.array(offset))) is expected


def test_a_fit_beyond_any_light_is_not_taken(crop_board: Board) -> None:
    board, grid = crop_board
    drawing = board.copy()
    drawing[..., 0] = 0  # no blue at all: no photo's light does that
    assert reading_light(drawing, grid.shape) is NEUTRAL
    loose = replace(DEFAULT, light_limit=10.0)
    assert reading_light(drawing, grid.shape, loose) is not NEUTRAL


def test_dim_warm_light_reads_like_the_normal_board(crop_board: Board, relit: Relit) -> None:
    try:
        from scorer.read.classify import default_model

        model = default_model()
    except ModelFileError as err:
        pytest.skip(f"no trained model: {err}")
    board, grid = crop_board
    location = BoardLocation(
        np.array([[0, 0], [320, 0], [320, 320], [0, 320]], np.float64), grid.shape
    )

    def right(image: np.ndarray) -> int:
        read = read_and_correct(image, location, image, model, 64, refine=False)[1]
        return sum(read.prediction.kingdom[pos] == cell for pos, cell in grid.cells())

    normal = right(board)
    assert normal >= 23
    dim = relit(board, 0.35, 1.3, 0.6)
    assert right(dim) == normal  # 16 of 25 without the correction


def test_the_committed_colours_hold_every_terrain_and_the_castle() -> None:
    colours = terrain_colours()
    assert colours["names"] == [
        "castle",
        "forest",
        "grassland",
        "lake",
        "mine",
        "swamp",
        "wheat",
    ]
    lake, wheat = colours["colours"][3], colours["colours"][6]
    assert lake[0] > lake[2] and wheat[2] > wheat[0]  # lakes blue, wheat yellow (BGR)


@pytest.mark.parametrize(
    "data",
    [
        {"names": ["lake"], "log_bgr": [[1.0, 2.0]], "median_log_bgr": [1.0, 1.0, 1.0]},
        {"names": ["lake"], "log_bgr": [[1.0, 2.0, "x"]], "median_log_bgr": [1, 1, 1]},
        {"names": ["lake"], "log_bgr": [[1.0, 2.0, float("nan")]], "median_log_bgr": [1, 1, 1]},
        {"names": ["lake"], "log_bgr": [[1.0, 2.0, 3.0]]},
    ],
)
def test_a_damaged_colours_file_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="terrain colours file"):
        parse_colours(json.loads(json.dumps(data)))


@pytest.mark.parametrize(
    "text",
    [
        "name,log_blue,log_green,log_red,squares\nlake,5,4,x,3\nmedian,3,4,4,9\n",
        "name,log_blue,log_green\nlake,5,4\nmedian,3,4\n",
    ],
)
def test_a_damaged_colours_table_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="terrain colours file"):
        parse_colours(colours_table(text))


def test_a_colours_table_without_its_median_row_is_refused() -> None:
    text = "name,log_blue,log_green,log_red,squares\nlake,5,4,2,3\n"
    with pytest.raises(ValueError, match="terrain colours file"):
        parse_colours(colours_table(text))
