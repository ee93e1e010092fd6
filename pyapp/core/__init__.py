"""The vocabulary every layer shares: the names of outcomes, actions and entry types, what a JSON value
from outside may hold (and the scan for hostile ones), strict JSON parsing, number formatting, and the
collector pause for bulk passes.

The bottom layer: imports nothing from pyapp.
"""
