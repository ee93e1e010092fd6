"""The append-only audit log (DR-005, DR-006): the entries it holds and their strict validation, the reject
rules that plan entries store, and the checkpoint of a read log the worker keeps.

May import: ``pyapp.providers``, ``pyapp.explanation``, ``pyapp.kdtree``, ``pyapp.core``.
"""
