"""Normalise a kingdom's exposure and colour cast before its squares are read.

The kingdom is its own calibration target: its squares come from six known terrains
and the castle's grey stone, whose colours under the training photos' light are
committed in :data:`COLOURS_FILE`. :func:`fit_light` finds the photo's gain in each
channel by a robust fit of the squares' colours to those terrain colours: each square
is matched to its nearest terrain colour under the current estimate, and the estimate
is the median of the squares' offsets from their terrains' colours (in log space, where
a gain is an offset), repeated a few times. The matching has local optima (a kingdom of
lakes on a blue table can fit as a red-starved forest), so it starts three times: from
the training light, from the grey-world exposure, and from the grey-world colour; the
fit whose squares lie nearest their terrains (the median distance) is taken.

The fit is trusted only where the light lies clearly outside what the training and
real photos show (:func:`needs_correction`, the bands of
:class:`~scorer.read.params.ReadParams`): a normally lit kingdom is read exactly as it
was photographed, and only an underexposed, overexposed or strongly tinted one is
brought back to the training light (:func:`corrected`).

>>> board = np.full((200, 200, 3), 100, np.uint8)
>>> light = fit_light(board, (2, 2))
>>> light.offset.shape, bool(np.isfinite(light.offset).all())
((3,), True)
>>> corrected(board, Light(np.zeros(3))) is board
True
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import cv2
import numpy as np

from scorer import DATA_DIR
from scorer.quantiles import median
from scorer.read.cells import split_cells
from scorer.read.params import DEFAULT, ReadParams

COLOURS_FILE: Final = "terrain_colours.csv"
"""The terrain colours under the training light, in ``scorer/data``
(written by ``python -m scorer.lab.colours``)."""

FIT_MARGIN: Final = 0.15
"""Inset of each square, as a share of its side, whose pixels are averaged: the middle
of the picture, clear of the seams and of a neighbour's colours."""

FIT_ROUNDS: Final = 8
"""Rounds of matching squares to terrains and re-estimating the gain; the estimate
settles within four on the training boards."""

_FLOOR: Final = 1.0
"""Least channel mean whose log is taken (a black square)."""


@dataclass(frozen=True)
class Light:
    """A photo's light on one kingdom, relative to the training light.

    Attributes
    ----------
    offset : numpy.ndarray
        The log gain of each channel (blue, green, red): 0 is the training light,
        ``log(0.35)`` in all three a photo a third as bright.
    lift : numpy.ndarray, optional
        Light added to each channel (0–255 levels) over the gain, as :func:`fit_affine` fits
        it: a veil of glare lifts the dark levels. None: a gain alone. It only tells a veil
        from an exposure; :func:`corrected` applies the gain alone.
    """

    offset: np.ndarray
    lift: np.ndarray | None = None

    @property
    def exposure(self) -> float:
        """Mean log gain of the three channels (nats): below 0 darker than the training light."""
        return float(np.mean(self.offset))

    @property
    def red_cast(self) -> float:
        """Log gain of red over green (nats): above 0 warmer than the training light."""
        return float(self.offset[2] - self.offset[1])

    @property
    def blue_cast(self) -> float:
        """Log gain of blue over green (nats): above 0 cooler than the training light."""
        return float(self.offset[0] - self.offset[1])

    @property
    def gains(self) -> np.ndarray:
        """The factor that brings each channel (blue, green, red) back to the training light."""
        return np.asarray(np.exp(-self.offset), np.float64)


NEUTRAL: Final = Light(np.zeros(3))
"""The training light: no correction."""


def square_colours(board: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Log of the mean colour (blue, green, red) of the middle of each square, row by row.

    Parameters
    ----------
    board : numpy.ndarray
        A rectified board, BGR uint8.
    shape : tuple of int
        ``(rows, cols)`` of its grid.

    Returns
    -------
    numpy.ndarray
        ``rows*cols × 3`` float64.

    Examples
    --------
    >>> square_colours(np.full((20, 40, 3), (10, 20, 40), np.uint8), (1, 2)).round(2)
    array([[2.3 , 3.  , 3.69],
           [2.3 , 3.  , 3.69]])
    """
    crops = split_cells(board, shape, FIT_MARGIN)
    means = np.array([c.reshape(-1, 3).mean(axis=0) for c in crops], np.float64)
    return np.asarray(np.log(np.maximum(means, _FLOOR)))


def fit_light(board: np.ndarray, shape: tuple[int, int]) -> Light:
    """The light a kingdom was photographed in, fitted to the terrain colours.

    Parameters
    ----------
    board : numpy.ndarray
        The kingdom's rectified board, BGR uint8.
    shape : tuple of int
        ``(rows, cols)`` of its grid.

    Returns
    -------
    Light
    """
    return fit_colours(square_colours(board, shape))


def fit_colours(colours: np.ndarray) -> Light:
    """The light that best maps the terrain colours onto a kingdom's square colours.

    Parameters
    ----------
    colours : numpy.ndarray
        ``n × 3`` log mean colours of the squares (:func:`square_colours`).

    Returns
    -------
    Light

    Examples
    --------
    Squares of the terrain colours themselves, seen a third as bright:

    >>> terrains = terrain_colours()["colours"]
    >>> light = fit_colours(terrains + np.log(1 / 3))
    >>> round(light.exposure, 3)
    -1.099
    """
    reference = terrain_colours()
    terrains = reference["colours"]
    grey_world = median(colours, axis=0) - reference["median"]
    best: tuple[float, np.ndarray] | None = None
    for start in (np.zeros(3), np.full(3, grey_world.mean()), grey_world):
        offset = start
        for _ in range(FIT_ROUNDS):
            distance = _squared_distance(colours - offset, terrains)
            offset = median(colours - terrains[distance.argmin(axis=1)], axis=0)
        distance = _squared_distance(colours - offset, terrains)
        misfit = float(median(distance.min(axis=1)))
        if best is None or misfit < best[0]:
            best = (misfit, offset)
    assert best is not None
    return Light(np.asarray(best[1], np.float64))


def fit_affine(colours: np.ndarray, light: Light, params: ReadParams = DEFAULT) -> Light:
    """The light as a gain and a lift in each channel, refined from a fitted gain.

    Each square is matched to the terrain it is nearest under the current light; the
    squares' mean levels in each channel are then fitted as ``gain × terrain level + lift``
    by least squares, again without the ``params.lift_trim`` share of squares farthest from
    the line (a square matched to the wrong terrain), and the matching repeated. It starts
    from ``light`` and from a veil as deep as the darkest square; the fit whose squares lie
    nearest their terrains is taken. A veil of glare over the kingdom lifts every
    level by about the same amount, harsh contrast stretches them about the photo's mean:
    a gain alone shows neither.

    Parameters
    ----------
    colours : numpy.ndarray
        ``n × 3`` log mean colours of the squares (:func:`square_colours`).
    light : Light
        The light fitted as a gain (:func:`fit_colours`).
    params : ReadParams
        ``lift_trim``, ``lift_start`` and ``least_gain``.

    Returns
    -------
    Light
        ``light`` itself where neither start gives a line: the squares match a single
        terrain level in a channel, or a channel's gain comes out under ``least_gain``.

    Examples
    --------
    Squares of the terrain colours, four of each, seen at half the gain under a veil of 60
    levels:

    >>> terrains = np.exp(np.repeat(terrain_colours()["colours"], 4, axis=0))
    >>> seen = np.log(terrains * 0.5 + 60)
    >>> light = fit_affine(seen, fit_colours(seen))
    >>> np.round(np.exp(light.offset), 2).tolist(), np.round(light.lift).tolist()
    ([0.5, 0.5, 0.5], [60.0, 60.0, 60.0])
    """
    reference = terrain_colours()
    terrains = reference["colours"]
    seen = np.exp(colours)
    best: tuple[float, Light] | None = None
    # Two starts: the gain alone, and a veil as deep as most of the darkest square's level,
    # under the grey-world gain of what it leaves.
    veil = params.lift_start * seen.min(axis=0)
    grey = median(np.log(np.maximum(seen - veil, _FLOOR)), axis=0) - reference["median"]
    for start in (light, Light(grey, veil)):
        fitted: Light | None = start
        for _ in range(FIT_ROUNDS // 2):
            assert fitted is not None
            assigned = terrains[_nearest_terrain(seen, fitted, terrains)]
            fitted = _affine(np.exp(assigned), seen, params.lift_trim, params.least_gain)
            if fitted is None:
                break
        if fitted is None:
            continue
        misfit = float(median(_distance(seen, fitted, terrains).min(axis=1)))
        if best is None or misfit < best[0]:
            best = (misfit, fitted)
    return light if best is None else best[1]


def _distance(seen: np.ndarray, light: Light, terrains: np.ndarray) -> np.ndarray:
    """Squared log distance of each square, corrected by ``light``, to each terrain colour."""
    lift = np.zeros(3) if light.lift is None else light.lift
    relit = np.log(np.maximum(seen - lift, _FLOOR)) - light.offset
    return _squared_distance(relit, terrains)


def _squared_distance(logs: np.ndarray, terrains: np.ndarray) -> np.ndarray:
    """Squared distance of each ``n × 3`` log colour to each terrain colour: ``n × terrains``."""
    return np.asarray(((logs[:, None, :] - terrains[None]) ** 2).sum(axis=-1))


def _nearest_terrain(seen: np.ndarray, light: Light, terrains: np.ndarray) -> np.ndarray:
    """Index of the terrain colour nearest each square under ``light``."""
    return np.asarray(_distance(seen, light, terrains).argmin(axis=1))


def _affine(target: np.ndarray, seen: np.ndarray, trim: float, least_gain: float) -> Light | None:
    """``seen ≈ gain × target + lift`` in each channel, by least squares, fitted again without
    the ``trim`` share of squares farthest from the line; None where a channel has a single
    target level or a gain under ``least_gain``."""
    gains, lifts = np.zeros(3), np.zeros(3)
    for ch in range(3):
        t, x = target[:, ch], seen[:, ch]
        keep = np.ones(len(t), bool)
        for _ in range(2):
            if np.ptp(t[keep]) <= 0:
                return None
            gain, lift = np.polyfit(t[keep], x[keep], 1)
            residual = np.abs(x - (gain * t + lift))
            keep = residual <= np.quantile(residual, 1.0 - trim)
        gains[ch], lifts[ch] = gain, lift
    if np.any(gains < least_gain):
        return None
    return Light(np.log(gains), lifts)


def needs_correction(light: Light, params: ReadParams = DEFAULT) -> bool:
    """Whether a kingdom's light lies outside what normally lit photos show.

    Parameters
    ----------
    light : Light
    params : ReadParams
        ``dark_light``, ``bright_light``, ``red_cast`` and ``blue_cast``.

    Returns
    -------
    bool

    Examples
    --------
    >>> needs_correction(NEUTRAL), needs_correction(Light(np.log([0.35, 0.35, 0.35])))
    (False, True)
    """
    return bool(
        light.exposure < params.dark_light
        or light.exposure > params.bright_light
        or abs(light.red_cast) > params.red_cast
        or abs(light.blue_cast) > params.blue_cast
    )


def reading_light(board: np.ndarray, shape: tuple[int, int], params: ReadParams = DEFAULT) -> Light:
    """The correction to read a kingdom with: its fitted light where that is outside the
    normal bands (:func:`needs_correction`), else :data:`NEUTRAL`.

    A fitted colour cast beyond ``params.light_limit`` is no light a photo is taken in
    (a channel all but black: a drawing, not a photo), and is not corrected; a photo may
    be as dark as it likes.

    Parameters
    ----------
    board : numpy.ndarray
        The kingdom's rectified board, BGR uint8.
    shape : tuple of int
        ``(rows, cols)`` of its grid.
    params : ReadParams

    Returns
    -------
    Light
    """
    return outside_bands(fit_light(board, shape), params)


def outside_bands(light: Light, params: ReadParams = DEFAULT) -> Light:
    """A fitted light to correct by, as :func:`reading_light` decides: the light itself where
    it is plausible and outside the normal bands, else :data:`NEUTRAL`.

    >>> outside_bands(Light(np.log([0.35, 0.35, 0.35]))) is NEUTRAL
    False
    """
    return light if plausible_light(light, params) and needs_correction(light, params) else NEUTRAL


def plausible_light(light: Light, params: ReadParams = DEFAULT) -> bool:
    """Whether a fitted light's colour cast is one a photo is taken in (within
    ``params.light_limit``), not a drawing's missing channel.

    >>> plausible_light(NEUTRAL), plausible_light(Light(np.log([0.01, 1, 1])))
    (True, False)
    """
    return max(abs(light.red_cast), abs(light.blue_cast)) <= params.light_limit


def corrected(image: np.ndarray, light: Light) -> np.ndarray:
    """The image as the training light would show it: each channel times its gain.

    The same array when the light is neutral, so that a normally lit photo is read
    exactly as it was taken.

    Parameters
    ----------
    image : numpy.ndarray
        BGR uint8 image (a photo or a rectified board).
    light : Light

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> dim = np.full((2, 2, 3), (20, 40, 80), np.uint8)
    >>> corrected(dim, Light(np.log([0.5, 0.5, 0.5])))[0, 0]
    array([ 40,  80, 160], dtype=uint8)
    """
    if not np.any(light.offset):
        return image
    levels = np.arange(256, dtype=np.float64)[:, None] * light.gains[None, :]
    table = np.clip(np.rint(levels), 0, 255).astype(np.uint8).reshape(256, 1, 3)
    return np.asarray(cv2.LUT(image, table))


@cache
def terrain_colours() -> dict[str, Any]:
    """The committed terrain colours (:data:`COLOURS_FILE`).

    Returns
    -------
    dict
        ``"names"``: the terrains and the castle; ``"colours"``: their ``n × 3`` log mean
        colours (blue, green, red); ``"median"``: the log colour of a median square of the
        training kingdoms, the grey-world start of the fit.
    """
    text = (DATA_DIR / COLOURS_FILE).read_text(encoding="utf-8")
    return parse_colours(colours_table(text))


MEDIAN_ROW: Final = "median"
"""The name of the row of :data:`COLOURS_FILE` that holds the median square."""


def colours_table(text: str) -> dict[str, Any]:
    """The content of a terrain colours CSV file, as :func:`parse_colours` checks it.

    The file has a header ``name,log_blue,log_green,log_red,squares`` and one row per
    terrain (and the castle), then a row named :data:`MEDIAN_ROW`.

    >>> text = "name,log_blue,log_green,log_red,squares\\nlake,5,4.3,2.3,300\\nmedian,3,4,4,9\\n"
    >>> colours_table(text)["log_bgr"]
    [[5.0, 4.3, 2.3]]

    Raises
    ------
    ValueError
        A row is not a name and three numbers.
    """
    names, colours, median = [], [], None
    try:
        for row in csv.DictReader(io.StringIO(text)):
            triple = [float(row[k]) for k in ("log_blue", "log_green", "log_red")]
            if row["name"] == MEDIAN_ROW:
                median = triple
            else:
                names.append(row["name"])
                colours.append(triple)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"the terrain colours file is damaged ({err})") from err
    table: dict[str, Any] = {"names": names, "log_bgr": colours}
    if median is not None:
        table["median_log_bgr"] = median
    return table


def parse_colours(data: dict[str, Any]) -> dict[str, Any]:
    """Check and convert the content of a terrain colours file.

    Parameters
    ----------
    data : dict
        ``names``, ``log_bgr`` (one triple per name) and ``median_log_bgr``
        (:func:`colours_table`).

    Returns
    -------
    dict
        As :func:`terrain_colours` returns it.

    Raises
    ------
    ValueError
        A part is missing or not finite numbers of the right shape.
    """
    try:
        names = [str(n) for n in data["names"]]
        colours = np.asarray(data["log_bgr"], np.float64)
        median = np.asarray(data["median_log_bgr"], np.float64)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"the terrain colours file is damaged ({err})") from err
    if colours.shape != (len(names), 3) or median.shape != (3,):
        raise ValueError("the terrain colours file holds colours of the wrong shape")
    if not (np.isfinite(colours).all() and np.isfinite(median).all()):
        raise ValueError("the terrain colours file holds numbers that are not finite")
    return {"names": names, "colours": colours, "median": median}
