"""The whole page, top to bottom, and the guard that turns any failure into a message."""

from __future__ import annotations

import traceback
from typing import Final

import streamlit as st

from scorer.i18n import _
from scorer.page.common import FoundKingdom, PhotoView
from scorer.page.downloads import export_ui
from scorer.page.dynasty import dynasty_ui
from scorer.page.inputs import photos_ui, rules_ui, sample_photo, typed_ui
from scorer.page.kingdom import kingdom_ui
from scorer.page.language import language_ui
from scorer.page.photo import photo_ui
from scorer.page.ranking import ranking_ui, standing, summary_ui
from scorer.page.recognition import settings_ui


def main() -> None:
    """Draw the page; any unexpected failure becomes a friendly message, not a traceback."""
    st.set_page_config(page_title="Kingdomino score", page_icon="👑", layout="wide")
    try:
        page()
    except Exception as err:  # the last line of defence: show it, never crash the page
        st.error(
            _(
                "Something unexpected went wrong while scoring. Your photos and corrections "
                "are kept: try again, or remove the last photo you added."
            )
        )
        with st.expander(_("Details for a bug report")):
            st.code("".join(traceback.format_exception(err)), language=None)


def page() -> None:
    """The whole page: the results first (filled in last), then the inputs and the details."""
    language_ui()
    st.html(TAP_TARGETS_CSS)
    st.title("👑 " + _("Kingdomino score"))
    top = st.container()
    rules = rules_ui()
    settings_ui()
    photos, whole_table = photos_ui()
    typed = typed_ui()
    sample = None if photos or typed else sample_photo()
    if sample is not None:
        photos = [sample]
        st.info(
            _(
                "This is a sample photo, already scored. Upload or take a photo of your own "
                "kingdom to replace it."
            )
        )
    if sample is not None or (not photos and not typed):
        with top:
            st.caption(
                _(
                    "Photograph each finished kingdom, check the squares, fix any the camera "
                    "misread, and see who wins — with every tie-break explained."
                )
            )
    found: list[FoundKingdom] = []
    views: dict[str, PhotoView] = {}
    for photo in photos:
        kingdoms, view = photo_ui(photo, rules, whole_table)
        if view is not None:
            views[photo.key] = view
        found.extend(kingdoms)
    found.extend(typed)
    if not found:
        st.info(_("Add a photo or type a kingdom's grid to see its score."))
        return
    details = st.container()
    st.subheader(_("Kingdoms"))
    entries = [kingdom_ui(f, i, rules, views.get(f.photo_key or "")) for i, f in enumerate(found)]
    game = standing(entries, rules)
    with top:
        summary_ui(entries, game)
    with details:
        ranking_ui(entries, rules, game)
    dynasty_ui(entries, rules)
    export_ui(entries, rules, game.ranking)


TAP_TARGETS_CSS: Final = """<style>
/* Tap targets the page defines are at least 44 px, the size a fingertip needs. */
[data-testid="stFileUploaderDeleteBtn"] button,
[data-testid="stFileUploader"] section button {
  min-width: 44px;
  min-height: 44px;
}
.stButton button, .stDownloadButton button, .stFormSubmitButton button {
  min-height: 44px;
}
[data-testid="stSelectbox"] [role="group"] {
  min-height: 44px;
}
[role="listbox"] [role="option"] {
  min-height: 44px;
}
[data-testid="stExpander"] summary {
  min-height: 44px;
}
/* On a phone, a kingdom's name and total share a line, and the photo around it is short. */
@media (max-width: 640px) {
  [class*="st-key-kingdom-head"] [data-testid="stHorizontalBlock"] {
    flex-wrap: nowrap;
  }
  [class*="st-key-kingdom-head"] [data-testid="stColumn"] {
    min-width: 0;
  }
  [class*="st-key-photo-crop"] img {
    max-height: 240px;
    object-fit: contain;
  }
}
</style>"""
"""Style that makes the page's own buttons, the photo's remove button, the square picker and
its options, and the panels' headers at least 44 pixels high, and keeps a kingdom's details
short on a phone."""
