"""The command line's run against the fake provider server, shared by the tests of run and of its log in the page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, env: dict | None = None, file_size_limit: int | None = None) -> subprocess.CompletedProcess:
    """``python -m pyapp ARGS`` in a process of its own; ``file_size_limit`` bytes is the most it may write to a
    file, as a full disk would stop it (Python ignores SIGXFSZ, so the write fails with EFBIG)."""
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run([sys.executable, "-m", "pyapp", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**clean, **(env or {})},
                          preexec_fn=None if file_size_limit is None else limit)


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


def main_in_thread(args: list[str]) -> int:
    """``pyapp.cli.main.main(args)`` in this process but a thread of its own, as ``live_call.run_async`` runs a
    coroutine: ``run`` calls ``asyncio.run``, which refuses to start beside Playwright's loop in the main thread."""
    from concurrent.futures import ThreadPoolExecutor

    from pyapp.cli.main import main

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(main, args).result()
