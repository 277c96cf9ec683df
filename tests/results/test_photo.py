"""Tests for a photo's kingdoms as read and scored (scorer.results.photo)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.results.photo import square_side_px


def test_square_side_of_a_tilted_kingdom() -> None:
    corners = np.array([[10, 0], [710, 0], [610, 500], [110, 500]], float)
    assert square_side_px(BoardLocation(corners, (5, 7))) == pytest.approx(
        ((700 + 500) / 14 + 2 * float(np.hypot(100, 500)) / 10) / 2
    )
