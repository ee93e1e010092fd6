"""Asking for explanations with I/O passed in (DR-005, DR-006): one search explained, and a run of a set, one
call at a time or a few at once under one back-off; and a model judge asked about counted answers (DR-012).
The page and the command line give their own transport, clock, storage and progress.

May import: ``pyapp.experiment`` and every layer below it.
"""
