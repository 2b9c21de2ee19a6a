"""JsonFormatPlugin, seed 004's example, in Python.

After a ``read`` of a ``.json`` file, rewrite a one-line (minified) JSON file
on disk pretty-printed with 2-space indents. A file already formatted that way
is left alone, so a second read changes nothing.

Install: copy this file into ``$XDG_CONFIG_HOME/hookd/plugins/`` (all your
projects) or ``<project>/.hookd/plugins/`` (one project, once trusted with
``hookd trust PROJECT``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


async def JsonFormatPlugin(ctx: Any) -> dict[str, Any]:
    async def after(inp: dict[str, Any], output: dict[str, Any]) -> None:
        if inp.get("tool") != "read":
            return
        args = inp.get("args") or {}
        # The seed reads args.filePath, falling back to the first positional argument.
        file_path = args.get("filePath", "") if isinstance(args, dict) else (args[0] if args else "")
        if not isinstance(file_path, str) or not file_path.endswith(".json"):
            return
        try:
            path = Path(file_path)
            raw = path.read_text(encoding="utf-8").strip()
            formatted = json.dumps(json.loads(raw), indent=2, ensure_ascii=False) + "\n"
            if formatted == raw or formatted.strip() == raw:
                return
            path.write_text(formatted, encoding="utf-8")
        except (OSError, ValueError):
            pass  # as in the seed: a file that is not JSON, or not readable, is not ours to fix

    return {"tool.execute.after": after}
