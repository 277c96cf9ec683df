"""Shared fixtures: where the large labelled data sets live, if they are here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_images" / "sample_board.jpg"


def data_dir() -> Path | None:
    """The labelled data: ``$KINGDOMINO_DATA`` or ``../shared/data`` beside the checkout."""
    env = os.environ.get("KINGDOMINO_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "data")
    for path in candidates:
        if (path / "aau-boards").is_dir():
            return path
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The large data sets; skips the test, with the reason, when they are absent."""
    path = data_dir()
    if path is None:
        pytest.skip("labelled data not found: set KINGDOMINO_DATA or place it at ../shared/data")
    return path


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
