"""What the loader notices about a photo file reaches the page, driven headless with AppTest.

The recogniser is replaced by a stand-in that reads one kingdom whatever the photo and
passes on, as its reasons, the damage the page hands it: so these tests see what the page
takes from the loader (its notes, its damage) and shows, not how squares are read.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import streamlit as st
from PIL import Image
from streamlit.testing.v1 import AppTest

from scorer.photo.imageio import HEIF_SUPPORTED
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import Rules, score

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
SAMPLE = ROOT / "sample_images" / "sample_board.jpg"
GRID = "F1 F0 C"  # forest 2 squares × 1 crown: total 2, worked by hand
EXIF_NOTE = "the photo's EXIF data is damaged; the picture itself was read"


@pytest.fixture(autouse=True)
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Own games file, no sample photo, and a recogniser that reads ``GRID`` in any photo;
    yields the ``file_damage`` each call was given."""
    monkeypatch.setenv("KINGDOMINO_DB", str(tmp_path / "games.sqlite3"))
    monkeypatch.setenv("KINGDOMINO_SAMPLE", "")
    given: list[object] = []

    def score_photo(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
        damage = tuple(kw.get("file_damage", ()))  # type: ignore[call-overload]
        given.append(damage)
        kingdom = Kingdom.parse(GRID)
        item = SimpleNamespace(
            outline_note=None,
            kingdom=kingdom,
            board=np.full((100, 300, 3), 128, np.uint8),
            corners=[[10.0, 10.0], [310.0, 10.0], [310.0, 110.0], [10.0, 110.0]],
            confidence=[[0.99] * 3],
            doubtful=frozenset(),
            second_choices={},
            score=score(kingdom),
            square_px=100.0,
            warnings=(),
            reasons=damage,
            confirmed=not damage,
        )
        return SimpleNamespace(kingdoms=[item], timings={})

    monkeypatch.setattr("scorer.pipeline.score_photo", score_photo)
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    st.cache_data.clear()
    st.cache_resource.clear()
    yield given
    st.cache_data.clear()
    st.cache_resource.clear()


def _upload(name: str, data: bytes, mime: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.file_uploader(key="uploads").upload(name, data, mime).run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _shown(at: AppTest) -> str:
    """Every text the page shows, in one string."""
    parts = [at.caption, at.info, at.warning, at.markdown, at.success]
    return "\n".join(str(e.value) for kind in parts for e in kind)


def test_a_note_on_the_file_is_shown_beside_its_photo(stand_in: list[object]) -> None:
    # EXIF whose directory claims 50 entries where one fits: Pillow warns "Corrupt EXIF data".
    exif = b"Exif\x00\x00II*\x00" + struct.pack("<IH", 8, 50) + bytes(20)
    buf = io.BytesIO()
    Image.new("RGB", (320, 240), (40, 160, 60)).save(buf, "JPEG", quality=95, exif=exif)
    at = _upload("IMG_0002.jpg", buf.getvalue(), "image/jpeg")
    assert f"IMG_0002.jpg: {EXIF_NOTE}" in [str(c.value) for c in at.caption]
    assert stand_in == [()]  # a note only: the total stays the program's to confirm
    assert [m.value for m in at.metric] == ["2"]


def test_a_photo_without_notes_shows_none() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (320, 240), (40, 160, 60)).save(buf, "PNG")
    at = _upload("IMG_0003.png", buf.getvalue(), "image/png")
    assert "EXIF" not in _shown(at) and "damaged" not in _shown(at)


@pytest.mark.skipif(not HEIF_SUPPORTED, reason="pillow-heif is not installed")
def test_a_damaged_part_of_a_heic_photo_leaves_its_total_unconfirmed_with_the_part_named(
    stand_in: list[object],
) -> None:
    with Image.open(SAMPLE) as im:
        picture = im.convert("RGB")
    buf = io.BytesIO()
    picture.save(buf, "HEIF", quality=90, thumbnails=[320])  # as a phone stores it
    data = buf.getvalue()
    start = len(data) * 2 // 3  # 64 bytes inverted inside the picture's data
    damaged = data[:start] + bytes(b ^ 0xFF for b in data[start : start + 64]) + data[start + 64 :]
    at = _upload("IMG_0004.HEIC", damaged, "image/heic")
    [damage] = stand_in
    assert damage and str(damage[0]).startswith("the photo file is damaged in the bottom ")  # type: ignore[index]
    warnings = " ".join(str(w.value) for w in at.warning)
    assert "Unconfirmed" in warnings
    assert str(damage[0]) in warnings  # type: ignore[index]
