"""The working image's exposure and white balance, evened before the table model sees it.

Under a lamp in the evening a photo is dark and orange: its colours crowd
together near black, and the table model's distances between tile and table
(:mod:`scorer.detect.table`) fall under the tile threshold. A photo whose
highlights would need a gain of at least ``light.dim_gain`` to reach
``light.exposure_target`` counts as dim; two global, linear steps bring it
back to the light the model was set in:

- grey world: each colour channel is scaled so the three have the same mean,
  each gain kept within ``light.max_cast`` (a table of one strong colour should
  not be turned grey);
- exposure: the photo is brightened, never darkened, so that the
  ``light.exposure_quantile`` percentile of its brightest channel reaches
  ``light.exposure_target``.

A photo that is not dim is left as taken: grey world would also take the
colour out of a strongly coloured table photographed in daylight.

>>> from scorer.detect.params import DEFAULT
>>> dark = np.full((4, 4, 3), (20, 40, 60), np.uint8)
>>> balanced(dark, DEFAULT.light)[0, 0].tolist()
[230, 230, 230]
"""

from __future__ import annotations

import cv2
import numpy as np

from scorer.detect.params import LightParams


def balanced(work: np.ndarray, p: LightParams) -> np.ndarray:
    """The work image with its white balance and exposure evened.

    Parameters
    ----------
    work : ndarray of shape (H, W, 3)
        BGR uint8 image.
    p : LightParams

    Returns
    -------
    ndarray of shape (H, W, 3)
        BGR uint8 image; ``work`` itself where the photo is not dim.
    """
    if p.exposure_target / max(_high(work, p), 1.0) < p.dim_gain:
        return work
    means = np.array(cv2.mean(work)[:3])
    gains = np.clip(means.mean() / np.maximum(means, 1.0), 1.0 / p.max_cast, p.max_cast)
    # Saturating per-channel products (cv2.transform with a diagonal matrix), the exposure
    # measured after the white balance; brightening never unclips a saturated level.
    grey = cv2.transform(work, np.diag(gains).astype(np.float32))
    gain = max(1.0, p.exposure_target / max(_high(grey, p), 1.0))
    return np.asarray(cv2.convertScaleAbs(grey, alpha=gain), dtype=np.uint8)


def _high(image: np.ndarray, p: LightParams) -> float:
    """The ``exposure_quantile`` percentile of each pixel's brightest channel (a level)."""
    b, g, r = cv2.split(image)
    brightest = cv2.max(cv2.max(b, g), r)
    cumulative = np.cumsum(np.bincount(brightest.ravel(), minlength=256))
    return float(np.searchsorted(cumulative, cumulative[-1] * p.exposure_quantile / 100.0))
