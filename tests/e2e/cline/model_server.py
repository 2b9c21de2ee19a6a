"""A scripted OpenAI Chat Completions server for driving the Cline CLI offline.

`POST /v1/chat/completions` with tools and no `tool` message yet: one `tool_calls` entry for Cline's
`run_commands` tool (`{"commands": [COMMAND]}`); once the conversation holds the tool's result, text.
Requests without tools get short text. Streamed or not, as asked. Every request is appended, one JSON line
each, to the log file.

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

COMMAND may hold several commands separated by a line holding only `;;`: the one tool call then carries
them all. With READY_FILE, the response carrying the `tool_calls` entry waits (at most a minute) until that
file exists.
"""

from __future__ import annotations

import os
import sys

# The shared part of the scripted servers (run as a script, not imported): scripted.py next to this
# directory, chat_completions.py in the Copilot suite.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "copilot"))
from chat_completions import ChatHandler
from scripted import serve


class Handler(ChatHandler):
    def tool_call(self) -> tuple[str, dict[str, object]]:
        return "run_commands", {"commands": [c.strip() for c in self.command_to_run.split("\n;;\n")]}


if __name__ == "__main__":
    serve(Handler)
