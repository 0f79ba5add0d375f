"""kgground's benchmarks: one script per area (``bench_*.py``), the scripts that fit the
shipped models (``fit_*.py``) and write question files (``make_*.py``), and their data
(``bench/data/``). ``python -m bench`` lists them; ``python -m bench NAME [ARGS]`` runs one,
exactly as ``python bench/SCRIPT.py [ARGS]`` does. Figures: ``bench/RESULTS.md``."""
