"""Asking a model (DR-005): the request settings, the two vendors' request builders and reply parsers,
the audited client with its retries, and keeping the API key out of every text.

May import: ``pyapp.explanation``, ``pyapp.kdtree``, ``pyapp.core``.
"""
