"""Tests for scorer.confirmed and scorer.confirmed_bundle: kept kingdoms, export and import."""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.confirmed import (
    ENV_VAR,
    INDEX_FILE,
    MANIFEST,
    BundleError,
    ConfirmedStore,
    ConfirmedStoreError,
    default_folder,
)
from scorer.rules.kingdom import Kingdom

READ = Kingdom.parse("W0 F1 W0\nF0 C W0")
FIXED = Kingdom.parse(". F1 W0\nF0 C .")  # the two bare-table squares read as wheat, corrected


def _board(seed: int, shape: tuple[int, int] = (2, 3)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 255, (shape[0] * 20, shape[1] * 20, 3), dtype=np.uint8)


def _store(folder: Path, count: int = 2, keep_photo: bool = False) -> ConfirmedStore:
    store = ConfirmedStore(folder)
    for k in range(count):
        store.save(
            _board(k),
            FIXED,
            READ,
            photo=f"photo {k}".encode(),
            corners=[(0, 0), (60, 0), (60, 40), (0, 40)],
            keep_photo=keep_photo,
        )
    return store


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def test_the_folder_is_the_environment_variable_else_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "mine"))
    assert default_folder() == tmp_path / "mine"
    monkeypatch.setenv(ENV_VAR, "")
    assert default_folder().name == "confirmed"
    assert "kingdomino-scorer" in str(default_folder())


def test_a_kept_kingdom_records_its_corrections_image_corners_and_photo_hash(
    tmp_path: Path,
) -> None:
    store = ConfirmedStore(tmp_path / "kept")
    assert store.items() == [] and not (tmp_path / "kept").exists()
    board = _board(0)
    store.save(board, FIXED, READ, photo=b"the photo", corners=[(1, 2), (3, 2), (3, 4), (1, 4)])
    rows = (tmp_path / "kept" / INDEX_FILE).read_text().splitlines()
    assert len(rows) == 1
    row = json.loads(rows[0])
    # Corrected squares, worked out by hand from READ and FIXED.
    assert row["corrected"] == [
        {"row": 0, "col": 0, "from": "W0"},
        {"row": 1, "col": 2, "from": "W0"},
    ]
    assert row["grid"] == ". F1 W0\nF0 C ."
    assert row["photo_sha256"] == hashlib.sha256(b"the photo").hexdigest()
    assert row["corners"] == [[1, 2], [3, 2], [3, 4], [1, 4]]
    assert row["photo"] is None
    (item,) = store.items()
    assert np.array_equal(store.image(item), board)  # full resolution, lossless
    assert _files(tmp_path / "kept") == {INDEX_FILE, item.image}  # no photo unless asked
    summary = store.summary()
    assert (summary.kingdoms, summary.squares, summary.corrected, summary.photos) == (1, 6, 2, 0)


def test_the_whole_photo_is_kept_only_when_asked(tmp_path: Path) -> None:
    store = ConfirmedStore(tmp_path)
    item = store.save(_board(0), FIXED, READ, photo=b"jpeg bytes", keep_photo=True)
    assert item.photo is not None
    assert (tmp_path / item.photo).read_bytes() == b"jpeg bytes"


def test_keeping_the_same_image_again_replaces_its_row(tmp_path: Path) -> None:
    store = ConfirmedStore(tmp_path)
    store.save(_board(0), READ, READ, photo=b"p")
    store.save(_board(0), FIXED, READ, photo=b"p")
    (item,) = store.items()
    assert item.kingdom == FIXED


def test_deleting_one_and_all_removes_their_files(tmp_path: Path) -> None:
    store = _store(tmp_path, count=3, keep_photo=True)
    first, second, third = store.items()
    assert store.delete(first.id)
    assert not (tmp_path / first.image).exists() and not (tmp_path / str(first.photo)).exists()
    assert [i.id for i in store.items()] == [second.id, third.id]
    assert not store.delete(first.id)
    (tmp_path / "0123456789abcdef.png").write_bytes(b"left by a crash")
    assert store.delete_all() == 2
    assert _files(tmp_path) == set()
    assert store.items() == []


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (np.zeros((40, 60), np.uint8), "BGR"),
        (np.zeros((40, 120, 3), np.uint8), "square squares"),
        (np.zeros((4, 6, 3), np.uint8), "does not fit"),
    ],
)
def test_an_image_that_does_not_fit_the_grid_is_refused(
    tmp_path: Path, board: np.ndarray, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ConfirmedStore(tmp_path).save(board, FIXED, READ, photo=b"p")
    assert _files(tmp_path) == set()


def test_a_damaged_index_is_named_with_its_line(tmp_path: Path) -> None:
    store = _store(tmp_path, count=1)
    with (tmp_path / INDEX_FILE).open("a") as f:
        f.write('{"version": 1, "id": "../../etc"}\n')
    with pytest.raises(Exception, match="line 2") as err:
        store.items()
    assert "16 hex digits" in str(err.value)


# --------------------------------------------------------------------------- bundles


def test_export_then_import_round_trip_keeps_every_kingdom_and_its_files(tmp_path: Path) -> None:
    source = _store(tmp_path / "a", count=2, keep_photo=True)
    data = source.export_bundle()
    assert data == source.export_bundle()  # the same kingdoms give the same bytes
    target = ConfirmedStore(tmp_path / "b")
    result = target.import_bundle(data)
    assert len(result.added) == 2 and not result.duplicates
    assert result.bundle_sha256 == hashlib.sha256(data).hexdigest()
    for a, b in zip(source.items(), target.items(), strict=True):
        assert (a.id, a.kingdom, a.read, a.photo_sha256) == (
            b.id,
            b.kingdom,
            b.read,
            b.photo_sha256,
        )
        assert np.array_equal(source.image(a), target.image(b))
        assert b.bundle == result.bundle_sha256
        assert (tmp_path / "b" / str(b.photo)).read_bytes() == (
            tmp_path / "a" / str(a.photo)
        ).read_bytes()


def test_a_duplicate_bundle_is_refused_and_a_partly_new_one_adds_only_the_new(
    tmp_path: Path,
) -> None:
    data = _store(tmp_path / "a", count=2).export_bundle()
    target = ConfirmedStore(tmp_path / "b")
    target.import_bundle(data)
    index = (tmp_path / "b" / INDEX_FILE).read_bytes()
    with pytest.raises(BundleError, match="already kept"):
        target.import_bundle(data)
    assert (tmp_path / "b" / INDEX_FILE).read_bytes() == index
    bigger = _store(tmp_path / "a", count=3).export_bundle()  # two old kingdoms and one new
    result = target.import_bundle(bigger)
    assert len(result.added) == 1 and len(result.duplicates) == 2
    assert len(target.items()) == 3


def _rewrite(data: bytes, change: dict[str, bytes | None]) -> bytes:
    """The bundle with members replaced (or dropped, for None) and new ones added."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename in change:
                continue
            dst.writestr(info.filename, src.read(info))
        for name, content in change.items():
            if content is not None:
                dst.writestr(name, content)
    return out.getvalue()


def _member(data: bytes, suffix: str) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return next(n for n in z.namelist() if n.endswith(suffix))


def _tampered_image(data: bytes) -> bytes:
    name = _member(data, ".png")
    ok, png = cv2.imencode(".png", _board(99))
    assert ok
    return _rewrite(data, {name: png.tobytes()})


def _tampered_manifest(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        manifest = json.loads(z.read(MANIFEST))
    row = manifest["kingdoms"][0]
    row["image_sha256"] = row["id"] + "0" * 48  # names another image than the one it holds
    return _rewrite(data, {MANIFEST: json.dumps(manifest).encode()})


def _tampered_corrections(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        manifest = json.loads(z.read(MANIFEST))
    manifest["kingdoms"][0]["corrected"] = []  # says nothing was corrected; the grids differ
    return _rewrite(data, {MANIFEST: json.dumps(manifest).encode()})


def _traversal(data: bytes) -> bytes:
    return _rewrite(data, {"../../x": b"escaped"})


def _traversal_in_manifest(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        manifest = json.loads(z.read(MANIFEST))
    manifest["files"]["../../x"] = {"sha256": hashlib.sha256(b"e").hexdigest(), "bytes": 1}
    return _rewrite(data, {MANIFEST: json.dumps(manifest).encode()})


def _absolute(data: bytes) -> bytes:
    return _rewrite(data, {"/tmp/x.png": b"escaped"})


def _unlisted(data: bytes) -> bytes:
    return _rewrite(data, {"fedcba9876543210.png": b"not listed"})


def _missing(data: bytes) -> bytes:
    return _rewrite(data, {_member(data, ".png"): None})


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (_tampered_image, "not the file the manifest lists"),
        (_tampered_manifest, "image is missing or not the one named"),
        (_tampered_corrections, "do not match its two grids"),
        (_traversal, "not one of ours: '../../x'"),
        (_traversal_in_manifest, "lists an odd file: '../../x'"),
        (_absolute, "not one of ours"),
        (_unlisted, "does not list"),
        (_missing, "which the manifest lists"),
        (lambda d: d[: len(d) // 2], "not a zip file"),
        (lambda d: b"PK\x03\x04 not really", "not a zip file"),
    ],
)
def test_a_tampered_or_escaping_bundle_is_refused_and_writes_nothing(
    tmp_path: Path, tamper: object, message: str
) -> None:
    data = _store(tmp_path / "a", count=2).export_bundle()
    root = tmp_path / "deep" / "er"
    root.mkdir(parents=True)
    target = ConfirmedStore(root / "b")
    with pytest.raises(BundleError, match=message):
        target.import_bundle(tamper(data))  # type: ignore[operator]
    assert not (root / "b").exists()
    assert _files(root) == set() and _files(tmp_path / "deep") == {"er"}
    assert _files(tmp_path) == {"a", "deep"}  # nothing beside the folder, as ../../x would be


def test_a_bundle_over_the_size_limits_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _store(tmp_path / "a", count=1).export_bundle()
    monkeypatch.setattr("scorer.confirmed_bundle.MAX_BUNDLE_BYTES", len(data) - 1)
    with pytest.raises(BundleError, match="more than"):
        ConfirmedStore(tmp_path / "b").import_bundle(data)
    monkeypatch.setattr("scorer.confirmed_bundle.MAX_BUNDLE_BYTES", 1 << 30)
    monkeypatch.setattr("scorer.confirmed_bundle.MAX_MEMBER_BYTES", 100)
    with pytest.raises(BundleError, match="more than 100"):
        ConfirmedStore(tmp_path / "b").import_bundle(data)
    assert not (tmp_path / "b").exists()


def test_a_member_bigger_than_it_declares_is_refused(tmp_path: Path) -> None:
    """A zip bomb declares a small size and unpacks to more: the read stops at the declared
    size, and the member is then damaged (its CRC does not match)."""
    data = _store(tmp_path / "a", count=1).export_bundle()
    name = _member(data, ".png")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        size = z.getinfo(name).file_size
    forged = bytearray(data)
    # Patch the declared uncompressed size in the central directory (and local header).
    for signature, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        start = 0
        while (at := forged.find(signature, start)) >= 0:
            name_len = int.from_bytes(
                forged[at + (28 if signature == b"PK\x01\x02" else 26) :][:2], "little"
            )
            header = 46 if signature == b"PK\x01\x02" else 30
            if forged[at + header : at + header + name_len].decode(errors="replace") == name:
                forged[at + offset : at + offset + 4] = (size - 10).to_bytes(4, "little")
            start = at + 4
    with pytest.raises(BundleError, match=r"damaged|holds more than it declares"):
        ConfirmedStore(tmp_path / "b").import_bundle(bytes(forged))
    assert not (tmp_path / "b").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_as_the_index_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / INDEX_FILE)
    with pytest.raises(ConfirmedStoreError, match="named pipe"):
        ConfirmedStore(tmp_path).items()
