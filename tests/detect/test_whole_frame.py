"""Tests for the whole frame as a hypothesis in a photo cropped to its kingdom
(scorer.detect.find)."""

from __future__ import annotations

import pytest

from scorer.detect import find_kingdoms
from scorer.lab.datasets import Board
from scorer.lab.scene_conditions import CONDITIONS
from scorer.lab.synth import make_scene
from tests.detect.conftest import corner_error_any_order


@pytest.mark.parametrize("seed", [0, 7, 8])
def test_a_photo_cropped_to_the_kingdom_offers_the_whole_kingdom(
    aau_boards: list[Board], seed: int
) -> None:
    # Seeds where detection gave only a grid inside the kingdom (6×5, 4×4 and 4×3), or
    # the whole kingdom by chance; the whole kingdom must now be the kingdom found or
    # one of its alternatives, for reading to choose.
    scene = make_scene(seed, aau_boards, condition=CONDITIONS["cropped_edge"])
    truth = scene.kingdoms[0]
    found = find_kingdoms(scene.image)
    assert len(found) == 1
    offered = [found[0], *found[0].alternatives]
    assert any(
        corner_error_any_order(loc.corners, truth.corners) < 0.05 and loc.shape == truth.shape
        for loc in offered
    )
