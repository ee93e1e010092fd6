"""``python -m pyapp``: the command line (see pyapp.cli)."""

from __future__ import annotations

import sys

from pyapp.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
