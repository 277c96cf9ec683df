"""Named errors: one for each way an input can fail.

Every error the program expects derives from :class:`ScorerError`, so the
command line and the app can turn it into a one-line message with a next
step, and anything else is a real bug.
"""

from __future__ import annotations

from scorer.rules.phrase import N_


class ScorerError(Exception):
    """Base of every expected failure; ``str(err)`` is the message a player sees."""

    hint: str = ""
    """A next step for the player, shown by the app under the message (a message id: the page
    and the command line translate it)."""


class NotAnImageError(ScorerError):
    """The file is not a readable image (unknown type, corrupt or truncated)."""

    hint = N_("Upload a JPEG, PNG, WebP or HEIC photo.")


class DamagedImageError(NotAnImageError):
    """The file is an image whose data is cut short or corrupt: it would decode wrongly."""

    hint = N_("Copy the photo from the camera again, or take it again.")


class ImageTooLargeError(ScorerError):
    """The image exceeds the pixel or file-size limit."""

    hint = N_("Resize the photo or take it at a lower resolution.")


class BoardNotFoundError(ScorerError):
    """No kingdom-sized area of tiles was found in the photo."""

    hint = N_(
        "Retake the photo from above with the whole kingdom in frame, or mark its four corners."
    )


class GridNotConsistentError(BoardNotFoundError):
    """Tiles were found but no consistent grid of equal squares fits them."""


class MarkedCornersError(BoardNotFoundError):
    """The corners the player marked do not outline a kingdom inside the photo."""

    hint = N_("Mark the kingdom's four corners on the photo, going round it.")


class ModelFileError(ScorerError):
    """The trained model file is missing, truncated or does not match its metadata."""

    hint = N_("Restore models/ from the repository (git checkout models/) or retrain: make train.")


class StoreError(ScorerError):
    """The saved-games file cannot be used: not a games file, damaged, or from a newer version.

    The file is never overwritten when this is raised.
    """

    hint = N_(
        "The file was left unchanged. Move it aside, or set KINGDOMINO_DB to another file, "
        "and saved games start afresh there."
    )


class DynastyError(StoreError):
    """A game cannot join its Dynasty: already three games, other players or other rules."""

    hint = N_("Use the same players and rules as the Dynasty's first game, or start a new Dynasty.")


class StoreBusyError(StoreError):
    """Another window kept the saved-games file busy for too long; nothing was written."""

    hint = N_("Try again in a moment.")
