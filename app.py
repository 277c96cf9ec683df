"""The scoring page: photograph each kingdom, check it, correct it, and rank the players.

Run it with ``make run`` (or ``streamlit run app.py``). The page lives in :mod:`scorer.page`;
it calls :mod:`scorer.pipeline` for photos and :mod:`scorer.rules.scoring` for the rules,
and draws what they return with :mod:`scorer.results.render`.
"""

from scorer.page.main import main

if __name__ == "__main__":
    main()
