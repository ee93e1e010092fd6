"""What the pages show and the command line prints: the view models of the explorer, the evaluation page and
the experiments page, and every text and HTML formatter of their figures.

May import: ``pyapp.asking`` and every layer below it.
"""
