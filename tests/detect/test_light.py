"""Tests for evening the working image's light (scorer.detect.light)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import find_kingdoms
from scorer.detect.light import balanced
from scorer.detect.params import DEFAULT
from scorer.lab.datasets import Board
from scorer.lab.scene_conditions import CONDITIONS
from scorer.lab.synth import make_scene
from tests.detect.conftest import assert_found

P = DEFAULT.light


def test_a_daylight_photo_is_left_as_taken() -> None:
    rng = np.random.default_rng(0)
    photo = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)  # highlights near 255
    assert balanced(photo, P) is photo


def test_a_dim_warm_photo_is_brought_to_grey_and_to_the_target() -> None:
    # BGR (30, 45, 60): dim and orange. Grey world gains 45/30, 1, 45/60 give grey 45
    # everywhere, then the exposure gain 230/45 brings it to 230.
    photo = np.full((8, 8, 3), (30, 45, 60), np.uint8)
    assert balanced(photo, P)[0, 0].tolist() == [230, 230, 230]


def test_a_channel_gain_stays_within_the_cast_limit() -> None:
    # Half the photo BGR (4, 100, 100), half black: channel means 2, 50, 50 around a grey
    # of 34. Blue would need a gain of 17 and gets 2.5; green and red get 34 / 50 = 0.68.
    photo = np.zeros((8, 8, 3), np.uint8)
    photo[:4] = (4, 100, 100)
    out = balanced(photo, P).astype(float)
    assert P.max_cast == 2.5
    assert out[0, 0, 0] / out[0, 0, 1] == pytest.approx(4 * 2.5 / (100 * 0.68), rel=0.05)


@pytest.mark.parametrize("seed", [0, 4, 6, 8])
def test_dim_warm_light_kingdoms_are_found(aau_boards: list[Board], seed: int) -> None:
    # Seeds whose kingdom was not found at all before the light was evened.
    scene = make_scene(seed, aau_boards, condition=CONDITIONS["dim_warm"])
    truth = scene.kingdoms[0]
    assert_found(find_kingdoms(scene.image), truth, truth.shape)
