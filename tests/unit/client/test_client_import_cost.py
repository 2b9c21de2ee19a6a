"""A sync caller of hookd_client (an agent's per-tool hook, `hookd emit`) does not import asyncio."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_client_does_not_import_asyncio() -> None:
    code = "import sys, hookd_client; from hookd_client import Client; print(sorted(m for m in ('asyncio', 'uvloop') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_the_async_parts_still_load_on_use() -> None:
    code = "from hookd_client import AsyncClient; from hookd_client.stream import AsyncSubscription; print(AsyncClient.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "AsyncClient"
