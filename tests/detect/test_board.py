"""Tests for finding and rectifying kingdoms (scorer.detect)."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from scorer.detect import (
    BoardLocation,
    Side,
    beyond_side,
    extend_location,
    find_kingdoms,
    order_corners,
    parse_corners,
    rectify,
)
from scorer.detect import board as board_module
from scorer.lab.datasets import load_aau_boards
from scorer.lab.synth import SceneKingdom, demo_board, make_scene
from scorer.photo.imageio import load_image
from scorer.rules.errors import BoardNotFoundError, GridNotConsistentError
from scorer.rules.kingdom import DUEL_SIZE, STANDARD_SIZE

DEMO_BOARDS = [demo_board(seed) for seed in range(4)]


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean corner distance as a share of the true kingdom's mean side."""
    side = np.mean([np.linalg.norm(truth[(i + 1) % 4] - truth[i]) for i in range(4)])
    return float(np.linalg.norm(found - truth, axis=1).mean() / side)


def corner_error_any_order(found: np.ndarray, truth: np.ndarray) -> float:
    """:func:`corner_error` over the four cyclic orders of the found corners."""
    return min(corner_error(np.roll(found, k, axis=0), truth) for k in range(4))


def assert_found(found: list[BoardLocation], truth: SceneKingdom, shape: tuple[int, int]) -> None:
    """The found kingdom closest to ``truth`` lies on it (corner error under 5%) with ``shape``."""
    best = min(found, key=lambda loc: corner_error_any_order(loc.corners, truth.corners))
    assert corner_error_any_order(best.corners, truth.corners) < 0.05
    assert best.shape == shape


def assert_scene_kingdom_found(
    data: Path, seed: int, board: str | None = None, shape: tuple[int, int] | None = None
) -> None:
    """Kingdom ``board`` of synthetic scene ``seed`` (its only kingdom when None) is found
    with ``shape`` (its true shape when None)."""
    scene = make_scene(seed, load_aau_boards(data))
    (truth,) = [k for k in scene.kingdoms if board is None or k.board == board]
    assert_found(find_kingdoms(scene.image), truth, truth.shape if shape is None else shape)


def read_fixture(fixtures: Path, name: str) -> np.ndarray:
    image = cv2.imread(str(fixtures / "photos" / name), cv2.IMREAD_COLOR)
    assert image is not None, name
    return image


@pytest.mark.parametrize("seed", [0, 2, 4, 5, 11])
def test_finds_kingdoms_in_generated_scenes(seed: int) -> None:
    scene = make_scene(seed, DEMO_BOARDS, n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    found = find_kingdoms(scene.image)
    assert len(found) == 1
    assert found[0].shape == truth.shape
    assert corner_error(found[0].corners, truth.corners) < 0.03


def test_two_kingdoms_side_by_side_are_ordered_left_to_right() -> None:
    scene = make_scene(7, DEMO_BOARDS, n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    image = np.hstack([scene.image, scene.image])
    shift = np.array([scene.image.shape[1], 0])
    found = find_kingdoms(image)
    assert len(found) == 2
    assert corner_error(found[0].corners, truth.corners) < 0.03
    assert corner_error(found[1].corners, truth.corners + shift) < 0.03


def test_two_kingdoms_in_one_scene_are_both_found() -> None:
    scene = make_scene(0, DEMO_BOARDS, n_kingdoms=2, remove_cells=False)
    found = find_kingdoms(scene.image)
    assert len(found) == len(scene.kingdoms) == 2
    for truth in scene.kingdoms:
        assert min(corner_error(loc.corners, truth.corners) for loc in found) < 0.03


@pytest.mark.parametrize(
    ("removed", "shape"),
    [
        ([(0, 0), (0, 1), (4, 4)], (5, 5)),  # corners missing: the outline is not a square
        ([(0, c) for c in range(5)], (4, 5)),  # a whole border row missing
    ],
)
def test_incomplete_kingdom_with_empty_cells(
    removed: list[tuple[int, int]], shape: tuple[int, int]
) -> None:
    board = DEMO_BOARDS[0].image
    alpha = np.ones(board.shape[:2], np.float32)
    for r, c in removed:
        alpha[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = 0
    rng = np.random.default_rng(0)
    table = (np.full((900, 900, 3), 150.0) + rng.normal(0, 6, (900, 900, 3))).clip(0, 255)
    m = cv2.getRotationMatrix2D((250, 250), 20, 1.0)
    m[:, 2] += (200, 200)
    warped = cv2.warpAffine(board, m, (900, 900))
    a = cv2.warpAffine(alpha, m, (900, 900))[..., None]
    image = (table * (1 - a) + warped * a).astype(np.uint8)
    (found,) = find_kingdoms(image)
    assert sorted(found.shape) == sorted(shape)


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


def test_user_corners_skip_detection_and_grid_is_forced() -> None:
    scene = make_scene(2, DEMO_BOARDS, n_kingdoms=1, remove_cells=False)
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


def test_rectify_crops_a_large_photo_at_full_detail() -> None:
    scene = make_scene(4, DEMO_BOARDS, n_kingdoms=1, remove_cells=False)
    big = cv2.resize(scene.image, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    (found,) = find_kingdoms(big)
    board = rectify(big, found)
    assert board.shape == (500, 500, 3)
    # Squares come out as flat colours with dark seams: seams line up with the grid.
    gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).astype(float)
    seams = gray[:, [100, 200, 300, 400]].mean()
    centres = gray[:, [50, 150, 250, 350, 450]].mean()
    assert seams < centres


def test_order_corners_starts_at_the_top_side_and_runs_clockwise() -> None:
    rng = np.random.default_rng(0)
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    ordered = order_corners(square[rng.permutation(4)])
    np.testing.assert_array_equal(ordered, square)


def test_parse_corners_rejects_wrong_counts() -> None:
    with pytest.raises(ValueError, match="eight numbers"):
        parse_corners("1,2,3")


@pytest.mark.parametrize("name", ["game1.jpg", "game3.jpg", "game5.jpg"])
def test_real_photos_give_one_duel_kingdom(fixtures: Path, name: str) -> None:
    image = read_fixture(fixtures, name)
    found = find_kingdoms(image)
    assert [loc.shape for loc in found] == [(DUEL_SIZE, DUEL_SIZE)]
    h, w = image.shape[:2]
    area = cv2.contourArea(found[0].corners.astype(np.float32))
    assert 0.15 * h * w < area < 0.8 * h * w


def test_exif_rotated_photo_is_read_upright(fixtures: Path) -> None:
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
    assert corner_error(found.corners, direct.corners) < 0.02


def test_rectified_board_is_one_whole_kingdom(shared_data: Path) -> None:
    image = cv2.imread(str(shared_data / "aau-boards" / "images" / "1.jpg"))
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    h, w = image.shape[:2]
    expected = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    assert corner_error(found.corners, expected) < 0.02


def test_synthetic_scenes_of_real_boards(shared_data: Path) -> None:
    boards = load_aau_boards(shared_data)
    found = 0
    seeds = range(50, 60)
    for seed in seeds:
        scene = make_scene(seed, boards, n_kingdoms=1)
        try:
            locations = find_kingdoms(scene.image)
        except BoardNotFoundError:
            continue
        truth = scene.kingdoms[0].corners
        found += min(corner_error(loc.corners, truth) for loc in locations) < 0.05
    assert found >= 8


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


# --- table scenes built by hand: one failure mode each -------------------------------------------

_BOARD_AT = (200.0, 200.0)
_BOARD_ANGLE = 20.0


def table_scene(
    removed: list[tuple[int, int]] = (),  # type: ignore[assignment]
    *,
    table: tuple[float, float, float] = (150.0, 150.0, 150.0),
    beside: list[tuple[float, float, float, float]] = (),  # type: ignore[assignment]
    shade: float = 1.0,
    lines: list[tuple[tuple[int, int], tuple[int, int], int]] = (),  # type: ignore[assignment]
) -> tuple[np.ndarray, np.ndarray]:
    """A demo board turned on a plain 900-px table; its true corners.

    ``beside`` lists rectangles in board pixels (x0, y0, x1, y1; a square is 100
    px) where the table is multiplied by ``shade`` (below 1 a shadow, above 1
    glare); ``lines`` are stray lines (from, to, thickness) drawn on the table.
    """
    board = DEMO_BOARDS[0].image
    alpha = np.ones(board.shape[:2], np.float32)
    for r, c in removed:
        alpha[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = 0
    rng = np.random.default_rng(0)
    image = (np.full((900, 900, 3), table) + rng.normal(0, 6, (900, 900, 3))).clip(0, 255)
    m = cv2.getRotationMatrix2D((250, 250), _BOARD_ANGLE, 1.0)
    m[:, 2] += _BOARD_AT
    light = np.zeros((900, 900), np.float32)
    for x0, y0, x1, y1 in beside:
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float) @ m[:, :2].T + m[:, 2]
        cv2.fillPoly(light, [corners.astype(np.int32)], 1.0)
    light = cv2.GaussianBlur(light, (0, 0), 2)
    image = (image * (1 + (shade - 1) * light[..., None])).clip(0, 255)
    for p, q, thickness in lines:
        cv2.line(image, p, q, (200, 60, 220), thickness)
    warped = cv2.warpAffine(board, m, (900, 900))
    a = cv2.warpAffine(alpha, m, (900, 900))[..., None]
    image = (image * (1 - a) + warped * a).astype(np.uint8)
    square = np.array([[0, 0], [500, 0], [500, 500], [0, 500]], float)
    return image, order_corners(square @ m[:, :2].T + m[:, 2])


@pytest.mark.parametrize(
    ("shade", "where"),
    [
        (0.45, (500, 0, 600, 500)),  # a shadow one square wide along the right side
        (0.45, (-100, -100, 600, 0)),  # a shadow along the top
        (1.6, (0, 500, 500, 600)),  # glare along the bottom
    ],
)
def test_shadow_or_glare_beside_a_kingdom_is_not_a_row(
    shade: float, where: tuple[float, float, float, float]
) -> None:
    image, truth = table_scene(beside=[where], shade=shade)
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert corner_error(found.corners, truth) < 0.03


def test_kingdom_in_a_large_shadow_is_found_whole() -> None:
    image, truth = table_scene(beside=[(-150, -150, 650, 650)], shade=0.5)
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert corner_error(found.corners, truth) < 0.03


@pytest.mark.parametrize("kept", [0, 2, 4])
def test_row_with_one_square_left_still_counts(kept: int) -> None:
    # Row 0 holds a single square (a dark one at column 0): the kingdom is still 5×5.
    image, truth = table_scene(removed=[(0, c) for c in range(5) if c != kept])
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert corner_error(found.corners, truth) < 0.03


@pytest.mark.parametrize(
    "lines",
    [
        [((0, 130), (899, 250), 9)],  # a thick line across the kingdom to both edges
        [((0, 0), (260, 230), 7), ((899, 20), (700, 450), 5)],  # lines ending on the kingdom
    ],
)
def test_stray_lines_stuck_to_a_kingdom_are_not_part_of_it(
    lines: list[tuple[tuple[int, int], tuple[int, int], int]],
) -> None:
    image, truth = table_scene(lines=lines)
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert corner_error(found.corners, truth) < 0.03


def test_kingdoms_joined_by_a_line_are_found_apart() -> None:
    scene = make_scene(7, DEMO_BOARDS, n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    image = np.hstack([scene.image, scene.image])
    shift = np.array([scene.image.shape[1], 0])
    a = truth.corners.mean(axis=0)
    b = a + shift
    h = image.shape[0]
    # One line through both kingdoms and on to the photo's edges.
    d = (b - a) / np.linalg.norm(b - a)
    p, q = a - d * 2 * h, b + d * 2 * h
    cv2.line(image, tuple(int(v) for v in p), tuple(int(v) for v in q), (220, 40, 200), 8)
    found = find_kingdoms(image)
    assert len(found) == 2
    assert corner_error(found[0].corners, truth.corners) < 0.03
    assert corner_error(found[1].corners, truth.corners + shift) < 0.03


def test_kingdom_without_its_top_row_is_not_grown_to_a_square() -> None:
    image, truth = table_scene(removed=[(0, c) for c in range(5)])
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE - 1, STANDARD_SIZE)
    tl, tr, br, bl = truth
    expected = np.array([tl + (bl - tl) / 5, tr + (br - tr) / 5, br, bl])
    assert corner_error(found.corners, expected) < 0.03


@pytest.mark.parametrize(
    ("seed", "board"),
    [
        (6147, None),
        (7098, None),
        (7398, None),
        (5060, None),
        (6313, None),
        (7242, None),
        (5221, "48"),
        (6217, "68"),
        (7376, "68"),
        (6055, "64"),
    ],
)
def test_hard_edges_still_give_one_five_by_five_kingdom(
    shared_data: Path, seed: int, board: str | None
) -> None:
    # 6147, 7098, 7398: an edge row hard to tell from the table by colour (lake on
    # a blue cutting mat, dark squares on carpet) is kept. 5060, 6313: a domino or
    # stray shape touching the kingdom does not stretch its outline to 7×5 or 5×7.
    # 7242: a kingdom in shadow and blur, its seams clear across the rows only.
    # 5221, 6217, 7376: an edge row in shadow or glare, taken for table in that
    # light, grows back. 6055: dark squares along two edges on carpet, found 4×4,
    # grow back a row and a column. ``board`` names the one kingdom checked, if not all.
    scene = make_scene(seed, load_aau_boards(shared_data))
    found = find_kingdoms(scene.image)
    for truth in scene.kingdoms:
        if board is not None and truth.board != board:
            continue
        assert_found(found, truth, (STANDARD_SIZE, STANDARD_SIZE))


@pytest.mark.parametrize(
    ("seed", "board", "shape"),
    [(9110, "8", (5, 5)), (9275, "56", (5, 5)), (5153, "65", (5, 5)), (20030, "29", (5, 5))],
)
def test_sparse_edge_row_counts_when_its_tiles_line_up_with_the_grid(
    shared_data: Path, seed: int, board: str, shape: tuple[int, int]
) -> None:
    # 9110: an edge column holding one pale square; 9275: an edge row holding three
    # squares as brown as the wooden table. Their edges lie on the grid's lines, so
    # they belong to the kingdom. 5153: a patch of glare beside a kingdom, its edges
    # soft, is no column of it. 20030: a lone pale grassland square in an edge column,
    # its edge against the table faint along the column.
    assert_scene_kingdom_found(shared_data, seed, board, shape)


def test_side_whose_edge_row_is_glare_does_not_grow_past_it(shared_data: Path) -> None:
    # 9342: the outline takes in two rows of glare below a 4×5 kingdom, and a domino
    # lies beyond them: the glare rows are dropped, not grown to reach the domino.
    scene = make_scene(9342, load_aau_boards(shared_data))
    (truth,) = scene.kingdoms
    (found,) = find_kingdoms(scene.image)
    assert corner_error_any_order(found.corners, truth.corners) < 0.05
    assert found.shape == (STANDARD_SIZE - 1, STANDARD_SIZE)


def test_dark_cutting_mat_whose_lines_are_as_sharp_further_out_is_not_a_row(
    shared_data: Path,
) -> None:
    # 9083: in shadow, a cutting mat looks like dark tiles by colour and its printed
    # lines like a row's sharp edge; a square further out they are as sharp.
    assert_scene_kingdom_found(shared_data, 9083, "30", (STANDARD_SIZE, STANDARD_SIZE))


@pytest.mark.parametrize("seed", [20163, 20463])
def test_dark_rows_in_a_large_shadow_stay_in_the_kingdom(shared_data: Path, seed: int) -> None:
    # Board 11's dark forest rows in shadow match the table's shaded colours; their
    # outer edge is much sharper than the seam inside them, unlike a strip of shadow.
    assert_scene_kingdom_found(shared_data, seed, "11")


@pytest.mark.parametrize("seed", [11001, 11240])
def test_outline_stretched_over_the_table_is_not_chosen(shared_data: Path, seed: int) -> None:
    # 11001: an outline over a cutting mat's printed grid, whose lines look like clear
    # seams; 11240: an outline reaching out to a domino. Each holds a few more tile
    # pixels than the kingdom's own outline, and much more table.
    assert_scene_kingdom_found(shared_data, seed)


def test_kingdoms_joined_by_a_shadow_are_found_apart(shared_data: Path) -> None:
    # 11589: a shadow as dark as tiles joins three kingdoms into one area of the tile
    # mask; seen apart from shadow, they are three places, each a kingdom.
    scene = make_scene(11589, load_aau_boards(shared_data))
    found = find_kingdoms(scene.image)
    assert len(found) == len(scene.kingdoms) == 3
    for truth in scene.kingdoms:
        best = min(found, key=lambda loc: corner_error_any_order(loc.corners, truth.corners))
        assert corner_error_any_order(best.corners, truth.corners) < 0.05


def test_kingdom_that_glare_breaks_into_unequal_pieces_is_one_place(shared_data: Path) -> None:
    # 20433: lines join a kingdom and a domino on orange wood; seen apart from glare,
    # the kingdom's yellow squares pass for lit table and it falls into a large piece
    # and a small one. Those are not two kingdoms, so its outline stays a candidate.
    assert_scene_kingdom_found(shared_data, 20433)


def test_only_groups_of_a_kingdoms_size_are_separate_places() -> None:
    def square(x: int, side: int) -> np.ndarray:
        return np.array([[x, 0], [x + side, 0], [x + side, side], [x, side]], np.int32)

    alike = [[square(0, 100)], [square(200, 90)], [square(400, 95)]]
    assert len(board_module._places(alike)) == 3
    one_large = [[square(0, 100)], [square(200, 40)]]  # a sixth of the area
    assert len(board_module._places(one_large)) == 1


def test_square_row_grows_on_the_side_that_holds_it(shared_data: Path) -> None:
    # 11401: a 5×5 kingdom found 4×5. The squares beyond its top are a strip of
    # shadow, more tile-like by colour; those beyond its bottom, a forest and bare
    # table, are its row: the bottom grows.
    scene = make_scene(11401, load_aau_boards(shared_data))
    (truth,) = scene.kingdoms
    (found,) = find_kingdoms(scene.image)
    assert corner_error_any_order(found.corners, truth.corners) < 0.05
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)


@pytest.mark.parametrize("line_at", [244, 247, 250])
def test_a_side_snaps_to_the_kingdom_edge_not_to_a_thin_line_beside_it(line_at: int) -> None:
    image = np.full((300, 300, 3), 90, np.uint8)
    image[60:240, 60:240] = (40, 160, 200)  # the kingdom, its right edge at x = 240
    image[:, line_at] = 250  # a cutting mat's thin printed line a few pixels outside
    guess = np.array([[60, 60], [244, 60], [244, 239], [60, 239]], np.float32)
    refined = board_module._refine_quad(board_module._gradients(image), guess)
    assert np.abs(refined[1:3, 0] - 240).max() <= 1.0


def test_square_row_edge_is_found_a_little_off_the_extended_grid(shared_data: Path) -> None:
    # 11017: a 5×5 kingdom found 5×4, its last column lakes on a purple cloth, by
    # colour much like the table. The grid extended by a square misses that
    # column's outer edge by a tenth of a square; looked for nearby, it is sharp.
    assert_scene_kingdom_found(shared_data, 11017, shape=(STANDARD_SIZE, STANDARD_SIZE))


def test_dark_green_square_on_a_grey_mat_is_tile_by_colour() -> None:
    # A forest square in shade on a black cutting mat: within the colour distance of
    # the mat, but the mat is grey and the square is not.
    rng = np.random.default_rng(0)
    image = (np.full((300, 300, 3), 45.0) + rng.normal(0, 3, (300, 300, 3))).clip(0, 255)
    image[100:200, 100:200] = (30, 55, 38)  # dark green (BGR)
    mask, *_ = board_module._tile_mask(image.astype(np.uint8))
    inside, outside = mask[110:190, 110:190], mask[:, :90]
    assert (inside > 0).mean() > 0.95
    assert (outside > 0).mean() < 0.01


def test_colour_cue_is_off_on_a_table_of_many_colours() -> None:
    # On a patterned carpet colour alone says nothing: only the colour distance counts.
    lab = np.zeros((50, 50, 3), np.float32)
    lab[..., 0] = 40.0
    lab[::2, :, 1:] = (12.0, 25.0)
    lab[1::2, :, 1:] = (-20.0, 5.0)
    lab[20:30, 20:30, 1:] = (30.0, -30.0)
    border = np.concatenate([lab[:3].reshape(-1, 3), lab[-3:].reshape(-1, 3)])
    assert not board_module._colour_off_table(lab, border).any()


def test_darker_square_of_another_hue_on_a_brown_table_is_tile_by_colour() -> None:
    # A brown wooden table in shade keeps its hue; a dark forest square does not.
    # A lighter spot off the table's hue (glare) is left to the colour distance.
    lab = np.zeros((60, 60, 3), np.float32)
    lab[...] = (50.0, 12.0, 25.0)
    lab[:, 30:] = (30.0, 7.2, 15.0)  # the same table in shade
    lab[10:25, 35:50] = (28.0, -6.0, 12.0)  # dark green, in the shade
    lab[40:55, 5:20] = (80.0, 2.0, 14.0)  # glare: lighter, paler
    border = lab[:3].reshape(-1, 3)
    colour = board_module._colour_off_table(lab, border)
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
    lab = board_module._lab(image)
    border = lab[:3, :30].reshape(-1, 3)
    colour = board_module._colour_off_table(lab, border)
    assert colour[14:21, 39:46].all()
    assert not colour[:, 30:][30:].any()
    assert not colour[:, :30].any()


@pytest.mark.parametrize("seed", [11019, 11457])
def test_dark_squares_on_a_grey_cutting_mat_are_part_of_the_kingdom(
    shared_data: Path, seed: int
) -> None:
    # Forests and mines in shade on a dark grey mat were missing from the tile mask,
    # and no outline held a consistent grid.
    assert_scene_kingdom_found(shared_data, seed)


@pytest.mark.parametrize(("seed", "board"), [(9026, "45"), (11205, "51")])
def test_glare_spot_beside_a_kingdom_is_table(shared_data: Path, seed: int, board: str) -> None:
    # A spot of reflected light on the table next to a kingdom, brighter than any mix
    # of the table's colour with white: taken for tiles, it stretched the outline.
    assert_scene_kingdom_found(shared_data, seed, board)


def test_outline_a_little_off_at_a_corner_is_moved_onto_the_seams() -> None:
    # Squares of many colours with dark seams; the outline's top-right corner is
    # a fifth of a square off, so the seams cross its grid aslant.
    rng = np.random.default_rng(0)
    image = np.full((600, 800, 3), 120, np.uint8)
    for r in range(STANDARD_SIZE):
        for c in range(STANDARD_SIZE):
            image[150 + 60 * r : 210 + 60 * r, 250 + 60 * c : 310 + 60 * c] = rng.integers(
                40, 230, 3
            )
    for k in range(STANDARD_SIZE + 1):
        image[150:450, 249 + 60 * k : 251 + 60 * k] = 20
        image[149 + 60 * k : 151 + 60 * k, 250:550] = 20
    truth = np.array([[250, 150], [550, 150], [550, 450], [250, 450]], float)
    off = truth.copy()
    off[1] += (-12, 9)
    location = board_module._locate(image, off, grid=None, require_grid=False)
    assert location is not None
    assert location.shape == (STANDARD_SIZE, STANDARD_SIZE)
    moved = board_module._onto_seams(image, board_module._gradients(image), location, None)
    assert moved.score > location.score
    assert np.abs(moved.corners - truth).max() < 4.0 < np.abs(off - truth).max()


def test_lattice_fit_needs_seams_to_fit() -> None:
    flat = np.full((600, 800, 3), 120, np.uint8)
    quad = np.array([[250, 150], [550, 150], [550, 450], [250, 450]], float)
    assert board_module._lattice_quad(flat, quad, (STANDARD_SIZE, STANDARD_SIZE)) is None


@pytest.mark.parametrize(("seed", "board"), [(5221, "17"), (10002, "54")])
def test_faint_outline_round_an_irregular_tile_area_is_moved_onto_its_seams(
    shared_data: Path, seed: int, board: str
) -> None:
    # No outline drawn round the tile area showed a clear grid: each was a fraction
    # of a square off at a corner. Fitted to the seams inside, one shows it.
    assert_scene_kingdom_found(shared_data, seed, board)


@pytest.mark.parametrize(("seed", "board"), [(10168, "37"), (10236, "11"), (11229, "71")])
def test_dark_tiles_on_a_table_of_one_colour_are_part_of_the_kingdom(
    shared_data: Path, seed: int, board: str
) -> None:
    # Forests and swamps in shade on a green or brown table were within the colour
    # distance of the table in shade, but not of its hue: the kingdom came out a row
    # or two short.
    assert_scene_kingdom_found(shared_data, seed, board)


def _rows_faint(row_seams: int, five_share: float, column_seams: float = 60.0) -> np.ndarray:
    """A 400-pixel square of grey noise with 5 columns of dark seams (``column_seams``
    darker), faint row seams of a ``row_seams``-row grid, and fainter still
    (``five_share`` as dark) those of a 5-row grid."""
    rng = np.random.default_rng(0)
    side = 400
    gray = np.full((side, side), 128.0) + rng.normal(0, 6, (side, side))
    for k in range(1, STANDARD_SIZE):
        gray[:, 80 * k - 1 : 80 * k + 1] -= column_seams
    for n, darker in ((row_seams, 5.0), (STANDARD_SIZE, 5.0 * five_share)):
        for k in range(1, n):
            y = round(k * side / n)
            gray[y - 1 : y + 1, :] -= darker
    return np.dstack([np.clip(gray, 0, 255).astype(np.uint8)] * 3)


@pytest.mark.parametrize(
    ("five_share", "column_seams", "expected"),
    [
        (0.9, 60.0, (STANDARD_SIZE, STANDARD_SIZE)),  # nearly as clear: a full kingdom
        (0.3, 60.0, (4, STANDARD_SIZE)),  # far fainter: the 4 rows stand
        (0.9, 4.0, (4, STANDARD_SIZE)),  # no clear axis to go by
    ],
)
def test_faint_axis_counts_a_full_kingdom_when_its_seams_allow(
    five_share: float, column_seams: float, expected: tuple[int, int]
) -> None:
    image = _rows_faint(4, five_share, column_seams)
    quad = np.array([[0, 0], [400, 0], [400, 400], [0, 400]], float)
    found = board_module._locate(image, quad, grid=None, require_grid=False)
    assert found is not None
    assert found.shape == (4, STANDARD_SIZE)  # the faint rows fit 4 best
    table = np.zeros(image.shape[:2], np.float32)
    assert board_module._prefer_full(image, (table, table), found).shape == expected


@pytest.mark.parametrize(("seed", "board"), [(40007, "40"), (40467, "33"), (40580, "74")])
def test_kingdom_with_faint_seams_one_way_is_found_full(
    shared_data: Path, seed: int, board: str
) -> None:
    # Blurred kingdoms on cutting mats, their row (or column) seams faint: a grid of
    # 4 fitted them a little better than the kingdom's 5.
    assert_scene_kingdom_found(shared_data, seed, board)


def _blue_mat_with_a_lake(shade: float = 1.0) -> np.ndarray:
    """A navy cutting mat with white lines every 12 px, and a plain blue square on it."""
    image = np.full((240, 240, 3), (110, 50, 20), np.float64)  # navy (BGR)
    image[::12, :] = image[:, ::12] = (235, 235, 235)
    image[100:160, 100:160] = (170, 90, 30)  # a lake's blue, lighter than the mat
    return (image * shade).clip(0, 255).astype(np.uint8)


@pytest.mark.parametrize("shade", [1.0, 0.45])
def test_square_without_the_mats_lines_is_plain_in_light_and_shade(shade: float) -> None:
    texture = board_module._table_texture_map(_blue_mat_with_a_lake(shade))
    assert texture is not None
    quad = np.array([[40, 40], [220, 40], [220, 220], [40, 220]], float)  # 3×3 squares of 60 px
    plain = board_module._cell_plainness(texture, quad, 3, 3)  # ring included: 5×5
    assert plain[2, 2] == pytest.approx(1.0)  # the lake: the middle square
    mat = np.delete(plain[1:4, 1:4].ravel(), 4)  # the other eight squares are mat
    assert np.nanmax(mat) == 0.0


def test_table_without_a_fine_pattern_has_no_texture_cue() -> None:
    image = np.full((240, 240, 3), (110, 50, 20), np.uint8)
    image[100:160, 100:160] = (170, 90, 30)
    assert board_module._table_texture_map(image) is None


def test_lake_row_on_a_blue_cutting_mat_stays_in_the_kingdom(shared_data: Path) -> None:
    # 40533: the lakes of the kingdom's edge row are as blue as the mat, so by colour
    # they are table, and their edge against it is faint; but they lack its lines.
    assert_scene_kingdom_found(shared_data, 40533)


TILTED = BoardLocation(
    np.array([[120, 80], [520, 110], [560, 600], [90, 560]], np.float64),
    (5, 4),
    empty=frozenset({(0, 0)}),
    tiles=frozenset({(4, 3)}),
)
"""A 5×4 kingdom seen in perspective, with one square seen as table and one as tile."""


@pytest.mark.parametrize(
    ("side", "shape", "kept", "offset"),
    [
        (Side.TOP, (6, 4), [2, 3], (1, 0)),
        (Side.BOTTOM, (6, 4), [0, 1], (0, 0)),
        (Side.LEFT, (5, 5), [1, 2], (0, 1)),
        (Side.RIGHT, (5, 5), [0, 3], (0, 0)),
    ],
)
def test_a_location_grows_by_the_row_beyond_one_side(
    side: Side, shape: tuple[int, int], kept: list[int], offset: tuple[int, int]
) -> None:
    grown = extend_location(TILTED, side)
    assert grown.shape == shape
    # The far side stays where it was; the near side is the strip's outer side.
    np.testing.assert_allclose(grown.corners[kept], TILTED.corners[kept], atol=1e-3)
    strip = beyond_side(TILTED)[side]
    assert 1 in strip.shape
    moved = [i for i in range(4) if i not in kept]
    np.testing.assert_allclose(grown.corners[moved], strip.corners[moved], atol=1e-3)
    dr, dc = offset
    assert grown.empty == {(dr, dc)}
    assert grown.tiles == {(4 + dr, 3 + dc)}


def test_the_row_beyond_follows_the_perspective() -> None:
    quad = np.array([[100, 100], [300, 100], [400, 300], [0, 300]], np.float64)  # a trapezoid
    strip = beyond_side(BoardLocation(quad, (2, 2)))[Side.BOTTOM]
    below = strip.corners[2:]
    # Farther from the camera squares shrink: the next row down is wider and deeper
    # than a copy of the last row would be.
    assert below[0, 0] - below[1, 0] > 400
    assert below[0, 1] - 300 > 100


def _outline(x0: float, shape: tuple[int, int], score: float) -> BoardLocation:
    corners = np.array([[x0, 0], [x0 + 100, 0], [x0 + 100, 100], [x0, 100]], float)
    return BoardLocation(corners, shape, score=score)


def test_an_area_whose_seams_are_faint_keeps_its_nearly_as_clear_outlines() -> None:
    best = _outline(0, (5, 4), 1.5)
    near, nearer = _outline(3, (5, 5), 1.1), _outline(4, (5, 5), 1.4)
    far, none = _outline(6, (5, 5), 0.9), None
    assert board_module._rivals([best, near, far, none, nearer], best) == [nearer, near]


def test_alternative_outlines_repeat_neither_the_chosen_one_nor_each_other() -> None:
    chosen = _outline(0, (5, 5), 1.5)
    same = _outline(2, (5, 5), 1.4)  # 2 px off, a tenth of a 20-px square
    other_grid = _outline(0, (5, 4), 1.4)
    moved, moved_again = _outline(10, (5, 5), 1.3), _outline(11, (5, 5), 1.3)
    kept = board_module._distinct(chosen, [same, other_grid, moved, moved_again])
    assert kept == (other_grid, moved)
    many = [_outline(0, (r, c), 1.4) for r, c in ((4, 4), (4, 5), (5, 4), (6, 5))]
    assert len(board_module._distinct(chosen, many)) == board_module._MAX_ALTERNATIVES


def test_alternative_outlines_are_carried_to_the_photos_pixels() -> None:
    inner = _outline(10, (5, 4), 1.3)
    location = BoardLocation(inner.corners, (5, 5), alternatives=(inner,))
    full = board_module._to_original(location, 0.5)
    np.testing.assert_allclose(full.alternatives[0].corners, inner.corners * 2)
    np.testing.assert_allclose(full.corners, inner.corners * 2)


@pytest.mark.parametrize("seed", [7, 17, 28])
def test_alternative_outlines_are_other_grids_of_the_same_tiles(
    shared_data: Path, seed: int
) -> None:
    scene = make_scene(seed, load_aau_boards(shared_data))
    kept = [loc for loc in find_kingdoms(scene.image) if loc.alternatives]
    assert kept  # these scenes hold a kingdom whose area has several plausible outlines
    for location in kept:
        assert len(location.alternatives) <= board_module._MAX_ALTERNATIVES
        for other in location.alternatives:
            assert not board_module._same_outline(location, other)
            assert other.alternatives == ()
            assert board_module._overlap(location, other)


@pytest.mark.parametrize("seed", range(4))
def test_a_kingdom_alone_on_plain_table_has_one_outline(seed: int) -> None:
    scene = make_scene(seed, DEMO_BOARDS, n_kingdoms=1, remove_cells=False)
    (location,) = find_kingdoms(scene.image)
    assert location.alternatives == ()


@pytest.mark.parametrize("angle", [0.0, 20.0, -35.0])
def test_seam_lattice_guesses_lay_the_grid_from_pieces_of_the_kingdom(angle: float) -> None:
    # Only three scattered squares are seen as tile (shadow hides the rest): the
    # outline of those pieces is far from the kingdom's, but their edges and the
    # seams between the hidden squares still lie on the kingdom's lattice.
    image, truth = table_scene()
    centre = truth.mean(axis=0)
    turn = cv2.getRotationMatrix2D(tuple(map(float, centre)), angle - _BOARD_ANGLE, 1.0)
    image = cv2.warpAffine(image, turn, image.shape[1::-1], borderMode=cv2.BORDER_REFLECT)
    truth = order_corners(np.hstack([truth, np.ones((4, 1))]) @ turn.T)
    to_photo = cv2.getPerspectiveTransform(
        np.array([[0, 0], [5, 0], [5, 5], [0, 5]], np.float32), truth.astype(np.float32)
    )
    lit = np.zeros(image.shape[:2], np.uint8)
    for r, c in [(1, 1), (1, 3), (3, 2)]:
        square = np.array([[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]], np.float32)
        cv2.fillConvexPoly(
            lit, cv2.perspectiveTransform(square[None], to_photo)[0].astype(np.int32), 255
        )
    pieces = np.array([[1, 1], [4, 1], [4, 4], [1, 4]], np.float32)
    piece_quad = cv2.perspectiveTransform(pieces[None], to_photo)[0].astype(np.float64)
    guesses = board_module._seam_lattice_guesses(image, [piece_quad], lit, None)
    assert corner_error(piece_quad, truth) > 0.15
    assert min(corner_error_any_order(g, truth) for g in guesses) < 0.03


def test_seam_lattice_guesses_on_a_plain_patch_are_none() -> None:
    image = np.full((300, 300, 3), 120, np.uint8)
    quad = np.array([[100, 100], [200, 100], [200, 200], [100, 200]], np.float64)
    lit = np.zeros((300, 300), np.uint8)
    assert board_module._seam_lattice_guesses(image, [quad], lit, None) == []


def test_kingdom_in_pieces_is_found_on_its_seam_lattice(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 50217: dark squares and shadow on a carpet break the tile mask into pieces, and
    # no outline of them shows a clear grid; a 5×5 grid laid on the lattice of the
    # seams lies on the kingdom (the pipeline's reading then sets its rows).
    scene = make_scene(50217, load_aau_boards(shared_data))
    (truth,) = scene.kingdoms
    (found,) = find_kingdoms(scene.image)
    assert corner_error_any_order(found.corners, truth.corners) < 0.25
    monkeypatch.setattr(board_module, "_seam_lattice_guesses", lambda *args: [])
    with pytest.raises(BoardNotFoundError):
        find_kingdoms(scene.image)
