"""One explanation of one search (DR-005): the prompt built from the trace, the answer schema, the five
mechanical checks, the grade of an answer, and the rubric people rate the prose on.

May import: ``pyapp.kdtree``, ``pyapp.core``.
"""
