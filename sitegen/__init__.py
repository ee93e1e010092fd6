"""The site generator (DR-001): the code ``build.py`` runs to turn ``decisions/`` and ``site_src/`` into ``dist/``.

It may import ``pyapp``, whose results some pages show; ``pyapp`` never imports it, as the package
runs in the browser, where the generator is not.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the project folder: what is built unless another is named
