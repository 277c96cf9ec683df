"""A picture the player taps: the page's own small component, for the corners and the squares.

It reports each click as ``{"x", "y", "width", "height", "unix_time"}`` (the point, in the
picture as drawn, the size drawn, and when), the shape
:func:`scorer.page.state.new_click` expects. Its frame follows the picture's height whenever
the width changes (a phone turned, a window narrowed, the sidebar opened), so no blank band
is left under a wide photo. The frontend is ``picker_frontend/``: plain HTML and script.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Final

import cv2
import streamlit.components.v1 as components
from numpy.typing import NDArray

FRONTEND: Final = Path(__file__).with_name("picker_frontend")
"""The folder of the component's page and script."""

_component = components.declare_component("image_picker", path=str(FRONTEND))


def image_picker(
    image: NDArray[Any], *, key: str, cursor: str = "pointer", alt: str = "", quality: int = 85
) -> dict[str, Any] | None:
    """Draw a BGR picture across its column; return the last click on it, or None.

    Parameters
    ----------
    image : ndarray
        The picture, BGR ``uint8``.
    key : str
        The widget's key; a new key starts without a click.
    cursor : str
        The CSS cursor over the picture.
    alt : str
        The picture's text for screen readers.
    quality : int
        JPEG quality of the picture sent to the browser.

    Returns
    -------
    dict or None
    """
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the picture could not be encoded")
    src = "data:image/jpeg;base64," + base64.b64encode(data.tobytes()).decode("ascii")
    value: dict[str, Any] | None = _component(
        src=src, cursor=cursor, alt=alt, key=key, default=None
    )
    return value
