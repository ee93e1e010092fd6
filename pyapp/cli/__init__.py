"""The command line, ``python -m pyapp`` (README), and its terminal runner that sends with ``urllib``.

The top layer beside ``pyapp.browser``; may import every layer below, never ``pyapp.browser``.
"""
