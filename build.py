"""Build the K-d Tree Explorer site into ``dist/`` and optionally serve it (DR-001).

The command line of the site generator, the package ``sitegen``, which says how the build works.

    python build.py                 build dist/
    python build.py --serve         build, then serve on http://127.0.0.1:8000/
    python build.py --serve --prefix /kd/   serve under a sub-path
    python build.py --root PROJECT  build another project folder into PROJECT/dist/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sitegen import ROOT
from sitegen.builder import build
from sitegen.problems import BuildFailed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", action="store_true", help="serve dist/ on 127.0.0.1 after building")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--prefix", default="/", help="serve the site under this sub-path, e.g. /kd/")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project folder to build (default: this one)")
    args = parser.parse_args(argv)
    dist = args.root / "dist"
    try:
        files = build(args.root, dist)
    except BuildFailed as failure:
        for problem in failure.problems:
            print(problem, file=sys.stderr)
        print(f"build failed: {len(failure.problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"built {len(files)} files into dist/")
    if args.serve:
        from sitegen import serve  # http.server only when serving

        serve.serve_forever(dist, args.port, args.prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
