"""Read a kingdom detection found, and correct its outline by what is read.

Detection sees colours and edges, not terrains. Reading its squares tests the
outline it proposes: a row read as bare table all across is no part of the
kingdom, a row left out as table that reads as crowned tiles is, a kingdom
always holds its castle, and of nearly equal outlines the one whose squares
read most clearly is right. Only :mod:`scorer.detect`'s public names are used.

>>> from scorer.read.classify import predict_from_probabilities
>>> from scorer.rules.kingdom import ALL_CELLS, CASTLE
>>> sure = np.zeros((2, 2, len(ALL_CELLS)))
>>> sure[..., ALL_CELLS.index(CASTLE)] = 1.0
>>> reading_clarity(predict_from_probabilities(sure))
0.0
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final, NamedTuple

import numpy as np

from scorer.detect import (
    MIN_SIDE,
    SQUARE_PX,
    BoardLocation,
    Side,
    beyond_side,
    extend_location,
    rectify,
)
from scorer.read.cells import split_cells
from scorer.read.classify import (
    BoardPrediction,
    CellClassifier,
    classify_board,
    default_model,
    doubtful_squares,
    predict_from_probabilities,
)
from scorer.read.decoding import castle_places, decode, whole_domino_changes
from scorer.read.light import (
    NEUTRAL,
    Light,
    corrected,
    fit_affine,
    fit_colours,
    outside_bands,
    plausible_light,
    square_colours,
)
from scorer.read.params import DEFAULT, ReadParams
from scorer.read.sides import side_sharpness
from scorer.read.unreadable import (
    squares_like_table,
    squares_unlike_table,
    unreadable_squares,
    with_unreadable,
)
from scorer.read.verify import verified_outline
from scorer.rules.kingdom import (
    ALL_CELLS,
    CASTLE,
    DUEL_SIZE,
    EMPTY,
    STANDARD_SIZE,
    Position,
)

_EPS: Final = 1e-12
"""Floor of a square's summed probabilities when they are normalised again."""


class Reading(NamedTuple):
    """A kingdom's outline in the photo, its rectified board and what was read on it."""

    location: BoardLocation
    board: np.ndarray
    prediction: BoardPrediction


def read_and_correct(
    image: np.ndarray,
    found: BoardLocation,
    board: np.ndarray,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    *,
    grid: int | None = None,
    refine: bool = True,
    params: ReadParams = DEFAULT,
) -> tuple[BoardLocation | None, Reading]:
    """Read a kingdom as detection found it, correct its outline, and weigh its alternatives.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    found : BoardLocation
        The kingdom as detection found it, with its alternatives.
    board : ndarray
        Its rectified board (:func:`scorer.detect.rectify`).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in ``board``.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.
    refine : bool
        Whether what is read may correct the outline (off for corners the player marked).
    params : ReadParams
        The tuned values of the corrections.

    Returns
    -------
    outline : BoardLocation or None
        The other outline taken (:func:`scorer.read.verify.verified_outline`), or None
        when the first stands.
    reading : Reading
        The kingdom as read, its outline corrected (:func:`read_rectified`), its board in
        the training light where the photo's light was far from it
        (:func:`scorer.read.light.outside_bands`; but a veil of glare, a gain with a lift
        inside the bands, is only tried: ``_veiled``) or reads clearer in it (``_tried_light``),
        the squares the two lights tried read differently doubtful (on the outline kept),
        its squares that cannot be read flagged
        (:func:`scorer.read.unreadable.with_unreadable`), and, where its tile squares cannot
        all be paired into dominoes, those a grid of whole dominoes reads differently
        doubtful (``_with_domino_doubts``), whether the outline was found or marked.
    """
    colours = square_colours(board, found.shape)
    fitted = fit_colours(colours)
    light, first, other = outside_bands(fitted, params), None, None
    if light is not NEUTRAL and params.light_lift and _veiled(colours, fitted, params):
        light = NEUTRAL  # a veil, not the exposure: tried like a light inside the bands
    if params.light_trial and light is NEUTRAL:
        light, first, other = _tried_light(board, found.shape, fitted, model, params)
    taken = image  # glare is judged in the photo as taken: a darkened highlight is still glare
    image, board = corrected(image, light), corrected(board, light)
    reading = read_rectified(
        image, found, board, model, square_px, grid=grid, refine=refine, params=params, first=first
    )
    outline = None
    if refine:
        # Of the outlines detection proposed, the one that reads best (scorer.read.verify).
        reader = default_model() if model is None else model
        outline, reading, _ = verified_outline(
            found,
            reading,
            lambda loc: read_rectified(
                image,
                loc,
                rectify(image, loc, square_px),
                reader,
                square_px,
                grid=grid,
                params=params,
            ),
            lambda strip: _read_strip(image, strip, reader, square_px),
            image.shape,
            better_by=params.clearer_by,
            floor=params.clarity_floor,
            params=params,
            sides=lambda loc: side_sharpness(image, loc, params.strip_in_photo),
        )
    location, board, prediction = reading
    seen = board if taken is image else rectify(taken, location, square_px)  # as photographed
    if params.light_disagreement and first and other:
        if location is not found:
            # Both lights read the found outline: read the one taken in both.
            other_light = fitted if light is NEUTRAL else NEUTRAL
            first = classify_board(board, location.shape, model, doubt_below=params.doubt_below)
            other = classify_board(
                corrected(seen, other_light), location.shape, model, doubt_below=params.doubt_below
            )
        prediction = _with_light_doubts(prediction, first, other)
    prediction = _with_castle_doubts(prediction, params)
    hidden = unreadable_squares(seen, location, prediction, taken, params)
    prediction = with_unreadable(prediction, hidden, doubt_below=params.doubt_below)
    if params.domino_doubt:
        prediction = _with_domino_doubts(prediction)
    return outline, Reading(location, board, prediction)


def _veiled(colours: np.ndarray, light: Light, params: ReadParams) -> bool:
    """Whether a light fitted outside the normal bands as a gain to a kingdom's square
    ``colours`` lies inside them once a lift is fitted beside the gain
    (:func:`scorer.read.light.fit_affine`): a veil of glare over the kingdom, which a gain
    alone takes for a photo exposed too long."""
    veil = fit_affine(colours, light, params)
    return veil.lift is not None and outside_bands(Light(veil.offset), params) is NEUTRAL


def _tried_light(
    board: np.ndarray,
    shape: tuple[int, int],
    light: Light,
    model: CellClassifier | None,
    params: ReadParams,
) -> tuple[Light, BoardPrediction | None, BoardPrediction | None]:
    """The fitted ``light`` of a kingdom, inside the normal bands, when its
    board reads clearer in it than as photographed, else :data:`NEUTRAL`; with the board's
    reading in the light taken and its reading in the other light, where it was read in both.

    With ``params.light_trial_sure`` off, a board whose every square reads surely as
    photographed is not tried (faster; three more wrong totals in the held-out draw)."""
    if not plausible_light(light, params) or not np.any(light.offset):
        return NEUTRAL, None, None
    as_taken = classify_board(board, shape, model, doubt_below=params.doubt_below)
    if not as_taken.doubtful and not params.light_trial_sure:
        return NEUTRAL, as_taken, None
    relit = classify_board(corrected(board, light), shape, model, doubt_below=params.doubt_below)
    clearer = reading_clarity(relit, params=params) - reading_clarity(as_taken, params=params)
    if clearer > params.light_clearer_by:
        return light, relit, as_taken
    return NEUTRAL, as_taken, relit


def _with_castle_doubts(prediction: BoardPrediction, params: ReadParams) -> BoardPrediction:
    """``prediction`` with every square doubtful where the castle may stand
    (:func:`scorer.read.decoding.castle_places`), when the tile set placed the castle on a
    square that does not look like it, on a square read with doubt, or on one read as the
    castle with a probability under ``params.castle_doubt_below``: the real castle may have
    been read as something else."""
    castle = prediction.kingdom.castle
    if castle is None:
        return prediction
    weak = prediction.confidence[castle] < params.castle_doubt_below
    if not weak and castle not in prediction.overridden() | prediction.doubtful:
        return prediction
    shape = prediction.kingdom.height, prediction.kingdom.width
    places = castle_places(
        prediction.probabilities, prediction.classes, shape, params.castle_within
    )
    return replace(prediction, doubtful=prediction.doubtful | places, castle_places=places)


def _with_domino_doubts(prediction: BoardPrediction) -> BoardPrediction:
    """``prediction`` with every square doubtful that the most probable grid of whole
    dominoes reads differently, when its tile squares cannot all be paired into dominoes
    of the set (:func:`scorer.read.decoding.whole_domino_changes`), that grid's reading
    of each kept as its likeliest other reading."""
    changes = whole_domino_changes(prediction.probabilities, prediction.classes, prediction.kingdom)
    if not changes:
        return prediction
    return replace(
        prediction,
        doubtful=prediction.doubtful | changes.keys(),
        domino_reading=tuple(changes.items()),
    )


def _with_light_doubts(
    prediction: BoardPrediction, first: BoardPrediction, other: BoardPrediction
) -> BoardPrediction:
    """``prediction`` with every square doubtful whose most probable label in the light
    kept (``first``) is not its most probable label in the other light tried (``other``)."""
    kept = first.probabilities.argmax(axis=-1)
    tried = other.probabilities.argmax(axis=-1)
    moved = frozenset((int(r), int(c)) for r, c in zip(*np.nonzero(kept != tried), strict=True))
    if moved <= prediction.doubtful:
        return prediction
    return replace(prediction, doubtful=prediction.doubtful | moved)


def read_rectified(
    image: np.ndarray,
    location: BoardLocation,
    board: np.ndarray,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    *,
    grid: int | None = None,
    refine: bool = True,
    params: ReadParams = DEFAULT,
    first: BoardPrediction | None = None,
) -> Reading:
    """Read a kingdom's rectified board, and correct its outline by what is read.

    Unless ``refine`` is off, three of detection's mistakes are corrected:

    - an edge row whose every square reads as bare table is dropped
      (:func:`drop_bare_edges`; not when the player set the grid's side);
    - a row that detection left out as table is taken back when most of its
      squares read as tiles, one with a crown (:func:`restore_tile_rows`);
    - a kingdom read without its castle grows to the row that holds it
      (:func:`grow_to_castle`).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    location : BoardLocation
        The kingdom as detection found it.
    board : ndarray
        Its rectified board (:func:`scorer.detect.rectify`).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in ``board``.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.
    refine : bool
        Whether what is read may correct the outline.
    params : ReadParams
        The tuned values of the corrections.
    first : BoardPrediction, optional
        The board's reading where it was already made.

    Returns
    -------
    Reading
    """
    reading = (
        classify_board(board, location.shape, model, doubt_below=params.doubt_below)
        if first is None
        else first
    )
    if refine and grid is None:
        kept = drop_bare_edges(reading, params=params)
        if kept != (0, location.shape[0], 0, location.shape[1]):
            r0, r1, c0, c1 = kept
            location, board = _cut(location, board, kept)
            # The cut board's squares are the same crops: their reading is a slice.
            reading = predict_from_probabilities(
                reading.probabilities[r0:r1, c0:c1], doubt_below=params.doubt_below
            )
    prediction = _with_what_detection_saw(reading, location, params, board, image)
    if refine:
        restored = restore_tile_rows(image, location, model, square_px, grid=grid, params=params)
        if restored is not None:
            location, board, prediction = restored
        grown = grow_to_castle(
            image, location, prediction, model, square_px, grid=grid, params=params
        )
        if grown is not None:
            return grown
    return Reading(location, board, prediction)


def reading_clarity(prediction: BoardPrediction, *, params: ReadParams = DEFAULT) -> float:
    """Mean over the squares of the log of the classifier's highest probability.

    Near 0 when each square looks like one label; lower when squares are cut
    across their pictures or hold parts of two squares.

    Parameters
    ----------
    prediction : BoardPrediction
    params : ReadParams
        Gives the lowest probability counted (``clarity_floor``).

    Returns
    -------
    float

    Examples
    --------
    >>> from scorer.read.classify import predict_from_probabilities
    >>> torn = np.full((2, 2, len(ALL_CELLS)), 0.5 / (len(ALL_CELLS) - 1))
    >>> torn[..., ALL_CELLS.index(CASTLE)] = 0.5
    >>> round(reading_clarity(predict_from_probabilities(torn)), 3)
    -0.693
    """
    highest = np.clip(prediction.probabilities.max(axis=-1), params.clarity_floor, 1.0)
    return float(np.mean(np.log(highest)))


def read_board(
    board: np.ndarray,
    location: BoardLocation,
    model: CellClassifier | None = None,
    *,
    params: ReadParams = DEFAULT,
    image: np.ndarray | None = None,
) -> BoardPrediction:
    """Classify the squares of a rectified board, using what detection saw.

    A square that detection saw clearly covered by a tile is never read as
    empty, and one that looks like the bare table around the kingdom is more
    likely empty (``params.table_empty_odds``).

    Parameters
    ----------
    board : ndarray
        The rectified board from :func:`scorer.detect.rectify`.
    location : BoardLocation
        Its location, with the grid shape and the squares seen as tiles.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    params : ReadParams
        The tuned values of the corrections.
    image : numpy.ndarray, optional
        The photo the board was cut from: with it, a square that detection saw as bare
        table is checked against the table around the kingdom first.

    Returns
    -------
    BoardPrediction
    """
    prediction = classify_board(board, location.shape, model, doubt_below=params.doubt_below)
    return _with_what_detection_saw(prediction, location, params, board, image)


def drop_bare_edges(
    reading: BoardPrediction, *, params: ReadParams = DEFAULT
) -> tuple[int, int, int, int]:
    """The rows and columns left once edge rows read as bare table all across are dropped.

    An edge row goes when every square in it reads as empty with a probability of
    at least ``params.bare_row_empty``; rows go one at a time from any side, while
    more than :data:`scorer.detect.MIN_SIDE` remain.

    Parameters
    ----------
    reading : BoardPrediction
        The classifier's reading of the board (before detection's evidence).
    params : ReadParams
        The tuned values of the corrections.

    Returns
    -------
    tuple of int
        ``(r0, r1, c0, c1)``: the rows ``r0..r1-1`` and columns ``c0..c1-1`` kept.

    Examples
    --------
    >>> from scorer.read.classify import classify_board
    >>> class Model:
    ...     def predict_cell_proba(self, crops):
    ...         p = np.zeros((len(crops), len(ALL_CELLS)))
    ...         p[:, ALL_CELLS.index(EMPTY)] = 1.0
    ...         tiles = np.arange(len(crops)) % 4 != 3  # the last column is bare
    ...         p[tiles, ALL_CELLS.index(CASTLE)] = 2.0
    ...         return p / p.sum(axis=1, keepdims=True)
    >>> drop_bare_edges(classify_board(np.zeros((400, 400, 3), np.uint8), (4, 4), Model()))
    (0, 4, 0, 3)
    """
    k = reading.classes.index(EMPTY)
    bare = (reading.probabilities.argmax(axis=-1) == k) & (
        reading.probabilities[..., k] >= params.bare_row_empty
    )
    r0, r1, c0, c1 = 0, bare.shape[0], 0, bare.shape[1]
    changed = True
    while changed:
        changed = False
        if r1 - r0 > MIN_SIDE:
            if bare[r0, c0:c1].all():
                r0, changed = r0 + 1, True
            elif bare[r1 - 1, c0:c1].all():
                r1, changed = r1 - 1, True
        if c1 - c0 > MIN_SIDE:
            if bare[r0:r1, c0].all():
                c0, changed = c0 + 1, True
            elif bare[r0:r1, c1 - 1].all():
                c1, changed = c1 - 1, True
    return r0, r1, c0, c1


def restore_tile_rows(
    image: np.ndarray,
    location: BoardLocation,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    *,
    grid: int | None = None,
    params: ReadParams = DEFAULT,
) -> Reading | None:
    """Take back the rows detection left out as table where most squares read as tiles.

    Detection leaves out an edge row whose colours are the table's
    (``location.trimmed``), but a lake on a blue mat has the table's colours
    too. Such a row is taken back when more than ``params.restore_tile_share``
    of its squares read as tiles and one of them shows a crown, which no table
    does. The grid stays within 5×5 (7×7 for Mighty Duel, or the side given by
    ``grid``).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo the kingdom was found in.
    location : BoardLocation
        The kingdom as found.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for.
    params : ReadParams
        The tuned values of the corrections.

    Returns
    -------
    Reading or None
        The kingdom with its rows taken back, its rectified board and its
        reading; None when no row is taken back.
    """
    if not location.trimmed:
        return None
    model = default_model() if model is None else model
    empty = ALL_CELLS.index(EMPTY)
    grown = location
    for side in sorted(location.trimmed):
        rows, cols = grown.shape
        limit = _side_limit(grown.shape, grid)
        if (rows if side.across else cols) >= limit:
            continue
        strip = beyond_side(grown, 1)[side]
        if not _within(strip.corners, image.shape):
            continue
        labels = _read_strip(image, strip, model, square_px).argmax(axis=-1)
        crowned = any(ALL_CELLS[i].crowns > 0 for i in labels)
        tiles = np.count_nonzero(labels != empty)
        if crowned and tiles > params.restore_tile_share * labels.size:
            grown = extend_location(grown, side)
    if grown is location:
        return None
    board = rectify(image, grown, square_px)
    return Reading(grown, board, read_board(board, grown, model, params=params, image=image))


def grow_to_castle(
    image: np.ndarray,
    location: BoardLocation,
    prediction: BoardPrediction,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    *,
    grid: int | None = None,
    params: ReadParams = DEFAULT,
) -> Reading | None:
    """Grow a kingdom read without its castle to the row beyond it that holds the castle.

    Every kingdom has its castle; when no square reads as the castle, detection
    has left out the part that holds it. Beyond each side, rows are read one by
    one, through rows of tiles, up to the first holding a square read as the
    castle; a row with more than ``params.castle_search_bare_share`` of its
    squares read as empty ends the search on that side. The grid stays within
    5×5 (7×7 for Mighty Duel, or the side given by ``grid``): rows at the far
    side that read as bare table all across give way. The side whose square
    reads most clearly as the castle is grown, and the kingdom is read again.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo the kingdom was found in.
    location : BoardLocation
        The kingdom as found.
    prediction : BoardPrediction
        Its reading (:func:`read_board`).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for.
    params : ReadParams
        The tuned values of the corrections.

    Returns
    -------
    Reading or None
        The grown kingdom, its rectified board and its reading; None when the
        kingdom reads its castle, or no row beyond it does.
    """
    castle = prediction.classes.index(CASTLE)
    empty = prediction.classes.index(EMPTY)
    read = prediction.probabilities.argmax(axis=-1)
    if np.any(read == castle):
        return None
    model = default_model() if model is None else model
    rows, cols = location.shape
    side_limit = _side_limit(location.shape, grid)
    best: tuple[float, Side, int] | None = None
    for side in Side:
        span = rows if side.across else cols
        room = side_limit - span + _bare_rows(read == empty, side.opposite)
        for depth in range(1, room + 1):
            strip = beyond_side(location, depth)[side]
            if not _within(strip.corners, image.shape):
                break
            labels_proba = _read_strip(image, strip, model, square_px)
            labels = labels_proba.argmax(axis=-1)
            if np.any(labels == castle):
                chance = float(labels_proba[labels == castle, castle].max())
                if best is None or chance > best[0]:
                    best = (chance, side, depth)
                break
            if np.count_nonzero(labels == empty) > params.castle_search_bare_share * labels.size:
                break
    if best is None:
        return None
    _, side, depth = best
    grown = extend_location(location, side, depth)
    excess = (grown.shape[0] if side.across else grown.shape[1]) - side_limit
    if excess > 0:
        grown = extend_location(grown, side.opposite, -excess)
    board = rectify(image, grown, square_px)
    return Reading(grown, board, read_board(board, grown, model, params=params, image=image))


def _with_what_detection_saw(
    prediction: BoardPrediction,
    location: BoardLocation,
    params: ReadParams,
    board: np.ndarray | None = None,
    image: np.ndarray | None = None,
) -> BoardPrediction:
    """Re-decode with what detection saw of each square, where it was clear.

    A square clearly covered by a tile (``location.tiles``) is not read as empty,
    unless the classifier reads it as empty and, given the board and the photo, it
    looks like the table just around the kingdom
    (:func:`scorer.read.unreadable.squares_like_table`): the table model, learnt from
    the photo's border, misses a shade of the table found only near the kingdom (a
    shadow over the middle of the table). The empty reading then stands, doubtful.
    For a square that looks like the bare table (``location.empty``),
    the odds of empty are multiplied by ``params.table_empty_odds``, unless it
    is the castle (:func:`_castle_square`). Given the board and the photo, that
    look is first checked against the table just around the kingdom, as a square
    read as empty is (:func:`scorer.read.unreadable.squares_unlike_table`): a
    square in a shadow that also darkens the table beyond may look like the table
    to detection and still be a dark forest. Where the two disagree, the reading
    stands and the square is doubtful. The doubtful squares are those of the new
    decoding, every square whose reading either rule changed, and those where
    detection's look and the table around disagree.
    """
    k = prediction.classes.index(EMPTY)
    proba = prediction.probabilities.copy()
    bare: frozenset[Position] = frozenset()
    if board is not None and image is not None:
        read_empty = [pos for pos in sorted(location.tiles) if int(proba[pos].argmax()) == k]
        bare = frozenset(squares_like_table(board, location, read_empty, image, params))
    for pos in location.tiles - bare:
        proba[pos][k] = 0.0
    castle = _castle_square(proba, prediction.classes.index(CASTLE))
    exempt = location.tiles if castle is None else location.tiles | {castle}
    table_like = location.empty - exempt
    unlike: frozenset[Position] = frozenset()
    if board is not None and image is not None and table_like:
        unlike = frozenset(squares_unlike_table(board, location, sorted(table_like), image, params))
    for pos in table_like - unlike:
        proba[pos][k] *= params.table_empty_odds
    proba /= np.maximum(proba.sum(axis=-1, keepdims=True), _EPS)
    changed = frozenset(
        pos
        for pos, cell in prediction.kingdom.cells()
        if (cell == EMPTY) != (int(proba[pos].argmax()) == k)
    )
    if not changed:
        if unlike | bare <= prediction.doubtful:
            return prediction
        return replace(prediction, doubtful=prediction.doubtful | unlike | bare)
    kingdom, confidence = decode(proba, prediction.classes, location.shape)
    return replace(
        prediction,
        kingdom=kingdom,
        confidence=confidence,
        probabilities=proba,
        doubtful=doubtful_squares(kingdom, confidence, proba, doubt_below=params.doubt_below)
        | changed
        | unlike
        | bare,
    )


def _castle_square(probabilities: np.ndarray, castle: int) -> Position | None:
    """The one square that may be the castle although detection saw bare table there.

    The grey castle can look like a grey table, so the square most likely to be
    the castle keeps its reading if the classifier reads it as the castle; any
    other bare square read as the castle is weighed like the rest of the table.

    >>> p = np.zeros((2, 2, 3))
    >>> p[..., 0] = 1.0
    >>> p[0, 1] = [0.2, 0.8, 0.0]
    >>> p[1, 0] = [0.4, 0.6, 0.0]
    >>> _castle_square(p, castle=1)
    (0, 1)
    >>> _castle_square(p, castle=2) is None
    True
    """
    chance = probabilities[..., castle]
    row, col = np.unravel_index(int(chance.argmax()), chance.shape)
    pos = (int(row), int(col))
    return pos if int(probabilities[pos].argmax()) == castle else None


def _cut(
    location: BoardLocation, board: np.ndarray, kept: tuple[int, int, int, int]
) -> tuple[BoardLocation, np.ndarray]:
    """The location and rectified board of rows ``r0..r1`` and columns ``c0..c1``."""
    rows, cols = location.shape
    r0, r1, c0, c1 = kept
    changes = ((Side.TOP, -r0), (Side.BOTTOM, r1 - rows), (Side.LEFT, -c0), (Side.RIGHT, c1 - cols))
    for side, by in changes:
        if by:
            location = extend_location(location, side, by)
    step_y, step_x = board.shape[0] / rows, board.shape[1] / cols
    cut = board[round(r0 * step_y) : round(r1 * step_y), round(c0 * step_x) : round(c1 * step_x)]
    return location, np.ascontiguousarray(cut)


def _side_limit(shape: tuple[int, int], grid: int | None) -> int:
    """The most squares a side of a kingdom of ``shape`` may grow to: the side the player
    set, else 5, or 7 for a Mighty Duel kingdom (a side over 5)."""
    return grid or (DUEL_SIZE if max(shape) > STANDARD_SIZE else STANDARD_SIZE)


def _read_strip(
    image: np.ndarray, strip: BoardLocation, model: CellClassifier, square_px: int
) -> np.ndarray:
    """Probabilities over :data:`ALL_CELLS` for each square of a strip of the photo."""
    return model.predict_cell_proba(split_cells(rectify(image, strip, square_px), strip.shape))


def _bare_rows(empty: np.ndarray, side: Side) -> int:
    """How many rows in from one side read as bare table all across (never every row).

    >>> bare = np.array([[True, True], [True, False], [False, False]])
    >>> _bare_rows(bare, Side.TOP), _bare_rows(bare, Side.LEFT), _bare_rows(bare, Side.BOTTOM)
    (1, 0, 0)
    """
    lines = {
        Side.TOP: empty,
        Side.BOTTOM: empty[::-1],
        Side.LEFT: empty.T,
        Side.RIGHT: empty.T[::-1],
    }[side]
    count = 0
    for line in lines[:-1]:
        if not line.all():
            break
        count += 1
    return count


def _within(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether every corner lies inside an image of this shape."""
    height, width = shape[:2]
    return bool(np.all((corners >= 0) & (corners <= [width - 1, height - 1])))
