"""The one place the stages are composed: photo → kingdoms → squares → score.

Detection (:mod:`scorer.detect`) proposes each kingdom's outline, reading
(:mod:`scorer.read.corrections`) reads its squares and corrects the outline by
them, the rules (:mod:`scorer.rules.scoring`) score what was read, and the verdict
(:mod:`scorer.results.verdict`) says whether the program stands behind that total.

>>> from scorer.rules.kingdom import CASTLE, Cell, Kingdom, Position
>>> from scorer.rules.scoring import Rules
>>> score_kingdom(Kingdom.parse("F1 F0 C"), Rules()).total
2
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Final

import numpy as np

from scorer.detect import SQUARE_PX, BoardLocation, find_kingdoms, rectify
from scorer.detect.params import DEFAULT as DETECT_DEFAULT
from scorer.detect.params import DetectParams
from scorer.read.classify import BoardPrediction, CellClassifier
from scorer.read.corrections import Reading, read_and_correct, read_board
from scorer.read.params import DEFAULT as READ_DEFAULT
from scorer.read.params import ReadParams
from scorer.results.photo import KingdomReport, PhotoReport, square_side_px
from scorer.results.report import doubtful_hint, outline_note, photo_notes, small_squares_note
from scorer.results.verdict import kingdom_verdict
from scorer.rules.kingdom import CASTLE, Cell, Kingdom, Position
from scorer.rules.phrase import N_
from scorer.rules.scoring import Rules, ScoreBreakdown, score, tileset_violations

__all__ = [  # the names other modules import from here, with those the stages compose
    "STAGES",
    "KingdomReport",
    "PhotoReport",
    "doubtful_hint",
    "outline_note",
    "read_board",
    "read_kingdom",
    "report_kingdom",
    "score_kingdom",
    "score_photo",
    "small_squares_note",
    "square_side_px",
]

STAGES: Final = (N_("detect"), N_("rectify"), N_("classify"), N_("score"))
"""The timed stages of :func:`score_photo`, in order (message ids: the page names them)."""


def score_photo(
    image: np.ndarray,
    rules: Rules | None = None,
    *,
    grid: int | None = None,
    corners: Any = None,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    detect_params: DetectParams | None = None,
    read_params: ReadParams | None = None,
    file_damage: Sequence[str] = (),
) -> PhotoReport:
    """Find, read and score every kingdom in a photo.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        BGR photo, upright (EXIF orientation already applied).
    rules : Rules, optional
        Scoring rules; the standard rules when omitted.
    grid : int, optional
        Force the grid side (5 or 7) instead of measuring it.
    corners : array-like of shape (4, 2), optional
        Corners of one kingdom marked by the player; detection is skipped.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    detect_params : DetectParams, optional
        The tuned values of detection; :data:`scorer.detect.params.DEFAULT` when omitted.
    read_params : ReadParams, optional
        The tuned values of reading and of the notes; :data:`scorer.read.params.DEFAULT`
        when omitted.
    file_damage : sequence of str
        What the loader found damaged in the file though most of the picture was read
        (:attr:`scorer.photo.imageio.ImageInfo.damage`): each is a reason, first, that no
        total read from it is confirmed.

    Returns
    -------
    PhotoReport
        Each kingdom with its verdict: the reasons the program does not stand behind its
        total (:func:`scorer.results.verdict.kingdom_verdict`), none when it does. Corners
        given count as the player's outline.

    Raises
    ------
    BoardNotFoundError
        No kingdom in the photo (``GridNotConsistentError`` when tiles were
        found but no grid fits them).
    ModelFileError
        The trained model is missing or broken.
    """
    rules = Rules() if rules is None else rules
    detect_params = DETECT_DEFAULT if detect_params is None else detect_params
    read_params = READ_DEFAULT if read_params is None else read_params
    timings = dict.fromkeys(STAGES, 0.0)
    with _timed(timings, "detect"):
        locations = find_kingdoms(image, corners=corners, grid=grid, params=detect_params)
    reports = []
    for found in locations:
        report = report_kingdom(
            image,
            found,
            rules,
            grid=grid,
            marked=corners is not None,
            model=model,
            square_px=square_px,
            read_params=read_params,
            timings=timings,
        )
        if file_damage:
            report = replace(report, reasons=(*file_damage, *report.reasons))
        reports.append(report)
    timings["total"] = sum(timings[s] for s in STAGES)
    return PhotoReport(reports, timings)


def report_kingdom(
    image: np.ndarray,
    found: BoardLocation,
    rules: Rules | None = None,
    *,
    grid: int | None = None,
    marked: bool = False,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    read_params: ReadParams | None = None,
    timings: dict[str, float] | None = None,
) -> KingdomReport:
    """Read, score and judge one kingdom of a photo: what :func:`score_photo` does for each.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    found : BoardLocation
        The kingdom as detection found it (or as the player marked it).
    rules : Rules, optional
        Scoring rules; the standard rules when omitted.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.
    marked : bool
        Whether the player marked the corners (reading then keeps the outline).
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    read_params : ReadParams, optional
        The tuned values of reading and of the notes.
    timings : dict, optional
        Seconds by stage (:data:`STAGES`), added to.

    Returns
    -------
    KingdomReport
        With its verdict (:func:`scorer.results.verdict.kingdom_verdict`).
    """
    rules = Rules() if rules is None else rules
    read_params = READ_DEFAULT if read_params is None else read_params
    timings = dict.fromkeys(STAGES, 0.0) if timings is None else timings
    with _timed(timings, "rectify"):
        board = rectify(image, found, square_px)
    with _timed(timings, "classify"):
        other, reading = read_and_correct(
            image, found, board, model, square_px, grid=grid, refine=not marked, params=read_params
        )
    with _timed(timings, "score"):
        report = _kingdom_report(found, reading, other is not None, rules, read_params)
        return _with_verdict(report, image.shape, grid or rules.side, marked, rules, read_params)


def score_kingdom(kingdom: Kingdom, rules: Rules | None = None) -> ScoreBreakdown:
    """Score a kingdom the player corrected or typed in.

    Parameters
    ----------
    kingdom : Kingdom
    rules : Rules, optional

    Returns
    -------
    ScoreBreakdown
    """
    return score(kingdom, Rules() if rules is None else rules)


def read_kingdom(
    image: np.ndarray,
    location: BoardLocation,
    model: CellClassifier | None = None,
    square_px: int = SQUARE_PX,
    *,
    grid: int | None = None,
    refine: bool = True,
    read_params: ReadParams | None = None,
) -> Reading:
    """Rectify and read one kingdom found in a photo, its outline corrected by what is read
    (:func:`scorer.read.corrections.read_and_correct`).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The BGR photo.
    location : BoardLocation
        The kingdom as detection found it.
    model : CellClassifier, optional
        The square classifier; the committed model when omitted.
    square_px : int
        Side of one square in the rectified board.
    grid : int, optional
        The grid side the player asked for (5 or 7), if any.
    refine : bool
        Whether what is read may correct the kingdom's outline.
    read_params : ReadParams, optional
        The tuned values of reading; :data:`scorer.read.params.DEFAULT` when omitted.

    Returns
    -------
    location : BoardLocation
        The kingdom's location, as corrected by what was read.
    board : ndarray
        The rectified board.
    prediction : BoardPrediction
    """
    params = READ_DEFAULT if read_params is None else read_params
    board = rectify(image, location, square_px)
    return read_and_correct(
        image, location, board, model, square_px, grid=grid, refine=refine, params=params
    )[1]


def _kingdom_report(
    found: BoardLocation, reading: Reading, other_outline: bool, rules: Rules, params: ReadParams
) -> KingdomReport:
    """Score a kingdom as read and write its notes; ``found`` is the outline detection gave."""
    location, board, prediction = reading
    report = KingdomReport(
        location,
        board,
        prediction,
        score(prediction.kingdom, rules),
        tuple(tileset_violations(prediction.kingdom, rules)),
        warnings=(),
        detected_shape=None if location is found else found.shape,
        other_outline=other_outline,
    )
    notes = photo_notes(
        location.shape,
        report.square_px,
        prediction.kingdom,
        report.second_choices,
        outline=report.outline_note,
        min_square_px=params.min_square_px,
    )
    return replace(report, warnings=notes)


def _with_verdict(
    report: KingdomReport,
    image_shape: tuple[int, ...],
    side: int | None,
    marked: bool,
    rules: Rules,
    params: ReadParams,
) -> KingdomReport:
    """The report with its verdict: why the program does not stand behind its total, if so."""
    unreadable = report.prediction.unreadable
    doubtful = report.doubtful - {s.position for s in unreadable}
    reasons = kingdom_verdict(
        report.location.shape,
        report.location.corners,
        (int(image_shape[0]), int(image_shape[1])),
        report.square_px,
        side=side,
        detected_shape=report.detected_shape,
        doubtful=len(doubtful),
        decisive=len(
            decisive_squares(
                report.prediction.kingdom,
                {pos: report.prediction.other_readings(pos) for pos in report.doubtful},
                rules,
                report.prediction.overridden(),
                report.prediction.castle_places,
                unvouched(report.prediction, doubtful, params.doubt_below),
                share=params.decisive_share,
            )
        ),
        violations=report.violations,
        marked=marked,
        unreadable=unreadable,
        params=params,
    )
    return replace(report, reasons=reasons)


def decisive_squares(
    kingdom: Kingdom,
    other_readings: Mapping[Position, Mapping[Cell, float]],
    rules: Rules,
    overridden: Collection[Position] = (),
    castle_places: Collection[Position] = (),
    unvouched: Collection[Position] = (),
    *,
    share: float,
) -> tuple[Position, ...]:
    """The doubtful squares that could change the total.

    A doubtful square is decisive when its most probable other reading would change the
    total, or when the other readings that would change it hold at least ``share`` of its
    probability together (whichever is the runner-up); so is a square the tile set
    overruled (what it truly holds, the reading cannot say), a square a rule doubted
    though it reads surely (its probabilities were not what doubted it, so they cannot
    vouch for the total either), and, where the castle may stand on more than one square,
    each of those squares (which squares score depends on where it stands). A doubt that
    cannot change the score does not withhold confirmation; one that can does, however
    few there are.

    Parameters
    ----------
    kingdom : Kingdom
        The kingdom as read.
    other_readings : mapping of Position to mapping of Cell to float
        Each doubtful square's other readings and their probabilities
        (:meth:`scorer.read.classify.BoardPrediction.other_readings`).
    rules : Rules
    overridden : collection of Position
        Squares whose decoded label is not the classifier's own most probable one
        (:meth:`scorer.read.classify.BoardPrediction.overridden`).
    castle_places : collection of Position
        Squares where the castle may stand
        (:attr:`scorer.read.classify.BoardPrediction.castle_places`).
    unvouched : collection of Position
        Doubtful squares read at or above the doubt threshold, doubted by a rule (an empty
        read that nothing confirms, a reading that moves with the light): always decisive.
    share : float
        Probability (0–1) of the other readings that change the total from which a square
        is decisive (the pipeline's ``ReadParams.decisive_share``).

    Returns
    -------
    tuple of Position
        In reading order.

    Examples
    --------
    Wheat read W0 (total 1: the forest's crown); as grassland the total stays 1, as W1 or
    as forest beside the F1 it is 2:

    >>> k = Kingdom.parse("F1 W0 C")
    >>> G0, W1, F0 = Cell.parse("G0"), Cell.parse("W1"), Cell.parse("F0")
    >>> decisive_squares(k, {(0, 1): {G0: 0.15, W1: 0.1, F0: 0.05}}, Rules(), share=0.2)
    ()
    >>> decisive_squares(k, {(0, 1): {G0: 0.05, W1: 0.2, F0: 0.05}}, Rules(), share=0.2)
    ((0, 1),)
    >>> decisive_squares(k, {(0, 1): {W1: 0.05}}, Rules(), share=0.2)  # the runner-up changes it
    ((0, 1),)
    >>> decisive_squares(k, {(0, 1): {G0: 0.15}}, Rules(), {(0, 1)}, share=0.2)
    ((0, 1),)
    >>> decisive_squares(k, {}, Rules(), (), {(0, 1), (0, 2)}, share=0.2)
    ((0, 1), (0, 2))
    >>> decisive_squares(k, {(0, 1): {G0: 0.02}}, Rules(), unvouched={(0, 1)}, share=0.2)
    ((0, 1),)
    """
    total = score(kingdom, rules).total
    decisive = set(overridden) | set(unvouched)
    if len(castle_places) > 1:
        decisive |= set(castle_places)
    for pos, readings in other_readings.items():
        if pos in decisive:  # already decisive: its readings cannot add to that
            continue
        # Most probable first: the runner-up decides alone, and the rest only while what
        # is left could still reach the share.
        ranked = sorted(readings.items(), key=lambda item: -item[1])  # stable: class order
        left, changing = sum(readings.values()), 0.0
        for rank, (cell, p) in enumerate(ranked):
            if changing + left < share and rank > 0:
                break
            left -= p
            if CASTLE in (cell, kingdom[pos]):  # a kingdom has exactly one castle
                continue
            if score(kingdom.replace(pos, cell), rules).total != total:
                changing += p
                if rank == 0 or changing >= share:
                    decisive.add(pos)
                    break
    return tuple(sorted(decisive))


def unvouched(
    prediction: BoardPrediction, doubtful: Collection[Position], doubt_below: float
) -> frozenset[Position]:
    """The ``doubtful`` squares of ``prediction`` that read at or above ``doubt_below``,
    the castle's square aside (its doubts are where else it may stand): a rule doubted them,
    not their probabilities (:func:`decisive_squares`)."""
    kingdom = prediction.kingdom
    return frozenset(
        pos
        for pos in doubtful
        if prediction.confidence[pos] >= doubt_below and kingdom[pos] != CASTLE
    )


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Add the seconds spent inside the block to ``timings[stage]``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] += time.perf_counter() - start
