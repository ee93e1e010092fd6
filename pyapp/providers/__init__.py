"""Asking a model (DR-005): the request settings, one small interface (``api``) over the vendors'
modules (``anthropic``, ``openai``), what crosses the wire, the errors a visitor reads, the audited
client with its retries, and keeping the API key out of every text (``keyguard``).

May import: ``pyapp.explanation``, ``pyapp.kdtree``, ``pyapp.core``.
"""
