"""The benchmarks' own data: question sets written for kgground (``*.jsonl``, ``qgraph/``),
SPARQL queries (``*.rq``) and the Python data modules (our wordings in ``paraphrases.py``,
the question sets of ``linking_data.py``, the marked sentences of ``linking_texts*.py``).
Public benchmarks are read from ``../shared/data`` at run time, never copied here."""
