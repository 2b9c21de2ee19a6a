"""A scripted OpenAI Chat Completions server for driving the GitHub Copilot CLI offline.

`POST /v1/chat/completions` with tools and no `tool` message yet: one `tool_calls` entry for Copilot's
`bash` tool (`{"command": COMMAND, "description": ...}`); once the conversation holds the tool's result,
text. Requests without tools (side queries) get short text. Streamed (`stream: true`, server-sent `data:`
chunks) or not, as asked. Every request is appended, one JSON line each, to the log file.

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

With READY_FILE, the response carrying the `tool_calls` entry waits (at most a minute) until that file exists:
a test uses it to let another program attach its session hooks before Copilot runs the command.
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
        return "bash", {"command": self.command_to_run, "description": "run it"}


if __name__ == "__main__":
    serve(Handler)
