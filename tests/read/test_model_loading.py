"""Loading the model: each forged archive and each form of recorded sha256 gets its own
message, which says what is wrong and what to do next (issue 34, point 8).

Each forged archive has its metadata's sha256 rewritten to match, as a forger would, so
the messages below are those of the checks after the sha256.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scorer.lab.fit import fit_cell_classifier
from scorer.read import classify
from scorer.read.cells import cell_features
from scorer.read.classify import METADATA_FILE, MODEL_FILE, load_model
from scorer.rules.errors import ModelFileError

NEXT_STEP = "Restore it with `git checkout models/` or retrain with `make train`."
MISSING = object()
"""A header field removed by the forgery."""


@pytest.fixture(scope="module")
def good_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real classifier saved with its metadata, as ``make train`` does."""
    folder = tmp_path_factory.mktemp("model")
    crops = [np.full((64, 64, 3), 17 * i % 256, np.uint8) for i in range(len(classify.TOKENS))]
    features = np.stack([cell_features(c) for c in crops * 2])
    model = fit_cell_classifier(features, list(classify.TOKENS) * 2, kind="logistic", C=0.1)
    classify.save_model(model, folder, {"note": "test model"})
    return folder


@pytest.fixture
def model_dir(good_model: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    shutil.copytree(good_model, folder)
    return folder


def _metadata(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / METADATA_FILE).read_text()))


def _record(folder: Path, sha256: Any) -> None:
    (folder / METADATA_FILE).write_text(json.dumps({**_metadata(folder), "sha256": sha256}))


def _forge(folder: Path, header: dict[str, Any] | None = None, raw: bytes | None = None) -> None:
    """Change header fields (or the whole file's bytes) and re-record the file's sha256."""
    path = folder / MODEL_FILE
    if raw is not None:
        path.write_bytes(raw)
    else:
        with zipfile.ZipFile(path) as old:
            members = {n: old.read(n) for n in old.namelist()}
        fields = json.loads(members["header.json"])
        for key, value in (header or {}).items():
            if value is MISSING:
                del fields[key]
            else:
                fields[key] = value
        members["header.json"] = json.dumps(fields).encode()
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
            for name, data in members.items():
                new.writestr(name, data)
    _record(folder, classify.file_sha256(path))


FORGERIES: list[Any] = [
    pytest.param(
        {"format_version": 2},
        "was written by a newer version of the program (format version 2; this program "
        "reads version 1)",
        id="a newer format version",
    ),
    pytest.param(
        {"format_version": 0},
        "is forged or damaged (format version 0 is no version of this program)",
        id="format version 0, which no version wrote",
    ),
    pytest.param(
        {"format_version": "1"},
        "is forged or damaged (format version '1' is no version of this program)",
        id="format version as text",
    ),
    pytest.param(
        {"format_version": True},
        "is forged or damaged (format version True is no version of this program)",
        id="format version true, which Python takes for 1",
    ),
    pytest.param(
        {"format_version": MISSING},
        "is forged or damaged (format version None is no version of this program)",
        id="no format version",
    ),
    pytest.param(
        {"feature_version": "5"},
        "is forged or damaged (feature version '5' is no version of this program)",
        id="feature version as text",
    ),
    pytest.param(
        {"settings": MISSING},
        "is forged or damaged (it lacks 'settings')",
        id="no settings",
    ),
    pytest.param(
        {"classes": MISSING},
        "is forged or damaged (it lacks 'classes')",
        id="no classes",
    ),
    pytest.param(
        {"learners": ["m0"]},
        "is forged or damaged (its header is not laid out as this program writes it: ",
        id="a learner named by a word",
    ),
    pytest.param(
        {"format": MISSING},
        "is not a square classifier of this program",
        id="no format",
    ),
]


@pytest.mark.parametrize(("header", "message"), FORGERIES)
def test_a_forged_archive_is_named_as_such_with_the_next_step(
    model_dir: Path, header: dict[str, Any], message: str
) -> None:
    _forge(model_dir, header)
    with pytest.raises(ModelFileError) as refused:
        load_model(model_dir)
    text = str(refused.value)
    assert text.startswith(f"the model file {model_dir / MODEL_FILE} "), text
    assert message in text
    assert text.endswith(NEXT_STEP)
    assert "older version" not in text


def test_a_file_that_is_no_archive_at_all_is_named_as_such(model_dir: Path) -> None:
    _forge(model_dir, raw=b"PK\x03\x04 but not a zip archive")
    with pytest.raises(ModelFileError) as refused:
        load_model(model_dir)
    assert str(refused.value) == (
        f"the model file {model_dir / MODEL_FILE} is forged or damaged (not a model archive "
        f"(File is not a zip file)). {NEXT_STEP}"
    )


SHA256_FORMS: list[Any] = [
    pytest.param(str.upper, id="upper case, as PowerShell's Get-FileHash prints it"),
    pytest.param(lambda h: h[:32].upper() + h[32:], id="mixed case"),
    pytest.param(lambda h: h, id="lower case, as the program writes it"),
]


@pytest.mark.parametrize("form", SHA256_FORMS)
def test_the_recorded_sha256_is_compared_whatever_its_case(
    model_dir: Path, form: Callable[[str], str]
) -> None:
    digest = _metadata(model_dir)["sha256"]
    assert digest == digest.lower()  # the program writes lower case
    _record(model_dir, form(digest))
    assert sorted(load_model(model_dir).classes_.tolist()) == sorted(classify.TOKENS)


def test_an_upper_case_sha256_of_another_file_is_still_refused(model_dir: Path) -> None:
    _record(model_dir, "AB" * 32)
    with pytest.raises(ModelFileError, match="does not match its metadata") as refused:
        load_model(model_dir)
    assert "expected abababababab…" in str(refused.value)


@pytest.mark.parametrize(
    ("recorded", "shown"),
    [
        pytest.param(lambda h: "sha256:" + h, "'sha256:00…'", id="with a prefix"),
        pytest.param(lambda h: h[:40], "'000000000…'", id="cut short"),
        pytest.param(lambda h: f" {h}\n", "' 00000000…'", id="with spaces around"),
        pytest.param(lambda h: "g" * 64, "'ggggggggg…'", id="not hexadecimal"),
        pytest.param(lambda h: 5, "5", id="a number"),
        pytest.param(lambda h: None, "None", id="null"),
    ],
)
def test_a_recorded_sha256_that_is_no_digest_is_named_as_such(
    model_dir: Path, recorded: Callable[[str], Any], shown: str
) -> None:
    digest = "0" * 64  # so that what is shown of it is known here
    _record(model_dir, recorded(digest))
    with pytest.raises(ModelFileError) as refused:
        load_model(model_dir)
    assert str(refused.value) == (
        f"the model metadata {model_dir / METADATA_FILE} records the sha256 {shown}, not 64 "
        f"hexadecimal digits. {NEXT_STEP}"
    )
