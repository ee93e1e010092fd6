"""The wheel of ``pyapp`` that the site loads into Pyodide (DR-002), built from pyproject.toml.

What the package holds is defined once, by setuptools' keys in pyproject.toml: each package that
``packages.find`` finds (a folder with an ``__init__.py`` whose dotted name matches an ``include``
pattern) brings its own modules (``*.py``) and the files its ``package-data`` patterns match.
Fixed times, modes and order keep the wheel byte-identical from build to build.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import io
import re
import tomllib
from pathlib import Path

FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def project_config(root: Path) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))


def package_files(root: Path) -> dict[str, bytes]:
    """The package's files, by path inside the wheel, in sorted order."""
    setuptools = project_config(root)["tool"]["setuptools"]
    package_data = setuptools.get("package-data", {})
    paths: set[Path] = set()
    for package in found_packages(root, setuptools["packages"]["find"]["include"]):
        folder = root / package.replace(".", "/")
        paths |= set(folder.glob("*.py"))
        for pattern in [*package_data.get(package, []), *package_data.get("*", [])]:
            paths |= {path for path in folder.glob(pattern) if path.is_file()}
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(paths)}


def found_packages(root: Path, include: list[str]) -> list[str]:
    """The dotted names of the packages under ``root`` that match an ``include`` pattern, as setuptools finds them."""
    tops = [folder for folder in root.iterdir() if folder.is_dir()
            and any(fnmatch.fnmatchcase(folder.name, pattern.split(".")[0]) for pattern in include)]
    names = (init.parent.relative_to(root).as_posix().replace("/", ".")
             for top in tops for init in top.rglob("__init__.py"))
    return sorted(name for name in names if any(fnmatch.fnmatchcase(name, pattern) for pattern in include))


def build_wheel(root: Path) -> tuple[str, bytes]:
    """The wheel's file name and bytes: the package's files plus METADATA, WHEEL and RECORD."""
    name, files = wheel_contents(root)
    return name, zip_wheel(files)


# What the site's wheel of pyapp leaves out of the package definition.
LEFT_OUT = ("sitegen/", "pyapp/bridges/")


def wheel_contents(root: Path) -> tuple[str, dict[str, bytes]]:
    """The wheel's file name and every file it holds, by path inside it, in the order it holds them."""
    project = project_config(root)["project"]
    name, version = re.sub(r"[-_.]+", "_", project["name"]).lower(), project["version"]
    dist_info = f"{name}-{version}.dist-info"
    # The generator is a package of the project too, for pip: it builds the site and never runs in it. The bridge
    # to Inspect AI needs inspect_ai, which Pyodide cannot load, and nothing in the page uses it (DR-014).
    files = {path: data for path, data in package_files(root).items() if not path.startswith(LEFT_OUT)}
    files[f"{dist_info}/METADATA"] = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {version}\n".encode()
    files[f"{dist_info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: build.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [f"{path},sha256={_digest(data)},{len(data)}" for path, data in files.items()]
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,", ""]).encode()
    return f"{name}-{version}-py3-none-any.whl", files


def zip_wheel(files: dict[str, bytes]) -> bytes:
    """The wheel's bytes: ``files`` in their order, with fixed times and modes."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
