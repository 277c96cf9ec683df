"""One photo as detection measures it: the context every step of detection is handed."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from scorer.detect.params import DEFAULT, DetectParams
from scorer.detect.seams import gradients
from scorer.detect.table import TableTexture, TileMaps, table_texture_map, tile_maps


@dataclass(frozen=True, eq=False)
class View:
    """The work image, what the caller asked for, and the maps measured on it.

    Built once per photo and handed to every step instead of the maps one by
    one; each map is measured when a step first needs it, then kept.

    Attributes
    ----------
    work : ndarray of shape (H, W, 3)
        The BGR photo downscaled to ``params.work.side`` (:func:`scorer.detect.find_kingdoms`).
    grid : int or None
        The side of square grid the player set, or None to measure it.
    params : DetectParams
        The tuned values detection runs with.

    Examples
    --------
    >>> view = View(np.zeros((40, 60, 3), np.uint8))
    >>> view.gradients[0].shape, view.texture is None
    ((40, 60, 3), True)
    """

    work: np.ndarray
    grid: int | None = None
    params: DetectParams = DEFAULT

    @cached_property
    def tiles(self) -> TileMaps:
        """How far each pixel is from the table's colours (:func:`.table.tile_maps`)."""
        return tile_maps(self.work, self.params.table)

    @cached_property
    def gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-channel x and y derivatives of the work image (:func:`.seams.gradients`)."""
        return gradients(self.work, self.params.seams)

    @cached_property
    def texture(self) -> TableTexture | None:
        """The table's fine pattern, if it has one (:func:`.table.table_texture_map`)."""
        return table_texture_map(self.work, self.params.table)

    @property
    def dists(self) -> tuple[np.ndarray, np.ndarray]:
        """Distances from the table colours, without and with shadow and glare as table."""
        return self.tiles.dist, self.tiles.lit_dist
