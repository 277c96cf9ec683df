"""Fuzzing detection and rectification: whatever the picture, kingdoms or a named error.

Pictures of every size from 1×1 up, flat, noisy, striped or tiled with
random colours, with and without corners clicked on the picture by hand (anywhere on it,
repeated or in a line), go to
:func:`scorer.detect.find_kingdoms`. It must return kingdoms with four finite
corners and a grid of at most 7×7, each of which :func:`scorer.detect.rectify`
warps to a board of whole squares, or raise a :class:`ScorerError`.

Sides are drawn up to 2,000 pixels with the longer side at most 500 times the
shorter; the long run::

    KINGDOMINO_FUZZ_EXAMPLES=100000 .venv/bin/pytest tests/fuzz -s -q
"""

from __future__ import annotations

import os
from collections import Counter

import cv2
import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scorer.detect import SQUARE_PX, find_kingdoms, rectify
from scorer.rules.errors import ScorerError
from scorer.rules.kingdom import MAX_SIZE

LONG_RUN = "KINGDOMINO_FUZZ_EXAMPLES" in os.environ
"""The long run draws new inputs each time; ``make test`` draws the same ones every run."""

EXAMPLES = max(20, int(os.environ.get("KINGDOMINO_FUZZ_EXAMPLES", "150")) // 10)
"""Pictures tried: a tenth of the other harnesses' count, as each takes longer."""

MAX_ASPECT = 500


@st.composite
def pictures(draw: st.DrawFn) -> np.ndarray:
    height = draw(st.integers(1, 2000))
    width = draw(st.integers(1, 2000))
    assume(max(height, width) <= MAX_ASPECT * min(height, width))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["flat", "noise", "tiles", "stripes"]))
    if kind == "flat":
        colour = rng.integers(0, 256, 3, dtype=np.uint8)
        return np.broadcast_to(colour, (height, width, 3)).copy()
    if kind == "noise":
        return rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    if kind == "stripes":
        period = draw(st.integers(2, 200))
        line = ((np.arange(width) % period) < period // 2).astype(np.uint8) * 255
        return np.repeat(np.repeat(line[None, :, None], height, axis=0), 3, axis=2)
    n = draw(st.integers(1, 9))
    blocks = rng.integers(0, 256, (n, n, 3), dtype=np.uint8)
    return np.asarray(cv2.resize(blocks, (width, height), interpolation=cv2.INTER_NEAREST))


@st.composite
def corners_on(draw: st.DrawFn, image: np.ndarray) -> list[tuple[float, float]] | None:
    """No corners, or four points a player could click on the picture (maybe all the same)."""
    if draw(st.booleans()):
        return None
    height, width = image.shape[:2]
    x = st.floats(0, width, allow_nan=False)
    y = st.floats(0, height, allow_nan=False)
    return [(draw(x), draw(y)) for _ in range(4)]


def test_detection_only_raises_named_errors() -> None:
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
        derandomize=not LONG_RUN,
    )
    @given(st.data(), pictures(), st.sampled_from([None, 5, 7]))
    def check(data: st.DataObject, image: np.ndarray, grid: int | None) -> None:
        corners = data.draw(corners_on(image))
        try:
            found = find_kingdoms(image, corners=corners, grid=grid)
        except ScorerError as err:
            assert str(err)
            outcomes[type(err).__name__] += 1
            return
        for location in found:
            assert np.isfinite(location.corners).all()
            assert location.corners.shape == (4, 2)
            rows, cols = location.shape
            assert 1 <= rows <= MAX_SIZE and 1 <= cols <= MAX_SIZE
            board = rectify(image, location)
            assert board.shape == (rows * SQUARE_PX, cols * SQUARE_PX, 3)
            assert board.dtype == np.uint8
        outcomes["found" if found else "none"] += 1

    check()
    print(f"\ndetection fuzz: {sum(outcomes.values())} pictures tried, {dict(outcomes)}")
    assert sum(outcomes.values()) > 0
