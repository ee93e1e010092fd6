"""The site generator (DR-001): the code ``build.py`` runs to turn ``decisions/`` and ``site_src/`` into ``dist/``.

It may import ``pyapp``, whose results some pages show; ``pyapp`` never imports it, as the package
runs in the browser, where the generator is not.
"""
