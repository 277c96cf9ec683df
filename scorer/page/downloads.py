"""The page's downloads: results as JSON and CSV, and the annotated kingdoms as one PNG."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import streamlit as st
from numpy.typing import NDArray

from scorer.i18n import _, ngettext
from scorer.page import state
from scorer.page.common import Entry
from scorer.results import render
from scorer.results.export import results_csv, results_json
from scorer.rules.scoring import Ranking, Rules


def export_ui(entries: Sequence[Entry], rules: Rules, ranking: Ranking | None) -> None:
    """Download buttons: JSON (the command line's shape), CSV and the annotated picture."""
    st.subheader("⬇️ " + _("Download"))
    results = [e.result() for e in entries]
    cols = st.columns(3)
    cols[0].download_button(
        _("Results (JSON)"),
        results_json(results, rules, ranking),
        file_name="kingdomino-results.json",
        mime="application/json",
        key=state.DOWNLOAD_JSON,
    )
    cols[1].download_button(
        _("Results (CSV)"),
        results_csv(results, rules, ranking),
        file_name="kingdomino-results.csv",
        mime="text/csv",
        key=state.DOWNLOAD_CSV,
    )
    cols[2].download_button(
        _("Annotated kingdoms (PNG)"),
        annotated_png(entries),
        file_name="kingdomino-kingdoms.png",
        mime="image/png",
        key=state.DOWNLOAD_PNG,
    )


def annotated_png(entries: Sequence[Entry]) -> bytes:
    """Every kingdom's pictures side by side, one row a player under its name and total."""
    rows = []
    for e in entries:
        pictures = e.pictures or [render.draw_kingdom(e.kingdom, properties=e.breakdown.properties)]
        labelled = render.side_by_side(pictures, 500)
        points = ngettext("{n} point", "{n} points", e.breakdown.total)
        rows.append(caption_above(labelled, f"{e.name}: {points}"))
    width = max(r.shape[1] for r in rows)
    padded = [
        np.pad(r, ((0, 12), (0, width - r.shape[1]), (0, 0)), constant_values=255) for r in rows
    ]
    return render.encode_png(np.vstack(padded))


def caption_above(image: NDArray[Any], text: str) -> NDArray[Any]:
    """The image under a white band with the text in black."""
    band = np.full((44, image.shape[1], 3), 255, np.uint8)
    cv2.putText(band, text, (8, 31), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2, cv2.LINE_AA)
    return np.vstack([band, image])
