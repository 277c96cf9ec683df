"""The scoring page in parts: inputs, photos, one kingdom, ranking, Dynasty and downloads.

:func:`scorer.page.main.main` draws the whole page; ``app.py`` only calls it.
"""
