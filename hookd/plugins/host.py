"""The plugin host: one process per plugin directory, a persistent hook worker.

Started by the daemon as ``python -I -S -B -c BOOT LIB SITE FILES DIRECTORY``
(see :data:`BOOT`): isolated, so nothing from the environment, the user's site
or the working directory is importable. Its ``sys.path`` holds only the
standard library, LIB (hookd_client and this module, linked from the daemon's
installation), the directory's virtualenv site-packages (SITE, when it has a
requirements.txt) and FILES, the daemon's verified private copy of the plugin
directory (hookd/plugins/snapshot.py); its working directory is an empty
private directory. DIRECTORY, the plugin directory itself, is data for the
plugins (``ctx.directory``); nothing is imported from it.
It imports every top-level ``*.py``
file of the copy in file-name order, calls every public function defined
there with a context; each one that returns a dict of ``event -> handler`` is a
plugin. Then it serves the worker protocol on stdin/stdout, one JSON object
per line (docs/plugins.md):

    in:  {"id", "point", "session", "project", "hook", "event", "payload"}
    out: {"id", "decision": HookDecision | null, "errors": [...]}  or  {"id", "error": "..."}

At start, after the imports, the host calls every ``config`` handler with the
scope's effective configuration ($HOOKD_PLUGIN_CONFIG, JSON). A request on
point ``hookd.plugin.describe`` answers with the events it handles and the
load errors. Requests run concurrently (async handlers interleave);
the answers may come out of order. Standard library, msgspec-free hookd parts
and hookd_client only: this file runs in the plugin's interpreter, not the
daemon's.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import inspect
import json
import logging
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd_client.plugin import Block

from hookd.plugins import events

Handler = Callable[..., Any]
DESCRIBE = "hookd.plugin.describe"
CONFIG_ENV = "HOOKD_PLUGIN_CONFIG"

# The whole command line of ``python -I -S -B -c BOOT LIB SITE FILES DIRECTORY``.
BOOT = """\
import sys
lib, site_dir, files, directory = sys.argv[1:5]
sys.path[:] = [p for p in sys.path if p not in ("", ".")] + [lib]
if site_dir:  # the venv's packages (.pth files too); without site.py, its prefix is set here
    import os, site
    sys.prefix = sys.exec_prefix = os.path.dirname(os.path.dirname(os.path.dirname(site_dir)))
    site.addsitedir(site_dir)
from hookd.plugins.host import main
sys.exit(main(files, directory))
"""


@dataclass(slots=True)
class Registered:
    label: str  # "file.py:Export"
    handler: Handler
    one_arg: bool


class Sessions:
    """Per-session scratch state a plugin keeps between calls (in this host's memory).

    On first use it follows the daemon's ``hookd.session.disposed`` events (a
    subscription on a thread of its own) and drops a disposed session's state.
    """

    def __init__(self, socket: str | None = None) -> None:
        self._data: dict[str, dict[str, Any]] = {}
        self._socket = socket
        self._following = False

    def get(self, session: str | None) -> dict[str, Any]:
        if not self._following and self._socket:
            self._following = True
            try:
                loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            threading.Thread(target=self._follow, args=(loop,), name="hookd-sessions", daemon=True).start()
        return self._data.setdefault(session or "", {})

    def drop(self, session: str) -> None:
        self._data.pop(session, None)

    def _follow(self, loop: asyncio.AbstractEventLoop | None) -> None:
        from hookd_client import Client

        while True:
            try:
                with Client(self._socket, name="plugin-sessions") as client:
                    for event in client.subscribe(["hookd.session.disposed"]):
                        if event.session:
                            if loop is not None:
                                loop.call_soon_threadsafe(self.drop, event.session)
                            else:
                                self.drop(event.session)
            except Exception as exc:  # the daemon restarts, or stops: try again while this host lives
                logging.getLogger("hookd.plugin.sessions").info("session events: %s", exc)
            time.sleep(1.0)


@dataclass(slots=True)
class PluginContext:
    """What a plugin function receives: where it runs, a logger, state, a client."""

    directory: str
    scope: str
    project: str | None
    worktree: str | None
    log: logging.Logger
    sessions: Sessions = field(default_factory=Sessions)
    _client: Any = None

    @property
    def client(self) -> Any:
        """A hookd_client.Client to the daemon that runs this plugin (connected on first use)."""
        if self._client is None:
            from hookd_client import Client

            self._client = Client(os.environ.get("HOOKD_SOCKET") or None, name=f"plugin:{self.directory}")
        return self._client

    def emit(self, point: str, payload: dict[str, Any], session: str | None = None) -> None:
        """Publish an event through the daemon (observers only; never awaited by anyone)."""
        self.client.emit(point, payload, session=session, project=self.project)


def _accepts_one(fn: Handler) -> bool:
    try:
        params = [
            p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):
        return False
    return len(params) == 1 and params[0].kind != inspect.Parameter.VAR_POSITIONAL


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    tb = traceback.extract_tb(exc.__traceback__)
    if tb:
        last = tb[-1]
        text += f" (at {Path(last.filename).name}:{last.lineno})"
    return text


class Host:
    def __init__(self, directory: str, ctx: PluginContext) -> None:
        self.directory = directory  # where the code is imported from: the verified copy
        self.ctx = ctx
        self.handlers: dict[str, list[Registered]] = {}
        self.load_errors: list[dict[str, str]] = []

    # ---------------------------------------------------------------- loading

    def _import(self, path: Path) -> Any:
        name = path.stem if path.stem.isidentifier() and path.stem not in sys.modules else f"_hookd_plugin_{abs(hash(str(path)))}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module

    @staticmethod
    def _exports(module: Any) -> list[tuple[str, Any]]:
        names = getattr(module, "__all__", None)
        if names is None:
            names = [
                n for n, v in vars(module).items() if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == module.__name__
            ]
        return [(n, getattr(module, n)) for n in names if callable(getattr(module, n, None))]

    async def load(self) -> None:
        # Helper modules and packages beside the plugins import each other by name; appended, so they
        # never shadow the stdlib.
        if self.directory not in sys.path:
            sys.path.append(self.directory)
        for path in sorted(Path(self.directory).glob("*.py")):
            if path.name.startswith("_"):
                continue  # a helper module: the plugins import it by name; it is not a plugin itself
            try:
                module = self._import(path)
            except BaseException as exc:  # a plugin's import error is its problem, not the host's
                self.load_errors.append({"handler": path.name, "message": _describe(exc)})
                continue
            for export, fn in self._exports(module):
                label = f"{path.name}:{export}"
                try:
                    hooks = fn(self.ctx)
                    if inspect.isawaitable(hooks):
                        hooks = await hooks
                except BaseException as exc:
                    self.load_errors.append({"handler": label, "message": _describe(exc)})
                    continue
                if not isinstance(hooks, dict):
                    continue  # not a plugin function, just a public helper
                for event, handler in hooks.items():
                    if not isinstance(event, str) or not callable(handler):
                        self.load_errors.append({"handler": label, "message": f"hooks[{event!r}] is not a callable"})
                        continue
                    self.handlers.setdefault(event, []).append(Registered(label, handler, _accepts_one(handler)))

    # ---------------------------------------------------------------- serving

    async def _call(self, reg: Registered, inp: dict[str, Any], out: dict[str, Any]) -> None:
        result = reg.handler(inp) if reg.one_arg else reg.handler(inp, out)
        if inspect.isawaitable(result):
            await result

    async def run_chain(self, event: str, point: str, payload: dict[str, Any], replay: bool = False) -> dict[str, Any]:
        """Run ``event``'s handlers in order on one call; the answer line (without id). A replayed
        call (`hookd replay`) has ``replay: true`` in the handlers' input."""
        chain = self.handlers.get(event, [])
        errors: list[dict[str, str]] = []
        inp: dict[str, Any]
        out: dict[str, Any]
        if event == "event":
            inp, out = {"event": {"type": point, "properties": payload}}, {}
        elif event == "config":
            inp, out = payload, {}
        else:
            inp, out = events.split(point, payload)
        if replay:
            inp = {**inp, "replay": True}
        blockable = events.shape(point).blockable and event == point
        before = copy.deepcopy(out)
        status_by: str | None = None
        for reg in chain:
            kept = copy.deepcopy(out)
            try:
                await self._call(reg, inp, out)
                if out.get("status") != kept.get("status"):
                    status_by = reg.label
            except Block as exc:
                if blockable:
                    return {"decision": events.blocked(exc.reason), "errors": errors}
                errors.append({"handler": reg.label, "message": f"Block({exc.reason!r}) raised on {point!r}, which cannot be blocked"})
                out.clear()
                out.update(kept)
            except Exception as exc:
                errors.append({"handler": reg.label, "message": _describe(exc)})
                out.clear()
                out.update(kept)  # the chain goes on with the output as it was before this handler
        if not blockable:
            return {"decision": None, "errors": errors}
        return {"decision": events.conclude(point, before, out, status_by), "errors": errors}

    async def serve_one(self, request: dict[str, Any], write: Callable[[dict[str, Any]], None]) -> None:
        rid = request.get("id")
        try:
            point = str(request.get("point", ""))
            payload = request.get("payload")
            if not isinstance(payload, dict):
                payload = {}
            if point == DESCRIBE:
                answer = {
                    "decision": None,
                    "errors": self.load_errors,
                    "handlers": {e: [r.label for r in regs] for e, regs in self.handlers.items()},
                }
            else:
                hook = str(request.get("hook", ""))
                event = str(request.get("event") or hook.rpartition(":")[2] or point)
                answer = await self.run_chain(event, point, payload, bool(request.get("replay")))
            write({"id": rid, **answer})
        except Exception as exc:
            write({"id": rid, "error": f"plugin host: {_describe(exc)}"})


def _protocol_out() -> Callable[[dict[str, Any]], None]:
    """Keep fd 1 for answers and send anything the plugins print to stderr instead."""
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    lock = threading.Lock()

    def write(answer: dict[str, Any]) -> None:
        try:
            data = (json.dumps(answer, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        except (TypeError, ValueError) as exc:
            data = (
                json.dumps({"id": answer.get("id"), "error": f"a plugin left a value that is not JSON in output: {exc}"}) + "\n"
            ).encode()
        with lock:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]

    return write


async def main_async(files: str, directory: str) -> int:
    write = _protocol_out()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    project = os.environ.get("HOOKD_PROJECT_DIR") or None
    ctx = PluginContext(
        directory,
        os.environ.get("HOOKD_PLUGIN_SCOPE", "global"),
        project,
        project,
        logging.getLogger(f"plugin:{directory}"),
        Sessions(os.environ.get("HOOKD_SOCKET") or None),
    )
    host = Host(files, ctx)
    await host.load()
    try:
        config = json.loads(os.environ.get(CONFIG_ENV) or "{}")
    except ValueError:
        config = {}
    configured = await host.run_chain("config", "config", config if isinstance(config, dict) else {})
    host.load_errors += [{**err, "point": "config"} for err in configured["errors"]]
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[bytes] = asyncio.Queue()

    def pump() -> None:  # a thread: a plugin that blocks the loop must not stop stdin from being drained
        for line in sys.stdin.buffer:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, b"")

    threading.Thread(target=pump, daemon=True).start()
    tasks: set[asyncio.Task[None]] = set()
    while True:
        line = await lines.get()
        if not line:
            break
        try:
            request = json.loads(line)
        except ValueError as exc:
            write({"id": None, "error": f"plugin host: request is not JSON: {exc}"})
            continue
        if not isinstance(request, dict):
            continue
        task = asyncio.ensure_future(host.serve_one(request, write))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=5)
    return 0


def main(files: str, directory: str) -> int:
    if not os.path.isdir(files):
        sys.stderr.write(f"plugin host: {files} is not a directory\n")
        return 2
    return asyncio.run(main_async(os.path.abspath(files), directory))
