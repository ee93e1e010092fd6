"""The edge between pyapp and Inspect AI (DR-014): runs exported as Inspect eval logs, Inspect logs of the set's
task read back as audit entries, and the set as an Inspect task.

An edge beside ``pyapp.browser``, below ``pyapp.cli``: may import every layer from ``pyapp.presentation`` down,
never ``pyapp.browser`` or ``pyapp.cli``. ``inspect_ai`` is an optional extra (``pip install '.[inspect]'``), so
only ``inspect_export``, ``inspect_scores`` and ``inspect_task`` import it when they are imported; the command
line imports them inside its functions. The site's wheel leaves this package out: Inspect never runs in the page.
"""
