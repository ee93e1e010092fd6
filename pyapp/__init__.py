"""K-d Tree Explorer: the k-d tree, its trace, and the AI-explanation checks.

Pure Python (the standard library and one vendored pure-Python wheel,
``fastjsonschema``) so the same code runs on CPython and under Pyodide in the
browser (DR-002).
"""

__version__ = "0.1.0"
