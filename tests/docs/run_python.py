"""Runs one page's Python samples in order, in one namespace, as a reader pasting them would.

Usage: python run_python.py SAMPLES.json RAN_FILE. Each sample is compiled under its
page and line, so a traceback names where in the docs it failed; each one that ran
to its end is appended to RAN_FILE.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    with open(sys.argv[1]) as f:
        blocks = json.load(f)
    namespace: dict[str, object] = {"__name__": "__main__"}
    for block in blocks:
        code = compile(block["text"], block["where"], "exec")
        if not block["compile_only"]:
            exec(code, namespace)
        with open(sys.argv[2], "a") as ran:
            ran.write(block["where"] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
