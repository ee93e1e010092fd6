"""The experiment that compares the five insertion orders on seeded queries (DR-010).

May import: ``pyapp.evaluation`` and every layer below it.
"""
