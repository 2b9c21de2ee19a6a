"""The sync Client's background side, started once it serves a handler.

A reader thread owns the socket's receiving end: replies go to the thread
waiting for them, ``invoke`` frames go to a handler pool (plain functions) or
a private event loop (coroutine functions), so a handler may itself call the
client without deadlock and many invokes run at once. When the connection
drops, every call in flight fails with ConnectionLost and the reader
reconnects on its own (capped backoff, no limit), restores the sessions and
handlers, and only then lets calls through again.

A client that never registers a handler never starts any of this: its calls
stay plain blocking round trips on the caller's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from queue import SimpleQueue
from typing import Any, Protocol

from .answers import encode_answer
from .api import build
from .callbacks import Book, Served, label, raised, run_async, run_sync, unknown
from .errors import ConnectionLost, DaemonNotRunning, HookdError
from .framing import BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import Invoke, InvokeResult, Reply, Request, Welcome
from .receive import Receiver


class Owner(Protocol):
    """The blocking client (client.py) as the serve loop takes it over: its socket, its decoder and its
    book of sessions and handlers, and the handshake that makes a new connection after a restart. Named
    here so that the loop depends on what it uses, not on the client module that starts it."""

    path: str
    timeout: float | None
    reconnect: float
    handler_threads: int
    welcome: Welcome | None
    restore_errors: list[HookdError]
    _sock: socket.socket | None
    _decoder: FrameDecoder
    _book: Book
    _ids: Iterable[int]

    def _handshake(self) -> Welcome: ...


_MAX_BACKOFF = 0.25


def _log_exception(what: str) -> None:
    import logging  # only on this path: keeps `import hookd_client` light

    logging.getLogger("hookd_client").exception(what)


class _Waiter:
    """One call's reply slot: a pre-acquired lock the reader releases (cheaper than an Event)."""

    __slots__ = ("lock", "value")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lock.acquire()
        self.value: Reply | BaseException | None = None

    def set(self, value: Reply | BaseException) -> None:
        self.value = value
        self.lock.release()


class _Pool:
    """Daemon worker threads, started as work arrives, up to ``size``.

    Not a ThreadPoolExecutor: its workers are joined at interpreter exit, so one
    hanging handler would keep the agent from exiting.
    """

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._jobs: SimpleQueue[tuple[Callable[..., None], tuple[Any, ...]] | None] = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._count = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., None], *args: Any) -> None:
        if self._closed:
            return
        # Each job takes an idle worker or starts one, so a hanging handler never holds up the next job.
        with self._count:
            if self._idle:
                self._idle -= 1
                start = False
            else:
                start = len(self._threads) < self._size
        self._jobs.put((fn, args))
        if start:
            t = threading.Thread(target=self._work, name=f"hookd-handler-{len(self._threads) + 1}", daemon=True)
            self._threads.append(t)
            t.start()

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            job = jobs.get()
            if job is None:
                return
            fn, args = job
            try:
                fn(*args)
            except BaseException:
                _log_exception("a handler job failed")
            finally:
                with self._count:
                    self._idle += 1

    def close(self) -> None:
        self._closed = True
        for _ in self._threads:
            self._jobs.put(None)


class ServeLoop:
    def __init__(self, client: Owner, restore: bool) -> None:
        self.client = client
        self._lock = threading.Lock()
        self._state = threading.Condition(self._lock)
        self._send_codec = reply_codec()
        self._codec = reply_codec()
        self._receiver = Receiver()  # the reader thread's alone
        self._waiters: dict[int, _Waiter] = {}
        self._sock: socket.socket | None = client._sock
        self._gen = 1
        self._ready = not restore
        self._closed = False
        self._failure: HookdError | None = None
        self._pool = _Pool(client.handler_threads)
        self._aloop: asyncio.AbstractEventLoop | None = None
        if self._sock is not None:
            self._sock.settimeout(None)
        self._thread = threading.Thread(target=self._run, args=(restore,), name="hookd-reader", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ callers

    def wait_ready(self) -> Welcome:
        with self._state:
            self._await_ready()
        assert self.client.welcome is not None
        return self.client.welcome

    def _await_ready(self, dead: int = 0) -> socket.socket:
        """Holding the lock: wait until connected and restored, on a connection newer than
        generation ``dead`` (one a send just failed on), for at most ``reconnect`` seconds."""
        if not self._ready or self._gen == dead:
            deadline = time.monotonic() + self.client.reconnect
            while (not self._ready or self._gen == dead) and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._state.wait(left)
        if self._closed:
            raise ConnectionLost("the client was closed")
        if not self._ready or self._sock is None or self._gen == dead:
            raise self._failure or DaemonNotRunning(self.client.path, f"not back after {self.client.reconnect:g} s")
        return self._sock

    def roundtrip(self, request: Request | Callable[[], Request]) -> Reply:
        waiter = _Waiter()
        dead = 0
        while True:
            with self._lock:
                sock = self._await_ready(dead)
                req = build(request)
                rid: int = req.id  # type: ignore[attr-defined]
                self._waiters[rid] = waiter
                try:
                    sock.sendall(self._send_codec.encode(req))
                    break
                except OSError as exc:
                    self._waiters.pop(rid, None)
                    if dead:
                        raise ConnectionLost(f"connection to {self.client.path} failed: {exc}") from None
                    # Never written (the daemon went away while we were idle): the reader reconnects
                    # and restores; send it on the new connection.
                    dead = self._gen
        timeout = self.client.timeout
        if not waiter.lock.acquire(timeout=-1 if timeout is None else timeout):
            self._waiters.pop(rid, None)
            raise HookdError("timeout", f"no reply within {timeout} s")
        value = waiter.value
        if isinstance(value, BaseException):
            raise value
        assert value is not None
        return value

    def close(self) -> None:
        with self._state:
            self._closed = True
            self._ready = False
            sock, self._sock = self._sock, None
            self._fail_waiters("the client was closed")
            self._state.notify_all()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if threading.current_thread() is not self._thread:
            self._thread.join(5)
        self._pool.close()
        aloop, self._aloop = self._aloop, None
        if aloop is not None:
            aloop.call_soon_threadsafe(aloop.stop)

    # ------------------------------------------------------------ reader

    def _run(self, restore: bool) -> None:
        if restore:
            self._restore()
        while not self._closed:
            sock, gen = self._sock, self._gen
            data = b""
            if sock is not None:
                with contextlib.suppress(OSError):
                    data = self._receiver.recv(sock)
            if data:
                try:
                    for body in self.client._decoder.feed(data):
                        self._deliver(self._codec.decode(body), gen)
                    continue
                except (FrameTooLarge, BadMessage):
                    pass
            if self._closed:
                return
            self._lost(gen)
            self._reconnect()

    def _deliver(self, msg: Reply, gen: int) -> None:
        if type(msg) is Invoke:
            self._dispatch(msg, gen)
            return
        waiter = self._waiters.pop(msg.id, None)  # type: ignore[attr-defined]
        if waiter is not None:
            waiter.set(msg)

    def _lost(self, gen: int) -> None:
        with self._state:
            if gen != self._gen:
                return
            self._ready = False
            sock, self._sock = self._sock, None
            self._fail_waiters(f"the connection to {self.client.path} was lost; the call's outcome is unknown")
        if sock is not None:
            sock.close()
        self.client._sock = None

    def _fail_waiters(self, detail: str) -> None:
        waiters, self._waiters = self._waiters, {}
        for waiter in waiters.values():
            waiter.set(ConnectionLost(detail))  # one exception per caller: each raises its own

    def _reconnect(self) -> None:
        delay = 0.01
        while not self._closed:
            try:
                self.client._handshake()
            except (HookdError, OSError) as exc:
                self._failure = exc if isinstance(exc, HookdError) else ConnectionLost(str(exc))
                time.sleep(delay)
                delay = min(delay * 2, _MAX_BACKOFF)
                continue
            sock = self.client._sock
            assert sock is not None
            sock.settimeout(None)
            with self._state:
                if self._closed:  # closed while we were connecting
                    sock.close()
                    return
                self._gen += 1
                self._sock = sock
            if self._restore():
                return

    def _restore(self) -> bool:
        """Re-create every recorded session on the new connection, then let calls through."""
        book = self.client._book
        requests = book.restore_requests(self.client._ids)
        sock, gen = self._sock, self._gen
        if sock is None:
            return False
        replies: dict[int, Reply] = {}
        wanted = {r.id for r in requests}
        try:
            for req in requests:
                sock.sendall(self._send_codec.encode(req))
            while wanted - replies.keys():
                data = self._receiver.recv(sock)
                if not data:
                    raise ConnectionLost()
                for body in self.client._decoder.feed(data):
                    msg = self._codec.decode(body)
                    if type(msg) is Invoke:
                        self._dispatch(msg, gen)
                    elif msg.id in wanted:  # type: ignore[attr-defined]
                        replies[msg.id] = msg  # type: ignore[attr-defined]
        except (OSError, ConnectionLost, FrameTooLarge, BadMessage):
            return False
        errors = [book.restored(req, replies[req.id]) for req in requests]
        self.client.restore_errors = [e for e in errors if e is not None]
        with self._state:
            self._ready = True
            self._failure = None
            self._state.notify_all()
        return True

    # ------------------------------------------------------------ handlers

    def _dispatch(self, inv: Invoke, gen: int) -> None:
        served = self.client._book.served.get(inv.cb)
        if served is None:
            self._answer(unknown(inv), inv.hook, gen)
        elif served.is_async:
            fut = asyncio.run_coroutine_threadsafe(run_async(served, inv), self._handler_loop())
            fut.add_done_callback(self._answer_later(inv, label(inv, served), gen))
        else:
            self._pool.submit(self._run_one, served, inv, gen)

    def _run_one(self, served: Served, inv: Invoke, gen: int) -> None:
        self._answer(run_sync(served, inv), label(inv, served), gen)

    def _answer_later(self, inv: Invoke, name: str, gen: int) -> Callable[[Future[InvokeResult]], None]:
        def done(fut: Future[InvokeResult]) -> None:
            if fut.cancelled():
                return
            exc = fut.exception()
            self._answer(fut.result() if exc is None else raised(inv, exc), name, gen)

        return done

    def _answer(self, result: InvokeResult, name: str, gen: int) -> None:
        # Exactly one answer per invoke: what cannot be sent becomes an error answer naming why.
        welcome = self.client.welcome
        data = encode_answer(self._send_codec.encode, result, name, welcome.limits.max_frame if welcome else None)
        # An answer belongs to the connection its invoke came on; a new daemon never asked.
        with self._lock:
            sock = self._sock
            if gen != self._gen or sock is None:
                return
            with contextlib.suppress(OSError):
                sock.sendall(data)

    def _handler_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._aloop
        if loop is None:
            loop = self._aloop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="hookd-async-handlers", daemon=True).start()
        return loop
