"""The secrets pack: reading private keys, .env files, cloud credentials and tokens, sending them
anywhere, and writes that put a secret into a file that looks tracked."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Mapping
from typing import Any

from hookd.guards.model import Context, Hit
from hookd.guards.pack import TOO_DEEP, Env, Pack, flags
from hookd.guards.paths import UNKNOWN, resolve
from hookd.guards.policy import Policy
from hookd.guards.shell import Cmd

KEY = "secrets.read-private-key"
ENV_FILE = "secrets.read-env-file"
CREDENTIALS = "secrets.read-credentials"
TOKEN = "secrets.print-token"
EXFILTRATE = "secrets.exfiltrate"
WRITE = "secrets.write-secret"
COMMIT = "secrets.commit-secret-file"

RULES = {
    KEY: "reads or copies a private key (~/.ssh/id_*, *.pem, *.key, a GnuPG secret key)",
    ENV_FILE: "reads or copies a .env file (not .env.example and its kind)",
    CREDENTIALS: "reads or copies cloud or tool credentials (~/.aws/credentials, kubeconfig, .netrc, .npmrc, .pypirc, ...)",
    TOKEN: "prints a token, password or key held in an environment variable",
    EXFILTRATE: "sends a secret file or its content over the network (curl -d @.env, | nc, scp, a substitution in a URL)",
    WRITE: "writes a literal secret (a cloud key, a token, a private key) into a file that looks tracked",
    COMMIT: "stages a .env file or a private key into git",
    "secrets.too-deep": TOO_DEEP,
}

# The safer command for each rule, as docs/guards-rules.md lists it.
SAFER = {
    "secrets.read-private-key": "use the key without showing it (ssh -i key, ssh-add); read the .pub file",
    "secrets.read-env-file": "read .env.example for the names; let the program load .env (source .env && cmd)",
    "secrets.read-credentials": "use the tool's own commands (aws sts get-caller-identity, kubectl config current-context)",
    "secrets.print-token": 'check it is set without printing it: [ -n "$TOKEN" ] && echo set',
    "secrets.exfiltrate": "send only what a service needs, through its own login (gh auth login, docker login --password-stdin)",
    "secrets.write-secret": "put the secret in .env (ignored by git) and read it from the environment",
    "secrets.commit-secret-file": "add the file to .gitignore and commit an example (.env.example) instead",
    "secrets.too-deep": "run the inner command directly, without the nesting",
}

_ENV_SAFE_SUFFIXES = (".example", ".sample", ".template", ".dist", ".defaults", ".schema", ".tmpl", ".tpl", ".in", ".md")
_GLOB_PROBES = (".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "credentials", "server.key", "private.pem")
_NAMED_ENV = re.compile(r"^[\w.-]+\.env$")
_KEY_NAMES = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$|^.*\.(ppk|p12|pfx|jks|keystore)$|^secring\.gpg$")
_PUBLICISH = re.compile(r"pub|cert|crt|chain|(^|[._-])ca([._-]|$)", re.I)
# Credentials by path under the home, and by file name anywhere.
_HOME_CREDENTIALS = (
    ".aws/credentials", ".config/gcloud/application_default_credentials.json", ".config/gcloud/credentials.db",
    ".config/gcloud/access_tokens.db", ".config/gcloud/legacy_credentials", ".docker/config.json", ".npmrc", ".pypirc", ".netrc",
    ".git-credentials", ".kube/config", ".config/gh/hosts.yml", ".vault-token", ".terraform.d/credentials.tfrc.json",
    ".azure/accessTokens.json", ".azure/msal_token_cache.json", ".pgpass", ".my.cnf", ".config/hub", ".cargo/credentials",
    ".cargo/credentials.toml", ".gem/credentials", ".config/rclone/rclone.conf", ".s3cfg", ".boto",
)  # fmt: skip
_SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".kube", ".config/gcloud", ".docker", ".azure")
_CREDENTIAL_NAMES = re.compile(r"^(credentials\.json|service[-_]?account.*\.json|.*-sa-key\.json|client_secret.*\.json|\.htpasswd)$")
_SYSTEM = frozenset({"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/master.passwd"})

# Options of cp, scp and rsync that take a value (the value is no file being copied).
_COPY_VALUES = frozenset(
    {"--exclude", "--include", "--filter", "-f", "-e", "--rsh", "--exclude-from", "--include-from", "-i", "-P", "-o", "-F", "-S", "-t"}
    | {"--target-directory", "-J", "-c", "-l"}
)
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "sed"})
# Commands that show a file's content to whoever runs them (the agent's transcript).
_READERS = frozenset(
    {
        "cat", "tac", "less", "more", "head", "tail", "bat", "batcat", "grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk",
        "sed", "strings", "xxd", "hexdump", "od", "base64", "base32", "nl", "cut", "sort", "uniq", "jq", "yq", "diff", "cmp",
        "view", "pr", "fold", "tr", "column", "paste", "hd", "zcat", "gzip", "bzip2", "xz", "zstd", "tar", "zip", "7z",
        "openssl", "gpg", "cp", "install", "dd", "rev",
    }
)  # fmt: skip
_SENDERS = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "scp", "sftp", "rsync", "ftp", "http", "https", "xh", "httpie", "ssh"}
)
_TOKEN_VAR = re.compile(
    r"\$\{?([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)\}?",
    re.I,
)
_TOKEN_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)", re.I)
# Live secrets by their shapes, each with the literal text it cannot appear without: the text is
# searched for those first (fast even over a large file), and a pattern runs only where one is.
_SECRET_SHAPES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (("-----BEGIN",), re.compile(r"-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----")),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    (("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}")),
    (("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    (("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    (("sk-",), re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}")),
    (("k_live_",), re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}")),
    (("AIza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    (("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (("pypi-AgEIcHlwaS5vcmc",), re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{20,}")),
    (("secret", "SECRET", "Secret"), re.compile(r"aws_?secret_?access_?key['\"]?\s*[:=]\s*['\"]?[A-Za-z0-9/+]{40}", re.I)),
)


def find_secret(text: str) -> str | None:
    """The first live secret in ``text``, if one is there."""
    for needles, shape in _SECRET_SHAPES:
        if any(n in text for n in needles):
            m = shape.search(text)
            if m is not None:
                return m.group(0)
    return None


def secret_kind(path: str, ctx: Context) -> tuple[str, str] | None:
    """(rule, what it is) of a path that holds a secret, or None."""
    if not path or path == UNKNOWN:
        return None
    base = posixpath.basename(path.rstrip("/"))
    if any(c in base for c in "*?["):
        # A glob reads every file it matches: `.env*` reads .env.
        hit = next((n for n in _GLOB_PROBES if fnmatch.fnmatchcase(n, base)), None)
        if hit is None:
            return None
        return secret_kind(posixpath.join(posixpath.dirname(path), hit), ctx)
    home = posixpath.normpath(ctx.home)
    rel = path[len(home) + 1 :] if path.startswith(home + "/") else None
    if base == ".env" or (base.startswith(".env.") and not base.endswith(_ENV_SAFE_SUFFIXES)) or _NAMED_ENV.match(base):
        if base.endswith(_ENV_SAFE_SUFFIXES) or base in (".envrc",):
            return None
        return ENV_FILE, f"the environment file {base}, which holds this project's passwords and keys"
    if path in _SYSTEM:
        return CREDENTIALS, f"{path}, the system's password hashes"
    if rel is not None:
        for cred in _HOME_CREDENTIALS:
            if rel == cred or rel.startswith(cred + "/"):
                return CREDENTIALS, f"~/{cred}, where your tools keep their credentials"
        if rel.startswith(".gnupg/private-keys") or (rel.startswith(".gnupg/") and base.endswith(".key")):
            return KEY, "a GnuPG private key"
        for d in _SECRET_DIRS:
            if rel == d:
                return (KEY if d in (".ssh", ".gnupg") else CREDENTIALS), f"~/{d}, the whole directory of keys or credentials"
    if _KEY_NAMES.match(base):
        return KEY, f"the private key {base}"
    if base.endswith((".pem", ".key")) and not _PUBLICISH.search(base[:-4]):
        return KEY, f"{base}, a private key"
    if _CREDENTIAL_NAMES.match(base):
        return CREDENTIALS, f"{base}, a credentials file"
    if rel is not None and rel.startswith(".ssh/") and base.startswith("id_") and not base.endswith(".pub"):
        return KEY, f"the private key ~/.ssh/{base}"
    return None


def _resolve(word: str, dynamic: bool, env: Env, cmd: Cmd) -> str | None:
    if dynamic:
        return None
    for prefix in ("@", "<"):
        if word.startswith(prefix):
            word = word[1:]
    cwd = env.cwd(cmd)
    path = resolve(word, False, env.ctx, cwd)
    if path is None:
        path = posixpath.normpath("/unknown-cwd/" + word)  # relative to an unknown directory: its name still tells
    return path


def _secret_words(cmd: Cmd, env: Env) -> list[tuple[str, str, str]]:
    """(word, rule, what) of every argument of ``cmd`` that names a secret (curl's -d @file and name=@file included)."""
    out = []
    pattern_first = cmd.argv[0] in _PATTERN_FIRST and not any(a in ("-e", "-f", "--regexp", "--file") for a in cmd.argv[1:])
    for word, dynamic in zip(cmd.argv[1:], cmd.dyn[1:], strict=False):
        if pattern_first and not word.startswith("-"):
            pattern_first = False  # grep's and awk's first operand is what they look for, not a file
            continue
        if dynamic or not word or (word.startswith("-") and "=" not in word):
            continue
        candidates = [word]
        if "=" in word:
            value = word.split("=", 1)[1]
            candidates.append(value)
        if "@" in word:
            candidates.append(word.rsplit("@", 1)[1])
        for c in candidates:
            if not c or c.startswith("-") or "://" in c:
                continue
            path = _resolve(c.lstrip("<"), False, env, cmd)
            if path is None:
                continue
            kind = secret_kind(path, env.ctx)
            if kind is not None:
                out.append((c, *kind))
                break
    for op, target, dynamic in cmd.redirects:
        if op in ("<", "<>") and not dynamic:
            path = _resolve(target, False, env, cmd)
            kind = secret_kind(path, env.ctx) if path else None
            if kind is not None:
                out.append((target, *kind))
    return out


def _reads_secret(cmd: Cmd, env: Env) -> tuple[str, str, str] | None:
    if not cmd.argv:
        return None
    name = cmd.argv[0]
    if name == "gpg" and any(a.startswith("--export-secret") for a in cmd.argv[1:]):
        return "gpg --export-secret-keys", KEY, "your GnuPG secret keys"
    if name in _READERS or name in _SENDERS or cmd.redirects:
        found = _secret_words(cmd, env)
        if name in ("cp", "install", "rsync", "scp"):
            _, _, operands = flags(cmd.argv, _COPY_VALUES)
            found = [f for f in found if f[0] in operands[:-1]]  # the sources, not where they go
        elif name == "dd":
            found = [f for f in found if any(a == "if=" + f[0] for a in cmd.argv)]
        if found:
            return found[0]
    return None


def _sends(cmd: Cmd) -> bool:
    if not cmd.argv or cmd.argv[0] not in _SENDERS:
        return False
    if cmd.argv[0] == "nc" and any(a in ("-z", "-zv", "-vz", "-l") for a in cmd.argv[1:]):
        return False
    if cmd.argv[0] in ("scp", "rsync", "sftp"):
        return any(":" in a and not a.startswith("-") for a in cmd.argv[1:])
    return True


def _send_hit(cmd: Cmd, word: str, what: str) -> Hit:
    return Hit(
        EXFILTRATE,
        f"{cmd.argv[0]} would send {what} ({word}) off this machine, where anyone who reads it can use it. "
        "Send only the value a service needs, through its own login (gh auth login, aws configure), never the file",
    )


def exfiltrate(cmd: Cmd, env: Env) -> Hit | None:
    if not _sends(cmd):
        return None
    name = cmd.argv[0]
    found = _secret_words(cmd, env)
    if name == "ssh":
        found = [f for f in found if any(op == "<" and t == f[0] for op, t, _ in cmd.redirects)]  # -i key is how ssh logs in
    elif name in ("scp", "rsync", "sftp"):
        _, _, operands = flags(cmd.argv, _COPY_VALUES)
        found = [f for f in found if f[0] in operands[:-1]]
    if name in ("curl", "wget", "http", "https", "xh", "httpie"):
        # curl reads a file only behind @, < or -T/--upload-file; a bare word is a URL or a value.
        uploads = {"-T", "--upload-file", "--post-file", "--body-file"}
        upload_args = {cmd.argv[i + 1] for i, a in enumerate(cmd.argv[:-1]) if a in uploads}
        found = [
            f
            for f in found
            if "@" in f[0]
            or f[0] in upload_args
            or any(a.startswith(("--post-file=", "--body-file=")) and a.endswith(f[0]) for a in cmd.argv)
        ] + [f for f in found if f[0].startswith("<")]
        for word in cmd.argv[1:]:
            if "@" in word and not word.startswith("-"):
                tail = word.rsplit("@", 1)[1]
                path = _resolve(tail, False, env, cmd)
                kind = secret_kind(path, env.ctx) if path else None
                if kind is not None:
                    found.append((tail, *kind))
        for i, word in enumerate(cmd.argv[:-1]):
            if word in uploads:
                path = _resolve(cmd.argv[i + 1], cmd.dyn[i + 1], env, cmd)
                kind = secret_kind(path, env.ctx) if path else None
                if kind is not None:
                    found.append((cmd.argv[i + 1], *kind))
    if found:
        word, _, what = found[0]
        return _send_hit(cmd, word, what)
    for inner in env.fed(cmd):
        read = _reads_secret(inner, env)
        if read is not None:
            return _send_hit(cmd, read[0], read[2])
        if inner.argv and inner.argv[0] in ("env", "printenv", "set"):
            return _send_hit(cmd, inner.argv[0], "the environment's variables, tokens among them")
    for up in env.upstream(cmd):
        read = _reads_secret(up, env)
        if read is not None:
            return _send_hit(cmd, read[0], read[2])
        if up.argv and up.argv[0] in ("env", "printenv", "set") and len(up.argv) == 1:
            return _send_hit(cmd, up.argv[0], "every environment variable, tokens among them")
        if up.argv and up.argv[0] in ("echo", "printf") and name in ("nc", "ncat", "curl"):
            for a in up.argv[1:]:
                m = _TOKEN_VAR.search(a)
                if m is not None:
                    return _send_hit(cmd, f"${m.group(1)}", f"the secret in ${m.group(1)}")
    return None


def _sender_of(cmd: Cmd, env: Env) -> Cmd | None:
    """The command that sends ``cmd``'s output off the machine: later in its pipeline, or around its substitution."""
    for down in env.downstream(cmd):
        if _sends(down):
            return down
    cmds = env.script.cmds
    for i, c in enumerate(cmds):
        if c is cmd:
            for outer in cmds:
                if i in outer.feeds and _sends(outer):
                    return outer
            break
    return None


def read(cmd: Cmd, env: Env) -> Hit | None:
    if _sends(cmd):
        return None  # judged by exfiltrate, which names the sending
    found = _reads_secret(cmd, env)
    if found is None:
        return None
    word, rule, what = found
    sender = _sender_of(cmd, env)
    if sender is not None:
        return _send_hit(sender, word, what)  # read to be sent: the sending is what matters
    verb = "copies" if cmd.argv[0] in ("cp", "install", "dd", "tee") else "prints"
    where = (
        "into another place where it is no longer protected"
        if verb == "copies"
        else "into the conversation, and from there to the model's provider and its logs"
    )
    return Hit(
        rule,
        f"{cmd.argv[0]} {word} {verb} {what} {where}. Use the tool that needs it without showing it (source .env && cmd, ssh -i key), "
        "or read the example file (.env.example) for the names",
    )


def print_token(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    name = argv[0]
    if name not in ("echo", "printf", "printenv", "env", "set", "export", "declare"):
        return None
    if any(op in (">", ">>", "&>", ">|") for op, _, _ in cmd.redirects) or (env.downstream(cmd) and not _downstream_is_filter(cmd, env)):
        return None
    if name in ("echo", "printf"):
        for word in argv[1:]:
            for m in _TOKEN_VAR.finditer(word):
                if word[m.end(1) : m.end(1) + 2] in (":+", ":?") or word[m.end(1) : m.end(1) + 1] == "+":
                    continue  # ${TOKEN:+set} prints the word, not the value
                return _token_hit(name, m.group(1))
        return None
    if name == "printenv":
        for word in argv[1:]:
            if _TOKEN_NAME.search(word):
                return _token_hit(name, word)
        return None
    return None


def _downstream_is_filter(cmd: Cmd, env: Env) -> bool:
    down = env.downstream(cmd)
    return bool(down) and all(d.argv and d.argv[0] in _FILTERS for d in down)


_FILTERS = frozenset({"grep", "egrep", "rg", "sort", "head", "tail", "cat", "less", "awk", "sed"})


def env_dump(cmd: Cmd, env: Env) -> Hit | None:
    """``env | grep -i token``: the environment filtered down to its secrets, printed."""
    argv = cmd.argv
    if argv[0] not in ("grep", "egrep", "rg") or cmd.group < 0:
        return None
    ups = env.upstream(cmd)
    if not ups or not ups[0].argv or ups[0].argv[0] not in ("env", "printenv", "set", "export", "declare"):
        return None
    if any(_TOKEN_NAME.search(a) or a.lower() in ("key", "pass", "auth") for a in argv[1:] if not a.startswith("-")):
        return _token_hit(f"{ups[0].argv[0]} | {argv[0]}", next(a for a in argv[1:] if not a.startswith("-")))
    return None


def _token_hit(how: str, name: str) -> Hit:
    return Hit(
        TOKEN,
        f"{how} {name} prints a secret into the conversation, and from there to the model's provider and its logs. "
        f'Check that it is set without showing it: [ -n "${name.strip("$")}" ] && echo set',
    )


def git_add(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    sub = next((a for a in argv[1:] if not a.startswith("-")), "")
    if sub != "add":
        return None
    i = argv.index("add")
    for word, dynamic in zip(argv[i + 1 :], cmd.dyn[i + 1 :], strict=False):
        if word.startswith("-") or dynamic:
            continue
        path = _resolve(word, False, env, cmd)
        kind = secret_kind(path, env.ctx) if path else None
        if kind is not None and kind[0] in (ENV_FILE, KEY, CREDENTIALS):
            return Hit(
                COMMIT,
                f"git add {word} stages {kind[1]}; once committed and pushed, every clone has it, and rewriting history is the "
                "only way out. "
                "Add it to .gitignore and commit an example file (.env.example) instead",
            )
    return None


def _write_target_ok(path: str | None, ctx: Context) -> bool:
    """A file where a secret belongs: an .env file, a key file, a credentials file (not an example of one)."""
    if path is None:
        return False
    return secret_kind(path, ctx) is not None


def written(cmd: Cmd, env: Env) -> Hit | None:
    """``echo KEY >> config.py``, ``cat <<EOF > settings.py``: a secret written by the shell into a tracked-looking file."""
    if not cmd.redirects:
        return None
    targets = [t for op, t, d in cmd.redirects if op in (">", ">>", ">|", "&>") and not d]
    if cmd.argv[0] == "tee":
        targets += [a for a in cmd.argv[1:] if not a.startswith("-")]
    if not targets:
        return None
    text = cmd.stdin or ""
    if cmd.argv[0] in ("echo", "printf"):
        text += " ".join(cmd.argv[1:])
    secret = find_secret(text)
    if secret is None:
        return None
    for target in targets:
        path = _resolve(target, False, env, cmd)
        if not _write_target_ok(path, env.ctx) and not (path or "").startswith(("/tmp/", "/dev/")):
            return _write_hit(target, secret)
    return None


def _write_hit(target: str, secret: str) -> Hit:
    shown = secret[:8] + "…"
    return Hit(
        WRITE,
        f"writing {shown} into {target} puts a live secret into a file that gets committed and shared. "
        "Put it in .env (ignored by git) and read it from the environment (os.environ, process.env)",
    )


def _contents(args: Mapping[str, Any]) -> list[str]:
    out = []
    for key in ("content", "new_string", "new_str", "text", "contents", "new_source"):
        v = args.get(key)
        if isinstance(v, str):
            out.append(v)
    edits = args.get("edits")
    if isinstance(edits, list):
        for e in edits[:200]:
            if isinstance(e, Mapping):
                for key in ("new_string", "new_str", "newString"):
                    v = e.get(key)
                    if isinstance(v, str):
                        out.append(v)
    for key in ("newString",):
        v = args.get(key)
        if isinstance(v, str):
            out.append(v)
    return out


def _tool_path(args: Mapping[str, Any], ctx: Context) -> str | None:
    path = args.get("path")
    if not isinstance(path, str) or not path:
        for key in ("file_path", "filePath", "absolute_path", "notebook_path"):
            v = args.get(key)
            if isinstance(v, str) and v:
                path = v
                break
    if not isinstance(path, str) or not path:
        return None
    return resolve(path, False, ctx, ctx.cwd or ctx.project) or posixpath.normpath("/unknown-cwd/" + path)


def read_tool(tool: str, args: Mapping[str, Any], ctx: Context, policy: Policy) -> Hit | None:
    path = _tool_path(args, ctx)
    paths = [path] if path else []
    many = args.get("paths")
    if isinstance(many, list):
        paths += [resolve(p, False, ctx, ctx.cwd or ctx.project) or p for p in many[:200] if isinstance(p, str)]
    for p in paths:
        kind = secret_kind(p, ctx) if p else None
        if kind is not None:
            rule, what = kind
            return Hit(
                rule,
                f"{tool} {p} would put {what} into the conversation, and from there to the model's provider and its logs. "
                "Read the example file (.env.example) for the names, and let the program read the secret itself",
            )
    return None


def write_tool(tool: str, args: Mapping[str, Any], ctx: Context, policy: Policy) -> Hit | None:
    path = _tool_path(args, ctx)
    if path is not None and _write_target_ok(path, ctx):
        return None
    for text in _contents(args):
        secret = find_secret(text[:200_000])
        if secret is not None:
            return _write_hit(posixpath.basename(path) if path else "the file", secret)
    return None


_PATCH_TARGET = re.compile(r"^(?:\*\*\* (?:Add|Update) File: |\+\+\+ (?:b/)?)(\S.*)$", re.M)


def _strings(value: Any, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value]
    if depth > 4:
        return []
    if isinstance(value, Mapping):
        return [s for v in list(value.values())[:50] for s in _strings(v, depth + 1)]
    if isinstance(value, list | tuple):
        return [s for v in value[:50] for s in _strings(v, depth + 1)]
    return []


def patch_tool(tool: str, args: Mapping[str, Any], ctx: Context, policy: Policy) -> Hit | None:
    """apply_patch: a live secret on an added line of a file that is not where secrets belong."""
    for text in _strings(args):
        if "\n+" not in text and "*** Add File" not in text:
            continue
        targets = [m.group(1).strip() for m in _PATCH_TARGET.finditer(text)]
        resolved = [resolve(t, False, ctx, ctx.cwd or ctx.project) for t in targets]
        if targets and all(_write_target_ok(r, ctx) for r in resolved):
            continue
        added = "\n".join(line[1:] for line in text[:200_000].splitlines() if line.startswith("+") and not line.startswith("+++"))
        secret = find_secret(added)
        if secret is not None:
            return _write_hit(posixpath.basename(targets[0]) if targets else "the patched file", secret)
    return None


PACK = Pack(
    "secrets",
    RULES,
    {
        **{name: (read,) for name in _READERS if name not in ("grep", "egrep", "rg")},
        "grep": (read, env_dump),
        "egrep": (read, env_dump),
        "rg": (read, env_dump),
        **{name: (exfiltrate,) for name in _SENDERS},
        "echo": (print_token, written),
        "printf": (print_token, written),
        "printenv": (print_token,),
        "cat": (read, written),
        "tee": (written,),
        "git": (git_add,),
    },
    (),
    {"read_file": read_tool, "write_file": write_tool, "edit_file": write_tool, "edit_notebook": write_tool, "apply_patch": patch_tool},
    safer=SAFER,
)
