"""Medians and quantiles against numpy's own, bit for bit (numpy is the independent reference)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from scorer.quantiles import median, quantile

DTYPES = (np.float32, np.float64, np.int64, np.uint8)


def _samples(dtype: type, seed: int) -> list[np.ndarray]:
    """Arrays of 1 to 40 values of ``dtype``, a few of the float ones with a NaN."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(300):
        n = int(rng.integers(1, 41))
        if np.issubdtype(dtype, np.floating):
            values = (rng.normal(size=n) * 100).astype(dtype)
            if k % 13 == 0:
                values[rng.integers(n)] = np.nan
        else:
            values = rng.integers(0, 256, n).astype(dtype)
        out.append(values)
    return out


def _same(ours: object, numpys: object) -> bool:
    a, b = np.asarray(ours), np.asarray(numpys)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_quantiles_are_numpys_to_the_bit(dtype: type) -> None:
    for values in _samples(dtype, 1):
        for q in (0.0, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0, 1 / 3):
            assert _same(quantile(values, q), np.quantile(values, q)), (values, q)
            assert _same(quantile(values, q * 100 / 100), np.percentile(values, q * 100))


@pytest.mark.parametrize("dtype", DTYPES)
def test_medians_are_numpys_to_the_bit(dtype: type) -> None:
    for values in _samples(dtype, 2):
        assert _same(median(values), np.median(values)), values
        table = np.resize(values, (len(values), 3))
        assert _same(median(table, axis=0), np.median(table, axis=0)), table
    assert median([4.0, 1.0]) == 2.5


def test_a_quantile_outside_zero_to_one_or_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="lies in"):
        quantile([1.0, 2.0], 90)
    with pytest.raises(IndexError):
        quantile([], 0.5)


def test_they_do_not_load_numpys_masked_arrays(fresh_python: Callable[[str], list[str]]) -> None:
    script = (
        "import sys\n"
        "from scorer.quantiles import median, quantile\n"
        "median([1.0, 2.0, float('nan')]); quantile([3.0, 1.0], 0.9)\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    assert fresh_python(script) == ["False"]
