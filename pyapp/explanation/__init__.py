"""One explanation of one search (DR-005): the prompt built from the trace, the answer schema, the five
mechanical checks, the grade of an answer, the rubric people rate the prose on, and the prompt and verdict of a
model judge that answers the same rubric (DR-012).

May import: ``pyapp.kdtree``, ``pyapp.core``.
"""
