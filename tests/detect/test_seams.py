"""Tests for seam strength and snapping sides onto edges (scorer.detect.seams)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import find_kingdoms
from scorer.detect.params import DEFAULT
from scorer.detect.seams import count_scores, locate, refine_quad, seam_count
from scorer.detect.view import View
from scorer.rules.errors import GridNotConsistentError
from scorer.rules.kingdom import STANDARD_SIZE


def _squares(side: int = 300, count: int = STANDARD_SIZE) -> np.ndarray:
    """A flat square of grey with dark seams, ``count`` squares a side."""
    image = np.full((side, side, 3), 150, np.uint8)
    step = side // count
    for k in range(1, count):
        image[:, k * step - 1 : k * step + 1] = 40
        image[k * step - 1 : k * step + 1, :] = 40
    return image


def test_seams_of_the_right_count_are_the_clearest() -> None:
    canvas = _squares(320)
    assert seam_count(canvas, 1, None, DEFAULT)[0] == STANDARD_SIZE
    assert seam_count(canvas, 0, None, DEFAULT)[0] == STANDARD_SIZE
    scores = count_scores(canvas, 1, [4, 5, 6], DEFAULT.seams)
    assert scores[5] > DEFAULT.seams.min_seam_score > max(scores[4], scores[6])


def test_a_grid_is_measured_inside_its_outline() -> None:
    image = np.full((400, 400, 3), 90, np.uint8)
    image[50:350, 50:350] = _squares()
    quad = np.array([[50, 50], [350, 50], [350, 350], [50, 350]], float)
    location = locate(View(image), quad, require_grid=True)
    assert location is not None
    assert location.shape == (STANDARD_SIZE, STANDARD_SIZE)
    forced = locate(View(image, grid=7), quad, require_grid=True)
    assert forced is not None and forced.shape == (7, 7)


@pytest.mark.parametrize("line_at", [244, 247, 250])
def test_a_side_snaps_to_the_kingdom_edge_not_to_a_thin_line_beside_it(line_at: int) -> None:
    image = np.full((300, 300, 3), 90, np.uint8)
    image[60:240, 60:240] = (40, 160, 200)  # the kingdom, its right edge at x = 240
    image[:, line_at] = 250  # a cutting mat's thin printed line a few pixels outside
    guess = np.array([[60, 60], [244, 60], [244, 239], [60, 239]], np.float32)
    refined = refine_quad(View(image), guess)
    assert np.abs(refined[1:3, 0] - 240).max() <= 1.0


def test_faint_dotted_lines_on_a_flat_patch_are_not_a_grid() -> None:
    # A flat colourful patch has no typical gradient to measure seams against:
    # lines one grey level deep, every other pixel, must not make a kingdom.
    image = np.full((600, 800, 3), 120, np.uint8)
    image[150:450, 250:550] = (40, 140, 220)
    for k in range(1, STANDARD_SIZE):
        image[150:450:2, 250 + 60 * k] += 1
        image[150 + 60 * k, 250:550:2] += 1
    with pytest.raises(GridNotConsistentError, match="no consistent grid"):
        find_kingdoms(image)
