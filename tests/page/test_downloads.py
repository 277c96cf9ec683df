"""The annotated PNG download, drawn without a browser."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.page.common import Entry, FoundKingdom
from scorer.page.downloads import annotated_png
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import score, tileset_violations


def _entry(name: str, grid: str) -> Entry:
    kingdom = Kingdom.parse(grid)
    found = FoundKingdom(f"typed-{name}", "typed grid", kingdom)
    return Entry(found, name, kingdom, score(kingdom), tileset_violations(kingdom))


def test_annotated_png_has_one_row_per_player() -> None:
    one = annotated_png([_entry("Anna", "F1 F0 F0\nF0 C W0")])
    two = annotated_png([_entry("Anna", "F1 F0 F0\nF0 C W0"), _entry("Ben", "M2 M0 C")])
    assert one.startswith(b"\x89PNG") and two.startswith(b"\x89PNG")
    first = cv2.imdecode(np.frombuffer(one, np.uint8), cv2.IMREAD_COLOR)
    both = cv2.imdecode(np.frombuffer(two, np.uint8), cv2.IMREAD_COLOR)
    assert both.shape[0] > first.shape[0]
