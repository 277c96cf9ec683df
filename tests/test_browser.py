"""The page in a real browser: headless Chromium from the system's packages, driven by Playwright.

The app runs as a real Streamlit server on a free port. Screenshots go to
``tests/artifacts/`` (ignored by git). Tests skip, with the reason, when
Chromium is not installed at ``/usr/bin/chromium``.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorer.rules.scoring import Rules

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
SAMPLE = ROOT / "sample_images" / "sample_board.jpg"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT_S = 60
SCORE_TIMEOUT_MS = 120_000

if not CHROMIUM.exists():
    pytest.skip(
        f"Chromium not found at {CHROMIUM}: install it with apt-get install chromium",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Streamlit server running the app on a free port, with its own games file."""
    yield from _streamlit(tmp_path_factory, sample="")


@pytest.fixture()
def cold_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own that has shown no page yet, with the sample photo on."""
    yield from _streamlit(tmp_path_factory, sample=str(SAMPLE))


def _streamlit(tmp_path_factory: pytest.TempPathFactory, sample: str) -> Iterator[str]:
    """Run the app on a free port with its own games file and ``sample`` as
    ``$KINGDOMINO_SAMPLE``; yield its address."""
    port = _free_port()
    env = dict(os.environ)
    env["KINGDOMINO_DB"] = str(tmp_path_factory.mktemp("db") / "games.sqlite3")
    env["KINGDOMINO_SAMPLE"] = sample
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the bytecode is cached
    streamlit = Path(sys.executable).with_name("streamlit")
    log = (tmp_path_factory.mktemp("log") / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [
            str(streamlit),
            "run",
            str(ROOT / "app.py"),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


PHOTO_INPUT = "[data-testid=stMain] input[type=file]"
"""The photo uploader: the sidebar holds another (recognition bundles to import)."""

COLD_TARGET_S = 3.0
"""The sample photo is scored within this long of the first request to a fresh server."""


@pytest.mark.slow
def test_a_fresh_server_shows_the_sample_scored_within_3_s(
    cold_server: str, sample_photo: Path
) -> None:
    """From ``goto`` to the sample's total on the page, on a server that has shown no page:
    the page's imports, the model, the photo and the drawing. The time is printed (``-s``);
    the assertion leaves room for a busy shared machine."""
    expected = _sample_report(sample_photo).kingdoms[0].score.total
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 2600})
        started = time.monotonic()
        tab.goto(cold_server)
        _wait_for_metrics(tab, 1)
        seconds = time.monotonic() - started
        assert _metric_values(tab) == [expected]
        browser.close()
    verdict = "meets" if seconds <= COLD_TARGET_S else "misses"
    print(
        f"\ncold start: the sample scored {seconds:.2f} s after goto ({verdict} {COLD_TARGET_S} s)"
    )
    assert seconds < 4 * COLD_TARGET_S


@pytest.fixture()
def page(server: str) -> Iterator[object]:
    """A fresh browser tab on the app."""
    yield from _tab(server, 1280, 2600)


@pytest.fixture()
def phone(server: str) -> Iterator[object]:
    """A fresh browser tab on the app, as wide as a phone held upright."""
    yield from _tab(server, 390, 2600)


def _tab(server: str, width: int, height: int) -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": width, "height": height})
        tab.goto(server)
        tab.get_by_text("Kingdomino score").first.wait_for(timeout=30_000)
        yield tab
        browser.close()


def test_typed_kingdoms_are_ranked_with_the_tie_explained(page: object) -> None:
    # Forest 4 × 1 crown = 4 and wheat 1 × 0; mine 2 × 2 = 4 and swamp 2 × 0: a tie at 4.
    anna, ben = "F1 F0 F0\nF0 C W0", "M2 M0 C\nS0 S0 ."
    tab: sync_api.Page = page  # type: ignore[assignment]
    tab.get_by_text("Type or paste kingdoms as text grids").click()
    box = tab.get_by_label("Grids")
    box.fill(f"{anna}\n\n{ben}")
    box.press("Control+Enter")
    explanation = tab.get_by_text(re.compile("Step 2 \\(largest property\\)"))
    explanation.wait_for(timeout=30_000)
    assert "Player 1 and Player 2 both scored 4" in explanation.inner_text()
    _wait_for_metrics(tab, 2)
    assert _metric_values(tab) == [4, 4]
    _screenshot(tab, "browser-typed.png")


@pytest.mark.parametrize("width", ["page", "phone"])
def test_clicking_a_square_and_picking_a_value_updates_the_score(
    width: str, request: pytest.FixtureRequest
) -> None:
    # Forest 4 × 1 = 4 and wheat 1 × 0 = 0; with a crown on the wheat, 4 + 1 × 1 = 5.
    grid, before, after = "F1 F0 F0\nF0 C W0", 4, 5
    tab: sync_api.Page = request.getfixturevalue(width)
    tab.get_by_text("Type or paste kingdoms as text grids").click()
    box = tab.get_by_label("Grids")
    box.fill(grid)
    box.press("Control+Enter")
    _wait_for_metrics(tab, 1)
    assert _metric_values(tab) == [before]
    picture, box_px = _loaded_picture(tab, 0)
    # Row 2, column 3 of a 2×3 kingdom: the wheat square beside the castle.
    picture.click(position={"x": box_px["width"] * 5 / 6, "y": box_px["height"] * 3 / 4})
    chooser = tab.get_by_label("Square in row 2, column 3 is")
    chooser.wait_for(timeout=30_000)
    chooser.click()
    tab.get_by_role("option", name="W1", exact=True).click()
    tab.get_by_text("corrected by hand").first.wait_for(timeout=30_000)
    assert _metric_values(tab) == [after]
    _screenshot(tab, f"browser-corrected-{width}.png")


@pytest.mark.slow
def test_uploaded_sample_photo_is_scored(page: object, sample_photo: Path) -> None:
    expected = _sample_report(sample_photo).kingdoms[0].score.total

    tab: sync_api.Page = page  # type: ignore[assignment]
    tab.locator(PHOTO_INPUT).first.set_input_files(str(SAMPLE))
    tab.get_by_text("Found in the photo").first.wait_for(timeout=SCORE_TIMEOUT_MS)
    _wait_for_metrics(tab, 1)
    assert _metric_values(tab) == [expected]
    # Every square of the sample reads surely: its total stands and is ranked at once.
    tab.get_by_text(f"scores {expected}").first.wait_for(timeout=30_000)
    assert tab.get_by_text("Total (unconfirmed)").count() == 0
    _screenshot(tab, "browser-sample.png")


@pytest.mark.slow
def test_marking_four_corners_reads_the_kingdom_again(page: object, sample_photo: Path) -> None:
    report = _sample_report(sample_photo)
    corners = report.kingdoms[0].corners
    height, width = _sample_size()
    tab: sync_api.Page = page  # type: ignore[assignment]
    tab.locator(PHOTO_INPUT).first.set_input_files(str(SAMPLE))
    _wait_for_metrics(tab, 1)
    _idle(tab)
    tab.get_by_text("Outline wrong?").click()
    tab.get_by_text("0 of 4 corners marked").wait_for(timeout=30_000)
    # Click them in a scrambled order: the page puts them in order itself.
    for n, (x, y) in enumerate([corners[2], corners[0], corners[3], corners[1]], start=1):
        image, box = _loaded_picture(tab, -1, at_least=2)  # the kingdom's and the corners
        image.click(position={"x": x * box["width"] / width, "y": y * box["height"] / height})
        tab.get_by_text(f"{n} of 4 corners marked").wait_for(timeout=30_000)
    _idle(tab)
    tab.get_by_role("button", name="Read the kingdom inside them").click()
    tab.get_by_text("Read inside the corners you marked").wait_for(timeout=SCORE_TIMEOUT_MS)
    _wait_for_metrics(tab, 1)
    assert len(_metric_values(tab)) == 1
    assert tab.locator("[data-testid=stException]").count() == 0
    _screenshot(tab, "browser-corners.png")


# A second player's 7×7 kingdom, typed: forest 3 × 1 = 3, lake 2 × 1 = 2, mine 2 × 2 = 4,
# swamp 1 × 1 = 1: total 10.
SECOND = "\n".join(
    [". . . . . . ."] * 2
    + [". . F1 F0 L1 . .", ". . F0 C L0 . .", ". . M2 M0 S1 . ."]
    + [". . . . . . ."] * 2
)
SECOND_TOTAL = 10
PHONE = (390, 844)
MIN_TAP_PX = 44


@pytest.mark.slow
def test_phone_shows_each_total_and_place_first_and_its_taps_are_44_px(
    server: str, sample_photo: Path
) -> None:
    """At 390×844, right after an upload: every total and place on the first screen, and
    every tap target the page defines at least 44 pixels each way."""
    expected = _sample_report(sample_photo).kingdoms[0].score.total
    for tab in _tab(server, *PHONE):
        tab.locator(PHOTO_INPUT).first.set_input_files(str(SAMPLE))
        _wait_for_metrics(tab, 1)
        _idle(tab)
        tab.get_by_text("Type or paste kingdoms as text grids").click()
        grids = tab.get_by_label("Grids")
        grids.fill(SECOND)
        grids.press("Control+Enter")
        _wait_for_metrics(tab, 2)
        tab.get_by_text(f"{expected} points").first.wait_for(timeout=30_000)
        tab.locator("h1").first.scroll_into_view_if_needed()
        tab.wait_for_timeout(500)
        for text in (f"1. Player 1 — {expected} points", f"2. Player 2 — {SECOND_TOTAL} points"):
            line = tab.get_by_text(text).first
            box = line.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE[1], text
        _screenshot(tab, "browser-phone.png")

        taps = {"remove the photo": tab.get_by_role("button", name=f"Remove {SAMPLE.name}")}
        tab.get_by_text("Outline wrong?").first.click()
        tab.get_by_text("0 of 4 corners marked").first.wait_for(timeout=30_000)
        taps["clear the corners"] = tab.get_by_role("button", name="Clear the corners")
        picture, box = _loaded_picture(tab, 0)
        picture.click(position={"x": box["width"] / 14, "y": box["height"] / 14})
        chooser = tab.get_by_label("Square in row 1, column 1 is")
        chooser.wait_for(timeout=30_000)
        taps["the square picker"] = tab.locator(
            "[data-testid=stMain] [data-testid=stSelectbox] [role=group]"
        )
        sizes = {name: _size(found.first) for name, found in taps.items()}
        chooser.evaluate("e => e.scrollIntoView({block: 'center'})")
        chooser.click()
        tab.get_by_role("option").first.wait_for(timeout=30_000)
        sizes["a square's value"] = _size(tab.get_by_role("option").first)
        tab.keyboard.press("Escape")
        tab.get_by_text("Dynasty: three games in a row").click()
        add = tab.get_by_role("button", name="Add this game to the dynasty")
        sizes["add the game"] = _size(add)
        add.click()
        delete = tab.get_by_role("button", name="Delete")
        delete.first.wait_for(timeout=30_000)
        sizes["delete a game"] = _size(delete.first)
        delete.first.click()
        yes = tab.get_by_role("button", name="Yes, delete it")
        yes.wait_for(timeout=30_000)
        sizes["confirm the delete"] = _size(yes)
        small = {name: size for name, size in sizes.items() if min(size) < MIN_TAP_PX}
        assert not small, f"tap targets under {MIN_TAP_PX} px: {small}"
        yes.click()
        # The Dynasty panel stays open while the inputs above it change.
        tab.get_by_text("One photo of the whole table").click()
        tab.wait_for_timeout(1500)
        _wait_for_metrics(tab, 2)
        assert add.is_visible()
        # Wider (a phone turned, a window widened): the corner picker's frame follows its
        # photo, leaving no blank band under it.
        tab.keyboard.press("Escape")
        tab.get_by_text("Type or paste kingdoms as text grids").click()
        tab.set_viewport_size({"width": 1280, "height": 1500})
        tab.wait_for_timeout(1500)
        pickers = tab.locator("iframe[title*=image_picker]")
        assert pickers.count() == 3  # two labelled kingdoms and the corner tool
        for n in range(pickers.count()):
            frame = pickers.nth(n).bounding_box()
            shown = tab.frame_locator("iframe[title*=image_picker]").nth(n).locator("#image")
            picture = shown.bounding_box()
            assert frame is not None and picture is not None
            assert abs(frame["height"] - picture["height"]) <= 2, (n, frame, picture)
        # The page at a computer's width, for the README.
        tab.locator("h1").first.scroll_into_view_if_needed()
        _screenshot(tab, "browser-desktop.png")


def _idle(tab: Any) -> None:
    """Wait until the app's script has stopped running: a tap while it reruns may be lost
    (the player would tap again; a test would wait for nothing)."""
    tab.wait_for_timeout(300)  # a rerun shows its running icon a moment after it starts
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidgetRunningIcon]')",
        timeout=SCORE_TIMEOUT_MS,
    )


def _loaded_picture(tab: Any, n: int, at_least: int = 1) -> tuple[Any, dict[str, float]]:
    """The ``n``-th click picker's picture (``-1``: the last) and its box, once the app is
    idle, ``at_least`` pickers are on the page, the picture has loaded and its frame has
    taken the picture's height: a click placed from an earlier box lands elsewhere."""
    _idle(tab)
    tab.wait_for_function(
        f"() => document.querySelectorAll('iframe[title*=image_picker]').length >= {at_least}",
        timeout=30_000,
    )
    frames = tab.locator("iframe[title*=image_picker]")
    index = frames.count() - 1 if n < 0 else n
    frame = frames.nth(index)
    image = tab.frame_locator("iframe[title*=image_picker]").nth(index).locator("#image")
    image.wait_for(timeout=30_000)
    deadline = time.monotonic() + 30
    while True:
        loaded = image.evaluate("img => img.complete && img.naturalWidth > 0")
        outer, inner = frame.bounding_box(), image.bounding_box()
        if loaded and outer and inner and abs(outer["height"] - inner["height"]) <= 2:
            return image, inner
        assert time.monotonic() < deadline, f"picture {n} not loaded: {outer}, {inner}"
        tab.wait_for_timeout(100)


def _size(element: Any) -> tuple[float, float]:
    """Width and height, in CSS pixels, of an element on the page."""
    element.wait_for(timeout=30_000)
    box = element.bounding_box()
    assert box is not None
    return box["width"], box["height"]


def _sample_report(sample_photo: Path) -> Any:
    from scorer.photo.imageio import load_image
    from scorer.pipeline import score_photo

    return score_photo(load_image(sample_photo), Rules())


def _sample_size() -> tuple[int, int]:
    from scorer.photo.imageio import load_image

    height, width = load_image(SAMPLE).shape[:2]
    return height, width


def _wait_for_metrics(tab: sync_api.Page, count: int) -> None:
    tab.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=stMetricValue]').length >= {count}",
        timeout=SCORE_TIMEOUT_MS,
    )


def _metric_values(tab: sync_api.Page) -> list[int]:
    texts = tab.locator("[data-testid=stMetricValue]").all_inner_texts()
    return [int(t.strip()) for t in texts]


def _screenshot(tab: sync_api.Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    tab.wait_for_timeout(500)
    tab.screenshot(path=str(ARTIFACTS / name))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_healthy(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"streamlit did not answer at {url} within {START_TIMEOUT_S} s")
