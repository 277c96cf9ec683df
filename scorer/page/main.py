"""The whole page, top to bottom, and the guard that turns any failure into a message."""

from __future__ import annotations

import traceback

import streamlit as st

from scorer.page.common import Analysis, FoundKingdom, Photo
from scorer.page.downloads import export_ui
from scorer.page.dynasty import dynasty_ui
from scorer.page.inputs import photos_ui, rules_ui, sample_photo, typed_ui
from scorer.page.kingdom import kingdom_ui
from scorer.page.photo import photo_ui
from scorer.page.ranking import ranking_ui


def main() -> None:
    """Draw the page; any unexpected failure becomes a friendly message, not a traceback."""
    st.set_page_config(page_title="Kingdomino score", page_icon="👑", layout="wide")
    try:
        page()
    except Exception as err:  # the last line of defence: show it, never crash the page
        st.error(
            "Something unexpected went wrong while scoring. Your photos and corrections are "
            "kept: try again, or remove the last photo you added."
        )
        with st.expander("Details for a bug report"):
            st.code("".join(traceback.format_exception(err)), language=None)


def page() -> None:
    """The whole page, top to bottom."""
    st.title("👑 Kingdomino score")
    st.caption(
        "Photograph each finished kingdom, check the squares, fix any the camera misread, "
        "and see who wins — with every tie-break explained."
    )
    rules = rules_ui()
    photos, whole_table = photos_ui()
    typed = typed_ui()
    if not photos and not typed:
        sample = sample_photo()
        if sample is not None:
            photos = [sample]
            st.info(
                "This is a sample photo, already scored. Upload or take a photo of your own "
                "kingdom to replace it."
            )
    found: list[FoundKingdom] = []
    context: dict[str, tuple[Photo, Analysis]] = {}
    for photo in photos:
        kingdoms, analysis = photo_ui(photo, rules, whole_table)
        context[photo.key] = (photo, analysis)
        found.extend(kingdoms)
    found.extend(typed)
    if not found:
        st.info("Add a photo or type a kingdom's grid to see its score.")
        return
    summary = st.container()
    st.subheader("Kingdoms")
    entries = [kingdom_ui(f, i, rules, context.get(f.photo_key or "")) for i, f in enumerate(found)]
    with summary:
        ranking = ranking_ui(entries, rules)
    dynasty_ui(entries, rules)
    export_ui(entries, rules, ranking)
