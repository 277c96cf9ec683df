"""Kingdomino score assistant: photograph a finished kingdom and get its score."""

from pathlib import Path

__version__ = "0.1.0"

DATA_DIR = Path(__file__).resolve().parent / "data"
"""The data shipped inside the package: the tile set, the terrains' colours, the visual
words. Read as plain files (the package is always installed unpacked), which spares a
command the import of ``importlib.resources`` (about 3 ms of a cold start)."""
