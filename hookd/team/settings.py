"""The team settings: one file, ``$XDG_CONFIG_HOME/hookd/team.toml``.

No file: hookd runs alone (no export, no organisation guards). The file names
the NATS servers, the JetStream stream the events go to and the key-value
bucket the organisation's guards come from. A credentials file, when named,
must not be readable by other users: hookd refuses it otherwise, and says how to
fix it. See docs/team.md.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
import stat
import tomllib
from dataclasses import dataclass, field
from typing import Any

from hookd.config.userconfig import config_home

DEFAULT_STREAM = "HOOKD"
DEFAULT_BUCKET = "hookd-guards"
_TOKEN = re.compile(r"[^A-Za-z0-9_-]")
_CREDS_MARK = "-----BEGIN NATS USER JWT-----"


class TeamConfigError(Exception):
    """The team settings (or the credentials they name) cannot be used; the text says why and where."""


def default_path(environ: dict[str, str] | None = None) -> str:
    return os.path.join(config_home(environ), "hookd", "team.toml")


def subject_token(text: str) -> str:
    """``text`` as one NATS subject token: dots, wildcards and spaces would split or widen a subject."""
    return _TOKEN.sub("_", text) or "_"


@dataclass(frozen=True, slots=True)
class Credentials:
    """How hookd authenticates to NATS: a token, a user and password, or a NATS .creds file."""

    token: str | None = None
    user: str | None = None
    password: str | None = None
    creds_file: str | None = None

    def options(self) -> dict[str, Any]:
        if self.creds_file:
            return {"user_credentials": self.creds_file}
        if self.token:
            return {"token": self.token}
        if self.user:
            return {"user": self.user, "password": self.password or ""}
        return {}


@dataclass(frozen=True, slots=True)
class OtelSettings:
    """The calls as OpenTelemetry spans, sent over OTLP/HTTP (the `[otel]` section)."""

    endpoint: str
    headers: dict[str, str] = field(default_factory=dict)
    service_name: str = "hookd"
    batch: int = 256


@dataclass(frozen=True, slots=True)
class TeamSettings:
    servers: list[str]
    host: str
    user: str
    credentials: Credentials = field(default_factory=Credentials)
    export: bool = True
    stream: str = DEFAULT_STREAM
    create_stream: bool = False
    batch: int = 64
    guards: bool = True
    bucket: str = DEFAULT_BUCKET
    path: str = ""
    otel: OtelSettings | None = None

    @property
    def subject_prefix(self) -> str:
        return f"hookd.{subject_token(self.host)}.{subject_token(self.user)}"

    def connect_options(self) -> dict[str, Any]:
        return {"servers": list(self.servers), **self.credentials.options()}


def read_credentials(path: str) -> Credentials:
    """The credentials in ``path``; refused when others may read it (mode bits for group or others)."""
    text = _private_text(path, "credentials file")
    if _CREDS_MARK in text:
        return Credentials(creds_file=path)
    line = text.strip()
    if not line:
        raise TeamConfigError(f"credentials file {path} is empty")
    if "\n" in line:
        raise TeamConfigError(f"credentials file {path}: expected one line (a token, or user:password) or a NATS .creds file")
    if line.startswith("token:"):
        return Credentials(token=line[len("token:") :].strip())
    user, sep, password = line.partition(":")
    if sep:
        return Credentials(user=user, password=password)
    return Credentials(token=line)


def _expect(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = data.get(key)
    if value is not None and (not isinstance(value, kind) or (isinstance(value, bool) and kind is int)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise TeamConfigError(f"{where}: `{key}` must be a {names}, not {type(value).__name__}")
    return value


def parse(text: str, path: str) -> TeamSettings:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TeamConfigError(f"{path}: not valid TOML: {exc}") from None
    known = {"servers", "credentials", "host", "user", "export", "guards", "otel"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise TeamConfigError(f"{path}: unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    servers = _expect(data, "servers", (list, str), path)
    if isinstance(servers, str):
        servers = [servers]
    otel = _otel(data, path)
    export = _expect(data, "export", dict, path) or {}
    guards = _expect(data, "guards", dict, path) or {}
    if servers is None and otel is not None:
        # OpenTelemetry alone: no NATS server, so no export to the stream and no guards.
        for section, name in ((export, "export"), (guards, "guards")):
            if section.get("enabled"):
                raise TeamConfigError(f"{path}: [{name}] needs `servers` (the team's NATS servers)")
        return TeamSettings(
            servers=[],
            host=_expect(data, "host", str, path) or socket.gethostname(),
            user=_expect(data, "user", str, path) or _login(),
            export=False,
            guards=False,
            path=path,
            otel=otel,
        )
    if not servers or not all(isinstance(s, str) and s for s in servers):
        raise TeamConfigError(f'{path}: `servers` must name at least one NATS server, e.g. servers = ["nats://nats.example.com:4222"]')
    creds_path = _expect(data, "credentials", str, path)
    credentials = Credentials()
    if creds_path:
        creds_path = os.path.expanduser(creds_path)
        if not os.path.isabs(creds_path):
            creds_path = os.path.join(os.path.dirname(path), creds_path)
        credentials = read_credentials(creds_path)
    for section, allowed in (("export", {"enabled", "stream", "create_stream", "batch"}), ("guards", {"enabled", "bucket"})):
        extra = sorted(set(data.get(section) or {}) - allowed)
        if extra:
            raise TeamConfigError(f"{path}: unknown setting(s) in [{section}]: {', '.join(extra)} (known: {', '.join(sorted(allowed))})")
    batch = _expect(export, "batch", int, f"{path} [export]")
    batch = 64 if batch is None else batch
    if not 1 <= batch <= 4096:
        raise TeamConfigError(f"{path} [export]: `batch` must be between 1 and 4096")
    return TeamSettings(
        servers=servers,
        host=_expect(data, "host", str, path) or socket.gethostname(),
        user=_expect(data, "user", str, path) or _login(),
        credentials=credentials,
        export=_flag(export, "enabled", f"{path} [export]"),
        stream=_expect(export, "stream", str, f"{path} [export]") or DEFAULT_STREAM,
        create_stream=bool(_expect(export, "create_stream", bool, f"{path} [export]")),
        batch=batch,
        guards=_flag(guards, "enabled", f"{path} [guards]"),
        bucket=_expect(guards, "bucket", str, f"{path} [guards]") or DEFAULT_BUCKET,
        path=path,
        otel=otel,
    )


def _otel(data: dict[str, Any], path: str) -> OtelSettings | None:
    where = f"{path} [otel]"
    otel = _expect(data, "otel", dict, path)
    if otel is None:
        return None
    allowed = {"enabled", "endpoint", "headers_file", "service_name", "batch"}
    extra = sorted(set(otel) - allowed)
    if extra:
        raise TeamConfigError(f"{where}: unknown setting(s): {', '.join(extra)} (known: {', '.join(sorted(allowed))})")
    if not _flag(otel, "enabled", where):
        return None
    endpoint = _expect(otel, "endpoint", str, where)
    if not endpoint or not endpoint.startswith(("http://", "https://")):
        raise TeamConfigError(f'{where}: `endpoint` must be the collector\'s OTLP/HTTP traces URL, e.g. "http://127.0.0.1:4318/v1/traces"')
    batch = _expect(otel, "batch", int, where)
    batch = 256 if batch is None else batch
    if not 1 <= batch <= 4096:
        raise TeamConfigError(f"{where}: `batch` must be between 1 and 4096")
    headers: dict[str, str] = {}
    headers_path = _expect(otel, "headers_file", str, where)
    if headers_path:
        headers_path = os.path.expanduser(headers_path)
        if not os.path.isabs(headers_path):
            headers_path = os.path.join(os.path.dirname(path), headers_path)
        headers = read_headers(headers_path)
    return OtelSettings(endpoint=endpoint, headers=headers, service_name=_expect(otel, "service_name", str, where) or "hookd", batch=batch)


def _private_text(path: str, what: str) -> str:
    """The text of ``path``, refused when others may read it (mode bits for group or others)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise TeamConfigError(f"{what} {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise TeamConfigError(f"{what} {path} is not a regular file")
    if st.st_mode & 0o077:
        raise TeamConfigError(
            f"{what} {path} is readable by other users (mode {stat.S_IMODE(st.st_mode):04o}); hookd refuses it: run `chmod 600 {path}`"
        )
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(1 << 20)
    except (OSError, UnicodeDecodeError) as exc:
        raise TeamConfigError(f"{what} {path}: {exc}") from None


def read_headers(path: str) -> dict[str, str]:
    """HTTP headers for the OTLP endpoint (`Name: value` lines, an API key say), from a private file."""
    headers = {}
    for n, line in enumerate(_private_text(path, "headers file").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", name.strip()):
            raise TeamConfigError(f"headers file {path}, line {n}: expected `Name: value`")
        headers[name.strip()] = value.strip()
    return headers


def _flag(section: dict[str, Any], key: str, where: str) -> bool:
    value = _expect(section, key, bool, where)
    return True if value is None else value


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def load(path: str | None = None) -> TeamSettings | None:
    """The team settings, or None when there is no settings file. Raises TeamConfigError."""
    path = path or default_path()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise TeamConfigError(f"{path}: {exc}") from None
    return parse(text, path)
