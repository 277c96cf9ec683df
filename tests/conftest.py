"""Shared fixtures: where the large labelled data sets live, if they are here."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.lab.datasets import data_dir

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_images" / "sample_board.jpg"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The large data sets (:func:`scorer.lab.datasets.data_dir`); skips the test, with the
    reason, when they are absent."""
    try:
        return data_dir()
    except FileNotFoundError as err:
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """Small files committed with the tests."""
    return FIXTURES


@pytest.fixture(scope="session")
def sample_photo() -> Path:
    """The sample photo the page opens with; skips, with the reason, without it or the model."""
    from scorer.read.classify import default_model
    from scorer.rules.errors import ModelFileError

    if not SAMPLE.is_file():
        pytest.skip(f"no sample photo at {SAMPLE}")
    try:
        default_model()
    except ModelFileError as err:
        pytest.skip(f"no trained model: {err}")
    return SAMPLE
