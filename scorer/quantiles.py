"""Medians and quantiles, the same numbers as numpy's, without loading ``numpy.ma``.

numpy's ``median``, ``percentile`` and ``quantile`` ask whether their input is a
masked array, and that first question imports ``numpy.ma`` (about 6 ms), on the
first photo of every command. These do the same arithmetic in the same order
(numpy's ``linear`` method: partition, then interpolate as numpy's ``_lerp``
does), so every value is the same to the last bit; a test compares them with
numpy's own on many inputs.

>>> median([3.0, 1.0, 2.0, 10.0])
np.float64(2.5)
>>> quantile(np.arange(11.0), 0.25)
np.float64(2.5)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def median(values: ArrayLike, axis: int | None = None) -> Any:
    """``numpy.median(values, axis=axis)``.

    Parameters
    ----------
    values : array_like
        Numbers (NaN gives NaN, as numpy's does).
    axis : int, optional
        The axis to take the median along; by default all values.

    Returns
    -------
    numpy scalar or ndarray
    """
    a = np.asanyarray(values)
    size = a.size if axis is None else a.shape[axis]
    half = size // 2
    kth = [half - 1, half] if size % 2 == 0 else [(size - 1) // 2]
    nans = bool(np.issubdtype(a.dtype, np.inexact))
    if nans:
        kth.append(-1)
    part = np.partition(a, kth, axis=axis)
    if part.shape == ():
        return part.item()
    along = 0 if axis is None else axis
    index = part.shape[along] // 2
    indexer: list[slice] = [slice(None)] * part.ndim
    odd = part.shape[along] % 2 == 1
    indexer[along] = slice(index, index + 1) if odd else slice(index - 1, index + 1)
    result = np.mean(part[tuple(indexer)], axis=along)
    if not (nans and size > 0):
        return result
    last = part.take(-1, axis=along)
    missing = np.isnan(last)
    if not missing.any():
        return result
    if isinstance(result, np.generic):
        return last
    np.copyto(result, last, where=missing)
    return result


def quantile(values: ArrayLike, q: float) -> Any:
    """``numpy.quantile(values, q)`` of all the values, ``q`` a number in [0, 1].

    ``numpy.percentile(values, p)`` is ``quantile(values, p / 100)``.

    Parameters
    ----------
    values : array_like
        Numbers (NaN gives NaN, as numpy's does).
    q : float
        The quantile.

    Returns
    -------
    numpy scalar
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile lies in [0, 1], not {q}")
    arr = np.asanyarray(values).ravel()
    n = arr.size
    if n == 0:
        raise IndexError("the quantile of no values")
    virtual = (n - 1) * np.float64(q)
    below = math.floor(virtual)
    if virtual >= n - 1:  # the largest value: numpy indexes it as -1
        previous = following = -1
    else:
        previous, following = below, below + 1
    part = np.partition(arr, sorted({0, n - 1, previous % n, following % n}))
    low, high = part[previous], part[following]
    gamma = float(virtual - previous)
    if np.issubdtype(arr.dtype, np.inexact) and np.isnan(part[-1]):
        return part[-1]
    step = high - low
    if gamma >= 0.5:
        return high - step * (1 - gamma)
    return low + step * gamma
