"""The command line's run against the fake provider server, shared by the tests of run and of its log in the page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run([sys.executable, "-m", "pyapp", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**clean, **(env or {})})


FINGERPRINT_AFTER = 30  # requests 1-29 report fp_1, later ones fp_2: drift in the second run


KEY = "sk-local-terminal-secret-0123456789"


ROOT = Path(__file__).resolve().parents[2]


def start_fake(*args: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "fake_provider.py"), *args],
                               stdout=subprocess.PIPE, text=True, cwd=ROOT)
    return process, process.stdout.readline().strip()


def stop_fake(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=10)
    process.stdout.close()
