"""Shared fixtures: where the large labelled data sets live, if they are here."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer.lab.datasets import data_dir

with contextlib.suppress(ImportError):
    import pillow_heif

    # Tests write HEIC files through Pillow; the program registers only the reader, and
    # only when it reads one (tests/photo/test_imageio.py checks that lazy path alone).
    pillow_heif.register_heif_opener()

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


def _field_docstrings(cls: type) -> dict[str, str]:
    """Each field of a dataclass with the string literal just below it in its source."""
    import ast
    import inspect

    (node,) = [
        n
        for n in ast.parse(inspect.getsource(inspect.getmodule(cls))).body  # type: ignore[arg-type]
        if isinstance(n, ast.ClassDef) and n.name == cls.__name__
    ]
    docs = {}
    for stmt, after in zip(node.body, node.body[1:], strict=False):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[stmt.target.id] = after.value.value
    return docs


@pytest.fixture(scope="session")
def field_docstrings() -> Callable[[type], dict[str, str]]:
    """Reads the docstring written under each field of a parameters dataclass."""
    return _field_docstrings


def _run_fresh(script: str) -> list[str]:
    """The lines a script prints in a new Python process (which must succeed)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.fixture(scope="session")
def fresh_python() -> Callable[[str], list[str]]:
    """Run a script in a new Python process: what a cold command imports, unshared."""
    return _run_fresh
