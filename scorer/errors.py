"""Named errors: one for each way an input can fail.

Every error the program expects derives from :class:`ScorerError`, so the
command line and the app can turn it into a one-line message with a next
step, and anything else is a real bug.
"""

from __future__ import annotations


class ScorerError(Exception):
    """Base of every expected failure; ``str(err)`` is the message a player sees."""

    hint: str = ""
    """A next step for the player, shown by the app under the message."""


class NotAnImageError(ScorerError):
    """The file is not a readable image (unknown type, corrupt or truncated)."""

    hint = "Upload a JPEG, PNG, WebP or HEIC photo."


class ImageTooLargeError(ScorerError):
    """The image exceeds the pixel or file-size limit."""

    hint = "Resize the photo or take it at a lower resolution."


class BoardNotFoundError(ScorerError):
    """No kingdom-sized area of tiles was found in the photo."""

    hint = "Retake the photo from above with the whole kingdom in frame, or mark its four corners."


class GridNotConsistentError(BoardNotFoundError):
    """Tiles were found but no consistent grid of equal squares fits them."""


class ModelFileError(ScorerError):
    """The trained model file is missing, truncated or does not match its metadata."""

    hint = "Restore models/ from the repository (git checkout models/) or retrain: make train."
