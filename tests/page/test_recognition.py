"""The page's "Help improve recognition" setting and panel, driven with Streamlit's AppTest."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from scorer.confirmed import INDEX_FILE, ConfirmedStore
from scorer.page import state
from scorer.rules.kingdom import Cell, Kingdom
from scorer.rules.scoring import Rules, score

APP = Path(__file__).resolve().parents[2] / "app.py"
GRID = "F1 F0 L0\nF0 C L1\nW0 W0 M2"
CORNERS = [[80.0, 40.0], [240.0, 40.0], [240.0, 200.0], [80.0, 200.0]]


def _png() -> bytes:
    image = np.full((240, 320, 3), 90, np.uint8)
    image[40:200, 80:240] = (40, 160, 60)
    ok, buf = cv2.imencode(".png", image)
    assert ok
    return buf.tobytes()


PHOTO = _png()
KEY = hashlib.sha1(PHOTO).hexdigest()[:12]
BOARD = np.random.default_rng(0).integers(0, 255, (300, 300, 3), dtype=np.uint8)


def _report(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
    kingdom = Kingdom.parse(GRID)
    item = SimpleNamespace(
        outline_note=None,
        kingdom=kingdom,
        board=BOARD,
        corners=CORNERS,
        confidence=[[0.99] * 3 for _ in range(3)],
        doubtful=frozenset(),
        second_choices={(0, 0): Cell.parse("W1")},
        score=score(kingdom),
        square_px=100.0,
        warnings=(),
        reasons=(),
        confirmed=True,
    )
    return SimpleNamespace(kingdoms=[item], timings={})


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Own games file and recognition folder, no sample photo, fresh page caches."""
    monkeypatch.setenv("KINGDOMINO_DB", str(tmp_path / "games.sqlite3"))
    monkeypatch.setenv("KINGDOMINO_CORRECTIONS", str(tmp_path / "kept"))
    monkeypatch.setenv("KINGDOMINO_SAMPLE", "")
    st.cache_data.clear()
    st.cache_resource.clear()
    yield tmp_path / "kept"
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture(autouse=True)
def _stand_in(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in recogniser, for every test but those that read the real sample photo."""
    if "sample_photo" not in request.fixturenames:
        monkeypatch.setattr("scorer.pipeline.score_photo", _report)
        monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())


def _photo_page(**settings: object) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=30)
    for key, value in settings.items():
        at.session_state[key] = value
    at.run()
    at.file_uploader(key="uploads").upload("table.png", PHOTO, "image/png").run()
    assert not at.exception
    return at


def _correct(at: AppTest) -> None:
    """The player corrects row 3, column 1 (read W0) to bare table."""
    at.session_state[f"editor-{KEY}-1-0"] = {
        "edited_rows": {2: {"1": "."}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception
    assert any("corrected by hand" in str(m.value) for m in at.markdown)


def test_the_setting_is_off_by_default_and_explained() -> None:
    at = _photo_page()
    toggle = at.sidebar.toggle(key=state.KEEP_RECOGNITION)
    assert toggle.value is False
    assert toggle.label == "Help improve recognition on this computer"
    assert any("nothing is sent anywhere" in str(c.value) for c in at.sidebar.caption)
    assert state.keep_key(f"{KEY}-1") not in {b.key for b in at.button}


def test_with_the_setting_off_correcting_a_square_stores_nothing(_isolated: Path) -> None:
    at = _photo_page()
    _correct(at)
    assert not _isolated.exists()


def test_with_the_setting_on_confirming_stores_one_kingdom_with_its_corrections(
    _isolated: Path,
) -> None:
    at = _photo_page(**{state.KEEP_RECOGNITION: True})
    _correct(at)
    assert not _isolated.exists(), "nothing is kept before the player confirms"
    at.button(key=state.keep_key(f"{KEY}-1")).click().run()
    assert not at.exception
    (item,) = ConfirmedStore(_isolated).items()
    assert item.kingdom == Kingdom.parse("F1 F0 L0\nF0 C L1\n. W0 M2")
    assert [(c.position, c.read_as.token) for c in item.corrections] == [((2, 0), "W0")]
    assert item.photo_sha256 == hashlib.sha256(PHOTO).hexdigest()
    assert item.photo is None  # the second box was not ticked
    assert np.array_equal(ConfirmedStore(_isolated).image(item), BOARD)  # full resolution
    assert any("Kept on this computer" in str(c.value) for c in at.caption)
    # Running again, or pressing nothing, keeps no second copy.
    at.run()
    assert len(ConfirmedStore(_isolated).items()) == 1
    assert state.keep_key(f"{KEY}-1") not in {b.key for b in at.button}


def test_the_whole_photo_is_kept_only_with_the_second_box(_isolated: Path) -> None:
    at = _photo_page(**{state.KEEP_RECOGNITION: True, state.KEEP_PHOTOS: True})
    at.button(key=state.keep_key(f"{KEY}-1")).click().run()
    (item,) = ConfirmedStore(_isolated).items()
    assert item.photo is not None
    assert (_isolated / item.photo).read_bytes() == PHOTO


def test_the_panel_counts_and_deletes_what_is_kept(_isolated: Path) -> None:
    at = _photo_page(**{state.KEEP_RECOGNITION: True})
    _correct(at)
    at.button(key=state.keep_key(f"{KEY}-1")).click().run()
    (item,) = ConfirmedStore(_isolated).items()
    panel = " ".join(str(m.value) for m in at.sidebar.markdown)
    assert "1 kingdom kept" in panel and "9 squares" in panel and "1 corrected" in panel
    assert state.EXPORT_RECOGNITION in {b.key for b in at.sidebar.get("download_button")}
    at.button(key=state.delete_recognition_key(item.id)).click().run()
    assert not at.exception
    assert ConfirmedStore(_isolated).items() == []
    assert not (_isolated / item.image).exists()
    assert any("Nothing is kept" in str(c.value) for c in at.sidebar.caption)
    # The page no longer says it is kept, and offers to keep it again.
    assert not any("Kept on this computer" in str(c.value) for c in at.caption)
    assert state.keep_key(f"{KEY}-1") in {b.key for b in at.button}


def test_delete_all_removes_every_file(_isolated: Path) -> None:
    at = _photo_page(**{state.KEEP_RECOGNITION: True, state.KEEP_PHOTOS: True})
    at.button(key=state.keep_key(f"{KEY}-1")).click().run()
    assert len(list(_isolated.iterdir())) == 3  # index, image, photo
    at.button(key=state.DELETE_RECOGNITION).click().run()
    assert not at.exception
    assert list(_isolated.iterdir()) == []
    assert not (_isolated / INDEX_FILE).exists()


def test_pressing_this_is_right_keeps_an_unconfirmed_kingdom(
    _isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unconfirmed(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
        report = _report(image, rules, **kw)
        report.kingdoms[0].reasons = ("the outline may cut off a row",)
        report.kingdoms[0].confirmed = False
        return report

    monkeypatch.setattr("scorer.pipeline.score_photo", unconfirmed)
    at = _photo_page(**{state.KEEP_RECOGNITION: True})
    assert not _isolated.exists()
    at.button(key=f"confirm-{KEY}-1").click().run()
    assert not at.exception
    (item,) = ConfirmedStore(_isolated).items()
    assert item.kingdom == Kingdom.parse(GRID) and item.corrections == ()


def _altered(data: bytes) -> bytes:
    """The bundle with one image's pixels changed (its checksum in the manifest left)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            content = src.read(info)
            if info.filename.endswith(".png"):
                image = cv2.imdecode(np.frombuffer(content, np.uint8), cv2.IMREAD_COLOR)
                image[0, 0] ^= 1
                content = cv2.imencode(".png", image)[1].tobytes()
            dst.writestr(info.filename, content)
    return out.getvalue()


def test_bundles_are_imported_on_the_page_and_a_tampered_one_is_refused(
    _isolated: Path, fixtures: Path
) -> None:
    good = (fixtures / "confirmed" / "wheat-table-1.zip").read_bytes()
    bad = _altered((fixtures / "confirmed" / "wheat-table-2.zip").read_bytes())
    at = AppTest.from_file(str(APP), default_timeout=30).run()
    uploader = at.sidebar.file_uploader(key=state.IMPORT_RECOGNITION)
    uploader.upload("club.zip", good, "application/zip")
    uploader.upload("altered.zip", bad, "application/zip")
    at.run()
    at.button(key=state.IMPORT_RECOGNITION_GO).click().run()
    assert not at.exception
    assert any("club.zip: 2 kingdoms added" in str(s.value) for s in at.sidebar.success)
    assert any("altered.zip was refused" in str(e.value) for e in at.sidebar.error)
    assert len(ConfirmedStore(_isolated).items()) == 2
    assert "2 kingdoms kept" in " ".join(str(m.value) for m in at.sidebar.markdown)


def test_a_kingdom_read_by_the_real_pipeline_is_kept_at_full_resolution(
    _isolated: Path, sample_photo: Path
) -> None:
    data = sample_photo.read_bytes()
    key = hashlib.sha1(data).hexdigest()[:12]
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state[state.KEEP_RECOGNITION] = True
    at.run()
    at.file_uploader(key="uploads").upload("mine.jpg", data, "image/jpeg").run()
    at.button(key=state.keep_key(f"{key}-1")).click().run()
    assert not at.exception
    store = ConfirmedStore(_isolated)
    (item,) = store.items()
    rows, cols = item.kingdom.shape
    image = store.image(item)
    # The rectified board as the classifier read it: a whole number of equal squares.
    assert image.shape[0] % rows == 0 and image.shape[1] % cols == 0
    assert image.shape[0] // rows >= 64
    assert item.corners is not None and len(item.corners) == 4
    assert item.photo_sha256 == hashlib.sha256(data).hexdigest()
