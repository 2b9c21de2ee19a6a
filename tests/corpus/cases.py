"""The corpus: hooks in the style of published Claude Code hook scripts (our own code; README.md names
the public scripts each one stands for), how a settings file installs them, and the payloads to run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOOKS = Path(__file__).parent / "hooks"


@dataclass(frozen=True)
class Payload:
    label: str
    fields: dict[str, Any]  # the event's own input fields (common ones are added by the test)
    files: dict[str, str] = field(default_factory=dict)  # project files written before the call (relative path: text)


@dataclass(frozen=True)
class Case:
    script: str
    event: str
    matcher: str | None
    command: str  # as the settings file has it; {script} is the script's name under .claude/hooks
    payloads: tuple[Payload, ...]
    git_branch: str | None = None  # the project is a git repository on this branch
    timeout: int | None = None

    @property
    def id(self) -> str:
        return self.script.rsplit(".", 1)[0]


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_01"}


def edit(path: str, tool: str = "Write") -> dict[str, Any]:
    return {"tool_name": tool, "tool_input": {"file_path": path, "content": "x = 1\n"}, "tool_use_id": "toolu_02"}


def posted(path: str, tool: str = "Write") -> dict[str, Any]:
    return {**edit(path, tool), "tool_response": {"filePath": path, "success": True}}


ABS = "$CLAUDE_PROJECT_DIR/.claude/hooks/{script}"  # the form the hooks guide recommends
REL = ".claude/hooks/{script}"  # a relative path: found only when the hook runs in the project

CASES: tuple[Case, ...] = (
    Case(
        "bash_validator.py",
        "PreToolUse",
        "Bash",
        "python3 " + ABS,
        (
            Payload("grep is refused", bash("grep -r TODO src")),
            Payload("find -name is refused", bash("find . -name '*.py'")),
            Payload("rg passes", bash("rg TODO")),
            Payload("grep in a pipe passes", bash("ls | grep x")),
        ),
    ),
    Case(
        "protect_env.sh",
        "PreToolUse",
        "Edit|Write",
        REL,
        (
            Payload(".env is refused", edit("{project}/.env")),
            Payload(".env.production is refused", edit("{project}/config/.env.production", "Edit")),
            Payload(".env.example passes", edit("{project}/.env.example")),
            Payload("source passes", edit("{project}/src/app.py")),
        ),
    ),
    Case(
        "main_branch_guard.sh",
        "PreToolUse",
        "Bash",
        REL,
        (
            Payload("commit on main is denied", bash("git commit -m wip")),
            Payload("push on main is denied", bash("git push origin main")),
            Payload("status passes", bash("git status")),
        ),
        git_branch="main",
    ),
    Case(
        "no_edit_on_main.py",
        "PreToolUse",
        "Edit|Write|MultiEdit",
        ABS,
        (Payload("edit on main is refused", edit("{project}/src/app.py", "Edit")), Payload("Read passes", edit("{project}/a", "Read"))),
        git_branch="main",
    ),
    Case(
        "session_context.sh",
        "SessionStart",
        "startup|resume",
        REL,
        (
            Payload("startup context", {"source": "startup", "model": "claude-sonnet-4-6"}, {"CLAUDE.md": "# notes\n", "wip.txt": "x"}),
            Payload("clear is not matched", {"source": "clear"}),
        ),
        git_branch="feature/login",
    ),
    Case(
        "session_context_json.sh",
        "SessionStart",
        None,
        ABS,
        (Payload("startup context", {"source": "startup"}), Payload("resume says nothing", {"source": "resume"})),
        git_branch="main",
    ),
    Case(
        "tool_logger.sh",
        "PostToolUse",
        "*",
        REL,
        (
            Payload("Bash is logged", {**bash("ls"), "tool_response": {"stdout": "a\n"}}),
            Payload("Write is logged", posted("{project}/n.md")),
        ),
    ),
    Case(
        "format_on_write.js",
        "PostToolUse",
        "Edit|Write",
        "node " + ABS,
        (
            Payload("a messy file is tidied", posted("{project}/src/messy.py"), {"src/messy.py": "x = 1   \n\n\n"}),
            Payload("a tidy file is left alone", posted("{project}/src/tidy.py"), {"src/tidy.py": "y = 2\n"}),
        ),
    ),
    Case(
        "stop_until_tests_pass.py",
        "Stop",
        None,
        "python3 " + ABS,
        (
            Payload("failing tests keep Claude going", {"stop_hook_active": False}, {".claude/tests-failing": "3 failed"}),
            Payload("an active stop hook lets it stop", {"stop_hook_active": True}),
        ),
    ),
    Case(
        "prompt_secrets.py",
        "UserPromptSubmit",
        None,
        "python3 " + ABS,
        (
            Payload("a secret is blocked", {"prompt": "use key sk-abcdefghijklmnopqrstuvwxyz123456 please"}),
            Payload("a plain prompt gets context", {"prompt": "refactor the parser"}),
        ),
    ),
    Case(
        "safe_bash.js",
        "PreToolUse",
        "Bash",
        "node " + REL,
        (Payload("--no-verify is denied", bash("git commit --no-verify -m x")), Payload("ls is allowed", bash("ls -la"))),
    ),
    Case(
        "git_c_rewrite.py",
        "PreToolUse",
        "Bash",
        ABS,
        (Payload("git -C here is rewritten", bash("git -C {project} status --short")), Payload("other commands pass", bash("make test"))),
    ),
    Case(
        "lint_shell.sh",
        "PostToolUse",
        "Write",
        REL,
        (
            Payload("a missing linter is a non-blocking error", posted("{project}/run.sh")),
            Payload("not a script", posted("{project}/a.txt")),
        ),
    ),
    Case(
        "compact_backup.py",
        "PreCompact",
        "manual|auto",
        ABS,
        (
            Payload("the transcript is kept", {"trigger": "manual", "custom_instructions": None}),
            Payload("a lock blocks compaction", {"trigger": "auto", "custom_instructions": None}, {".claude/no-compact": ""}),
        ),
    ),
    Case(
        "stop_continue_false.py",
        "Stop",
        None,
        REL,
        (Payload("a spent budget ends the session", {"stop_hook_active": False}, {".claude/budget-spent": ""}),),
    ),
)
