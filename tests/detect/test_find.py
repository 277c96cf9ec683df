"""Tests for finding and rectifying kingdoms end to end (scorer.detect.find)."""

from __future__ import annotations

import inspect
import io
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

import scorer.detect
from scorer.detect import BoardLocation, find_kingdoms, rectify
from scorer.detect.find import _same_grid, _to_original
from scorer.detect.params import DEFAULT, with_overrides
from scorer.lab.datasets import Board
from scorer.lab.synth import make_scene
from scorer.photo.imageio import load_image
from scorer.rules.errors import BoardNotFoundError, GridNotConsistentError, MarkedCornersError
from scorer.rules.kingdom import DUEL_SIZE, STANDARD_SIZE

CornerError = Callable[[np.ndarray, np.ndarray], float]


def read_fixture(fixtures: Path, name: str) -> np.ndarray:
    image = cv2.imread(str(fixtures / "photos" / name), cv2.IMREAD_COLOR)
    assert image is not None, name
    return image


def test_the_public_names_stay_importable_from_the_package() -> None:
    for name in scorer.detect.__all__:
        assert hasattr(scorer.detect, name), name
    assert (scorer.detect.SQUARE_PX, scorer.detect.MIN_SIDE) == (100, 3)
    assert list(inspect.signature(find_kingdoms).parameters) == [
        "image",
        "corners",
        "grid",
        "params",
    ]
    assert inspect.signature(rectify).parameters["square_px"].default == 100


@pytest.mark.parametrize("seed", [0, 2, 4, 5, 11])
def test_finds_kingdoms_in_generated_scenes(
    seed: int, demo_boards: list[Board], error: CornerError
) -> None:
    scene = make_scene(seed, demo_boards, n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    found = find_kingdoms(scene.image)
    assert len(found) == 1
    assert found[0].shape == truth.shape
    assert error(found[0].corners, truth.corners) < 0.03


def test_params_reach_detection(demo_boards: list[Board]) -> None:
    scene = make_scene(0, demo_boards, n_kingdoms=1, remove_cells=False)
    (found,) = find_kingdoms(scene.image, params=DEFAULT)
    (again,) = find_kingdoms(scene.image)
    np.testing.assert_array_equal(found.corners, again.corners)
    no_area_is_large_enough = with_overrides(DEFAULT, ["outlines.min_area_share=0.9"])
    with pytest.raises(BoardNotFoundError):
        find_kingdoms(scene.image, params=no_area_is_large_enough)


def test_two_kingdoms_side_by_side_are_ordered_left_to_right(
    demo_boards: list[Board], error: CornerError
) -> None:
    scene = make_scene(7, demo_boards, n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    image = np.hstack([scene.image, scene.image])
    shift = np.array([scene.image.shape[1], 0])
    found = find_kingdoms(image)
    assert len(found) == 2
    assert error(found[0].corners, truth.corners) < 0.03
    assert error(found[1].corners, truth.corners + shift) < 0.03


def test_two_kingdoms_in_one_scene_are_both_found(
    demo_boards: list[Board], error: CornerError
) -> None:
    scene = make_scene(0, demo_boards, n_kingdoms=2, remove_cells=False)
    found = find_kingdoms(scene.image)
    assert len(found) == len(scene.kingdoms) == 2
    for truth in scene.kingdoms:
        assert min(error(loc.corners, truth.corners) for loc in found) < 0.03


def test_photo_without_kingdom_raises_named_error() -> None:
    rng = np.random.default_rng(1)
    carpet = cv2.GaussianBlur(rng.normal(128, 30, (600, 800)).astype(np.float32), (0, 0), 1.5)
    image = cv2.cvtColor(carpet.clip(0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    with pytest.raises(BoardNotFoundError, match="no kingdom-sized area of tiles found"):
        find_kingdoms(image)


def test_colourful_area_without_grid_raises_grid_error() -> None:
    image = np.full((600, 800, 3), 120, np.uint8)
    yy, xx = np.mgrid[0:300, 0:300]
    blob = np.stack([xx * 0.8, yy * 0.8, 255 - xx * 0.5], axis=2).astype(np.uint8)
    image[150:450, 250:550] = blob  # a smooth colourful square: no seams
    with pytest.raises(GridNotConsistentError, match="no consistent grid"):
        find_kingdoms(image)


def test_user_corners_skip_detection_and_grid_is_forced(demo_boards: list[Board]) -> None:
    scene = make_scene(2, demo_boards, n_kingdoms=1, remove_cells=False)
    truth = scene.kingdoms[0].corners
    shuffled = truth[[2, 0, 3, 1]]
    (found,) = find_kingdoms(scene.image, corners=shuffled, grid=STANDARD_SIZE)
    np.testing.assert_allclose(found.corners, truth, atol=1e-6)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)


@pytest.mark.parametrize(
    "corners",
    [
        [(0.96, 362.3), (0.0, 356.9), (0.0, 1342.4), (0.0, 1582.6)],  # almost in a line
        [(5.0, 5.0)] * 4,  # one point
        [(0.0, 0.0), (400.0, 0.0), (200.0, 1.0), (0.0, 2.0)],  # a sliver, no area
    ],
)
def test_marked_corners_that_outline_nothing_are_refused(
    corners: list[tuple[float, float]],
) -> None:
    image = np.full((1731, 1731, 3), (8, 182, 254), np.uint8)
    with pytest.raises(BoardNotFoundError, match="corners marked"):
        find_kingdoms(image, corners=corners, grid=STANDARD_SIZE)


@pytest.mark.parametrize(
    ("corners", "grid", "message"),
    [
        (
            [(5000, 5000), (5100, 5000), (5100, 5100), (5000, 5100)],
            None,
            "the corners marked lie outside the photo: (5000, 5000) is beyond its 675×1200 px",
        ),
        (
            [(0, 0), (750, 0), (750, 1200), (0, 1200)],  # 75 px past; the margin is 60
            None,
            "(750, 0) is beyond its 675×1200 px",
        ),
        (
            [(float("inf"), 0), (100, 0), (100, 100), (0, 100)],
            None,
            "the corners marked must be finite numbers, not inf or nan",
        ),
        (
            [(1e308, 1e308), (-1e308, 1e308), (-1e308, -1e308), (1e308, -1e308)],
            None,
            "(1e+308, 1e+308) is beyond its 675×1200 px",
        ),
        (
            [(100, 100), (130, 100), (130, 130), (100, 130)],
            STANDARD_SIZE,
            "the corners marked are only 30 px apart: too small to hold 5 squares a side "
            "(at least 40 px)",
        ),
    ],
    ids=["far outside", "just past the margin", "inf", "huge", "too small for the grid"],
)
def test_marked_corners_must_lie_inside_the_photo_and_hold_the_grid(
    corners: list[tuple[float, float]], grid: int | None, message: str
) -> None:
    image = np.full((1200, 675, 3), (8, 182, 254), np.uint8)
    with np.errstate(all="raise"), pytest.raises(MarkedCornersError) as caught:
        find_kingdoms(image, corners=corners, grid=grid)
    assert message in str(caught.value)
    assert isinstance(caught.value, BoardNotFoundError) and caught.value.hint


def test_marked_corners_a_little_outside_the_frame_are_kept() -> None:
    """A corner cut off by the frame is marked just outside it: within the margin, it stands."""
    image = np.full((1200, 675, 3), (8, 182, 254), np.uint8)
    corners = [(-20, 100), (690, 100), (690, 800), (-20, 800)]
    (found,) = find_kingdoms(image, corners=corners, grid=STANDARD_SIZE)
    np.testing.assert_allclose(found.corners, [c for c in corners], atol=1e-6)


def test_very_long_thin_picture_is_a_named_error() -> None:
    strip = np.full((40, 100_000, 3), 120, np.uint8)
    with pytest.raises(BoardNotFoundError, match="too narrow"):
        find_kingdoms(strip)


def test_rectify_has_the_canonical_size() -> None:
    image = np.zeros((400, 300, 3), np.uint8)
    location = BoardLocation(
        corners=np.array([[10, 20], [250, 30], [240, 380], [5, 370]], float), shape=(4, 5)
    )
    assert rectify(image, location, square_px=32).shape == (4 * 32, 5 * 32, 3)


def test_rectify_crops_a_large_photo_at_full_detail(demo_boards: list[Board]) -> None:
    scene = make_scene(4, demo_boards, n_kingdoms=1, remove_cells=False)
    big = cv2.resize(scene.image, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    (found,) = find_kingdoms(big)
    board = rectify(big, found)
    assert board.shape == (500, 500, 3)
    # Squares come out as flat colours with dark seams: seams line up with the grid.
    gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).astype(float)
    seams = gray[:, [100, 200, 300, 400]].mean()
    centres = gray[:, [50, 150, 250, 350, 450]].mean()
    assert seams < centres


def test_alternative_outlines_are_carried_to_the_photos_pixels() -> None:
    corners = np.array([[10, 0], [110, 0], [110, 100], [10, 100]], float)
    inner = BoardLocation(corners, (5, 4), score=1.3)
    location = BoardLocation(inner.corners, (5, 5), alternatives=(inner,))
    full = _to_original(location, 0.5)
    np.testing.assert_allclose(full.alternatives[0].corners, inner.corners * 2)
    np.testing.assert_allclose(full.corners, inner.corners * 2)


@pytest.mark.parametrize("name", ["game1.jpg", "game3.jpg", "game5.jpg"])
def test_real_photos_give_one_duel_kingdom(fixtures: Path, name: str) -> None:
    image = read_fixture(fixtures, name)
    found = find_kingdoms(image)
    assert [loc.shape for loc in found] == [(DUEL_SIZE, DUEL_SIZE)]
    h, w = image.shape[:2]
    area = cv2.contourArea(found[0].corners.astype(np.float32))
    assert 0.15 * h * w < area < 0.8 * h * w


def test_exif_rotated_photo_is_read_upright(fixtures: Path, error: CornerError) -> None:
    upright = read_fixture(fixtures, "game1.jpg")
    # Store the pixels turned a quarter anticlockwise, with EXIF saying "turn clockwise".
    stored = cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)
    pil = Image.fromarray(cv2.cvtColor(stored, cv2.COLOR_BGR2RGB))
    exif = Image.Exif()
    exif[0x0112] = 6
    buf = io.BytesIO()
    pil.save(buf, "JPEG", quality=90, exif=exif)
    image = load_image(buf.getvalue())
    assert image.shape == upright.shape
    (found,) = find_kingdoms(image)
    (direct,) = find_kingdoms(upright)
    assert found.shape == (DUEL_SIZE, DUEL_SIZE)
    assert error(found.corners, direct.corners) < 0.02


def test_rectified_board_is_one_whole_kingdom(shared_data: Path, error: CornerError) -> None:
    image = cv2.imread(str(shared_data / "aau-boards" / "images" / "1.jpg"))
    assert image is not None
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    h, w = image.shape[:2]
    expected = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    assert error(found.corners, expected) < 0.02


@pytest.mark.parametrize(("name", "angle"), [("game1.jpg", 30), ("game3.jpg", 135)])
def test_real_photo_turned_by_any_angle(fixtures: Path, name: str, angle: float) -> None:
    image = read_fixture(fixtures, name)
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    size = (int(h * sin + w * cos), int(h * cos + w * sin))
    m[:, 2] += (size[0] / 2 - w / 2, size[1] / 2 - h / 2)
    turned = cv2.warpAffine(image, m, size, borderMode=cv2.BORDER_REPLICATE)
    (found,) = find_kingdoms(turned)
    (upright,) = find_kingdoms(image)
    assert found.shape == (DUEL_SIZE, DUEL_SIZE)
    # The same four corners, turned with the photo (in some cyclic order).
    moved = upright.corners @ m[:, :2].T + m[:, 2]
    side = np.linalg.norm(moved[1] - moved[0])
    error = min(
        np.linalg.norm(np.roll(found.corners, k, axis=0) - moved, axis=1).mean() for k in range(4)
    )
    assert error < 0.02 * side


def test_an_outline_no_kingdom_has_offers_the_kingdoms_inside_it(
    table_scene: Callable[..., tuple[np.ndarray, np.ndarray]], error: CornerError
) -> None:
    """A 6×5 outline (the kingdom and a row of table beyond it, its squares a little too
    small to fit) is given the two 5×5 grids inside it as alternatives, moved onto the
    kingdom's edges: reading then weighs the right one (scorer.read.verify)."""
    from scorer.detect.find import _with_plausible_alternatives
    from scorer.detect.geometry import Side, extend_location, kingdom_grids
    from scorer.detect.light import balanced
    from scorer.detect.view import View

    image, truth = table_scene()
    kingdom = BoardLocation(truth, (5, 5))
    grown = extend_location(kingdom, Side.BOTTOM)
    centre = grown.corners.mean(axis=0)
    off = BoardLocation(centre + (grown.corners - centre) * 0.97, (6, 5))  # 3% too small
    view = View(balanced(image, DEFAULT.light), None, DEFAULT)
    offered = _with_plausible_alternatives(view, off, view.tiles.lit_mask, DEFAULT.plausible)
    grids = [a for a in offered.alternatives if a.shape == (5, 5)]
    assert len(grids) == 2
    moved = min(error(g.corners, truth) for g in grids)
    cut = min(error(g.corners, truth) for g in kingdom_grids(off, (5, 7)))
    assert moved < 0.01 < cut  # the cut alone was off; moved, it lies on the kingdom's edges


def test_an_outline_a_row_short_offers_the_kingdoms_over_it(
    table_scene: Callable[..., tuple[np.ndarray, np.ndarray]], error: CornerError
) -> None:
    """With ``outlines.grow_rows`` at 1, a 5×4 outline (a shadow or the table's pattern hid
    the last column's seams) is given the two 5×5 grids over it, a column beyond either side,
    as alternatives: one lies on the kingdom, and reading weighs it (scorer.read.verify). At
    0, the value detection runs with (docs/experiments.md, tenth session), none is offered."""
    from dataclasses import replace

    from scorer.detect.find import _with_plausible_alternatives
    from scorer.detect.geometry import Side, extend_location
    from scorer.detect.light import balanced
    from scorer.detect.view import View

    image, truth = table_scene()
    short = extend_location(BoardLocation(truth, (5, 5)), Side.RIGHT, -1)
    offered = {}
    for grow in (0, 1):
        params = replace(DEFAULT, outlines=replace(DEFAULT.outlines, grow_rows=grow))
        view = View(balanced(image, params.light), None, params)
        located = _with_plausible_alternatives(view, short, view.tiles.lit_mask, params.plausible)
        offered[grow] = [a for a in located.alternatives if a.shape == (5, 5)]
    assert len(offered[1]) == 2 and not offered[0]
    assert min(error(g.corners, truth) for g in offered[1]) < 0.01


@pytest.mark.parametrize(
    ("shift", "same"),
    [((0.0, 0.0), True), ((0.3, -0.4), True), ((0.0, 0.6), False), ((-1.0, 0.0), False)],
)
def test_an_outline_within_half_a_square_of_a_grid_found_is_that_grid(
    shift: tuple[float, float], same: bool
) -> None:
    # A 5×4 grid of 20-pixel squares in a slight perspective; a quad whose corners lie
    # ``shift`` squares from its corners, listed from another corner, is the same grid
    # only while every corner is within half a square.
    corners = np.array([[10, 10], [110, 14], [108, 94], [12, 90]], float)
    found = BoardLocation(corners, (4, 5))
    quad = np.roll(corners + np.array(shift) * 20, 2, axis=0)
    assert _same_grid(quad, found) is same
