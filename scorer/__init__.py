"""Kingdomino score assistant: photograph a finished kingdom and get its score."""

__version__ = "0.1.0"
