"""Tests for the table's colour and texture model (scorer.detect.table)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect.params import DEFAULT
from scorer.detect.table import cell_plainness, colour_off_table, lab, table_texture_map, tile_maps

TABLE = DEFAULT.table


def test_dark_green_square_on_a_grey_mat_is_tile_by_colour() -> None:
    # A forest square in shade on a black cutting mat: within the colour distance of
    # the mat, but the mat is grey and the square is not.
    rng = np.random.default_rng(0)
    image = (np.full((300, 300, 3), 45.0) + rng.normal(0, 3, (300, 300, 3))).clip(0, 255)
    image[100:200, 100:200] = (30, 55, 38)  # dark green (BGR)
    mask = tile_maps(image.astype(np.uint8), TABLE).mask
    inside, outside = mask[110:190, 110:190], mask[:, :90]
    assert (inside > 0).mean() > 0.95
    assert (outside > 0).mean() < 0.01


def test_colour_cue_is_off_on_a_table_of_many_colours() -> None:
    # On a patterned carpet colour alone says nothing: only the colour distance counts.
    lab_image = np.zeros((50, 50, 3), np.float32)
    lab_image[..., 0] = 40.0
    lab_image[::2, :, 1:] = (12.0, 25.0)
    lab_image[1::2, :, 1:] = (-20.0, 5.0)
    lab_image[20:30, 20:30, 1:] = (30.0, -30.0)
    border = np.concatenate([lab_image[:3].reshape(-1, 3), lab_image[-3:].reshape(-1, 3)])
    assert not colour_off_table(lab_image, border, TABLE).any()


def test_darker_square_of_another_hue_on_a_brown_table_is_tile_by_colour() -> None:
    # A brown wooden table in shade keeps its hue; a dark forest square does not.
    # A lighter spot off the table's hue (glare) is left to the colour distance.
    lab_image = np.zeros((60, 60, 3), np.float32)
    lab_image[...] = (50.0, 12.0, 25.0)
    lab_image[:, 30:] = (30.0, 7.2, 15.0)  # the same table in shade
    lab_image[10:25, 35:50] = (28.0, -6.0, 12.0)  # dark green, in the shade
    lab_image[40:55, 5:20] = (80.0, 2.0, 14.0)  # glare: lighter, paler
    border = lab_image[:3].reshape(-1, 3)
    colour = colour_off_table(lab_image, border, TABLE)
    assert colour[14:21, 39:46].all()  # shrunk by half the averaging window
    assert not colour[:, :30][:35].any()
    assert not colour[:, 30:][30:].any()
    assert not colour[40:55, 5:20].any()


def test_shade_of_a_table_clipped_by_exposure_is_not_tile_by_colour() -> None:
    # An orange table whose red the exposure clipped at full scale: lit, it shows a
    # yellower hue than its shade, where red is no longer clipped. The shade is
    # table; a dark green square in it is not.
    image = np.zeros((60, 60, 3), np.uint8)
    image[...] = (73, 146, 253)  # lit orange, red clipped (BGR, as in scene 11240)
    image[:, 30:] = (49, 101, 208)  # the table in shade: the truer, redder hue
    image[10:25, 35:50] = (30, 70, 40)  # dark green, in the shade
    lab_image = lab(image)
    border = lab_image[:3, :30].reshape(-1, 3)
    colour = colour_off_table(lab_image, border, TABLE)
    assert colour[14:21, 39:46].all()
    assert not colour[:, 30:][30:].any()
    assert not colour[:, :30].any()


def test_lab_is_opencvs_8_bit_lab_rescaled() -> None:
    image = np.array([[[0, 0, 0], [255, 255, 255], [0, 0, 255]]], np.uint8)
    lightness, a, b = lab(image)[0].T
    np.testing.assert_allclose(lightness, [0.0, 100.0, 53.33], atol=0.01)
    np.testing.assert_allclose(a[:2], [0.0, 0.0])
    assert a[2] > 50 and b[2] > 40  # red: towards red and yellow


def _blue_mat_with_a_lake(shade: float = 1.0) -> np.ndarray:
    """A navy cutting mat with white lines every 12 px, and a plain blue square on it."""
    image = np.full((240, 240, 3), (110, 50, 20), np.float64)  # navy (BGR)
    image[::12, :] = image[:, ::12] = (235, 235, 235)
    image[100:160, 100:160] = (170, 90, 30)  # a lake's blue, lighter than the mat
    return (image * shade).clip(0, 255).astype(np.uint8)


@pytest.mark.parametrize("shade", [1.0, 0.45])
def test_square_without_the_mats_lines_is_plain_in_light_and_shade(shade: float) -> None:
    texture = table_texture_map(_blue_mat_with_a_lake(shade), TABLE)
    assert texture is not None
    quad = np.array([[40, 40], [220, 40], [220, 220], [40, 220]], float)  # 3×3 squares of 60 px
    plain = cell_plainness(texture, quad, (3, 3), TABLE)  # ring included: 5×5
    assert plain[2, 2] == pytest.approx(1.0)  # the lake: the middle square
    mat = np.delete(plain[1:4, 1:4].ravel(), 4)  # the other eight squares are mat
    assert np.nanmax(mat) == 0.0


def test_table_without_a_fine_pattern_has_no_texture_cue() -> None:
    image = np.full((240, 240, 3), (110, 50, 20), np.uint8)
    image[100:160, 100:160] = (170, 90, 30)
    assert table_texture_map(image, TABLE) is None
