"""The databases and infrastructure pack: DROP, TRUNCATE and DELETE without WHERE in a shell client,
terraform destroy and unattended apply, kubectl deletes of namespaces, cloud CLIs deleting buckets,
instances and databases."""

from __future__ import annotations

import re

from hookd.guards.model import Hit
from hookd.guards.pack import TOO_DEEP, Env, Pack
from hookd.guards.shell import Cmd

DROP = "infra.sql-drop"
TRUNCATE = "infra.sql-truncate"
DELETE_ALL = "infra.sql-delete-all"
FLUSH = "infra.db-flush"
DESTROY = "infra.terraform-destroy"
AUTO_APPROVE = "infra.terraform-auto-approve"
NAMESPACE = "infra.kubectl-delete-namespace"
HELM = "infra.helm-uninstall"
CLOUD = "infra.cloud-delete"
VOLUMES = "infra.docker-volumes"

RULES = {
    DROP: "DROP DATABASE, TABLE or SCHEMA run through a database client (psql, mysql, sqlite3, ...), dropdb",
    TRUNCATE: "TRUNCATE run through a database client",
    DELETE_ALL: "DELETE or UPDATE without WHERE run through a database client",
    FLUSH: "a whole data store wiped: redis FLUSHALL/FLUSHDB, mongo dropDatabase, drop or deleteMany({})",
    DESTROY: "terraform/tofu/terragrunt/pulumi/cdk destroy, or apply -destroy",
    AUTO_APPROVE: "terraform apply -auto-approve, pulumi up --yes: infrastructure changed with no plan reviewed",
    NAMESPACE: "kubectl delete of a namespace, or of everything (--all, --all-namespaces)",
    HELM: "helm uninstall: a release and everything it created removed from the cluster",
    CLOUD: "a cloud CLI deleting buckets, instances, databases, clusters or whole projects",
    VOLUMES: "docker volumes removed (volume rm/prune, system prune --volumes, compose down -v): local databases' data",
    "infra.too-deep": TOO_DEEP,
}

# The safer command for each rule, as docs/guards-rules.md lists it.
SAFER = {
    "infra.sql-drop": "take a dump first (pg_dump, mysqldump), or rename the table and drop it later",
    "infra.sql-truncate": "back the table up, or DELETE with a WHERE that names the rows",
    "infra.sql-delete-all": "add the WHERE that names the rows, checked with a SELECT first",
    "infra.db-flush": "delete the keys or documents you mean (DEL, UNLINK, deleteMany with a filter)",
    "infra.terraform-destroy": "terraform plan -destroy to see the list, and let a person destroy",
    "infra.terraform-auto-approve": "terraform plan -out=tfplan, and have a person apply that plan",
    "infra.kubectl-delete-namespace": "delete the one resource you mean, by name or a narrow -l selector",
    "infra.helm-uninstall": "helm get manifest to see what goes, and let a person uninstall",
    "infra.cloud-delete": "snapshot or back up first, and let a person delete",
    "infra.docker-volumes": "docker compose down without -v; back the volume up before removing it",
    "infra.too-deep": "run the inner command directly, without the nesting",
}

_STRINGS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|\$\$.*?\$\$|--[^\n]*|/\*.*?\*/", re.S)
_DROP = re.compile(r"^DROP\s+(?:TEMPORARY\s+)?(TABLE|DATABASE|SCHEMA|KEYSPACE|COLLECTION)\b(?:\s+IF\s+EXISTS)?\s*([^\s;]*)", re.I)
_TRUNCATE = re.compile(r"^TRUNCATE\b(?:\s+TABLE)?\s*([^\s;]*)", re.I)
_DELETE = re.compile(r"^DELETE\s+FROM\s+([^\s;]+)", re.I)
_UPDATE = re.compile(r"^UPDATE\s+([^\s;]+)\s+SET\b", re.I)
_WHERE = re.compile(r"\bWHERE\b", re.I)
_LEADING = re.compile(r"^(?:BEGIN|COMMIT|START\s+TRANSACTION|\\[a-z]+[^\n]*)\s*", re.I)

# Database clients: name -> options whose value is SQL.
_SQL_CLIENTS: dict[str, tuple[str, ...]] = {
    "psql": ("-c", "--command"),
    "mysql": ("-e", "--execute"),
    "mariadb": ("-e", "--execute"),
    "sqlite3": (),
    "duckdb": ("-c",),
    "clickhouse-client": ("-q", "--query"),
    "clickhouse": ("-q", "--query"),
    "cockroach": ("-e", "--execute"),
    "snowsql": ("-q", "--query"),
    "sqlcmd": ("-Q", "-q"),
    "bq": (),
    "usql": ("-c", "--command"),
    "pgcli": (),
    "mycli": ("-e", "--execute"),
}


def sql_hit(sql: str, via: str) -> Hit | None:
    """The first statement of ``sql`` that drops, truncates or deletes every row."""
    bare = _STRINGS.sub("''", sql)
    for statement in bare.split(";"):
        s = " ".join(statement.split())
        while True:
            m = _LEADING.match(s)
            if not m or not m.group(0):
                break
            s = s[m.end() :]
        if not s:
            continue
        m = _DROP.match(s)
        if m:
            what = f"{m.group(1).upper()} {m.group(2)}".strip()
            return Hit(
                DROP,
                f"{via} runs DROP {what}: the {m.group(1).lower()} and all its data are gone, with no undo outside a backup. "
                f"Take a dump first (pg_dump, mysqldump), or rename it (ALTER ... RENAME) and drop it later",
            )
        m = _TRUNCATE.match(s)
        if m:
            return Hit(
                TRUNCATE,
                f"{via} runs TRUNCATE {m.group(1)}: every row is deleted at once. Back the table up first, or DELETE with a WHERE "
                "that names the rows you mean",
            )
        m = _DELETE.match(s) or _UPDATE.match(s)
        if m and not _WHERE.search(s):
            verb = "DELETE" if s[:6].upper() == "DELETE" else "UPDATE"
            return Hit(
                DELETE_ALL,
                f"{via} runs {verb} on {m.group(1)} with no WHERE: every row of the table is "
                f"{'deleted' if verb == 'DELETE' else 'overwritten'}. "
                "Add the WHERE that names the rows you mean (and check it with a SELECT first)",
            )
    return None


def _option_values(argv: tuple[str, ...], names: tuple[str, ...]) -> list[str]:
    out = []
    for i, a in enumerate(argv[1:], start=1):
        for name in names:
            if a == name and i + 1 < len(argv):
                out.append(argv[i + 1])
            elif name.startswith("--") and a.startswith(name + "="):
                out.append(a[len(name) + 1 :])
            elif not name.startswith("--") and a.startswith(name) and len(a) > len(name) and len(name) == 2:
                out.append(a[2:])
    return out


def _piped_text(cmd: Cmd, env: Env) -> str | None:
    """What a command reads on stdin when the script says: a here-doc, or an echo/printf/cat here-doc before it."""
    if cmd.stdin is not None:
        return cmd.stdin
    for up in env.upstream(cmd)[:1]:
        if up.argv and up.argv[0] in ("echo", "printf"):
            return " ".join(a for a in up.argv[1:] if not (a.startswith("-") and len(a) == 2)).replace("\\n", "\n")
        if up.argv and up.argv[0] == "cat" and up.stdin is not None:
            return up.stdin
    return None


def sql_client(argv: tuple[str, ...], cmd: Cmd, env: Env) -> Hit | None:
    name = argv[0]
    texts = _option_values(argv, _SQL_CLIENTS.get(name, ()))
    if name == "sqlite3":
        operands = [a for a in argv[1:] if not a.startswith("-")]
        texts += operands[1:]
    if name == "bq" and len(argv) > 1 and argv[1] == "query":
        texts += [a for a in argv[2:] if not a.startswith("-")]
    if name == "cockroach" and (len(argv) < 2 or argv[1] != "sql"):
        return None
    piped = _piped_text(cmd, env)
    if piped is not None:
        texts.append(piped)
    for text in texts:
        hit = sql_hit(text, name)
        if hit is not None:
            return hit
    return None


def redis(argv: tuple[str, ...], cmd: Cmd, env: Env) -> Hit | None:
    words = [a.upper() for a in argv[1:]]
    piped = _piped_text(cmd, env)
    if piped:
        words += piped.upper().split()
    for w in ("FLUSHALL", "FLUSHDB"):
        if w in words:
            return Hit(
                FLUSH,
                f"redis-cli {w} deletes every key of the {'server' if w == 'FLUSHALL' else 'database'}. Delete the keys you "
                "mean (DEL, or SCAN with a MATCH and UNLINK)",
            )
    return None


_MONGO = re.compile(r"dropDatabase\s*\(|\.drop\s*\(\s*\)|\.(?:deleteMany|remove)\s*\(\s*\{\s*\}\s*\)")


def mongo(argv: tuple[str, ...], cmd: Cmd, env: Env) -> Hit | None:
    texts = _option_values(argv, ("--eval",))
    piped = _piped_text(cmd, env)
    if piped:
        texts.append(piped)
    for text in texts:
        m = _MONGO.search(text)
        if m:
            return Hit(
                FLUSH,
                f"{argv[0]} runs {m.group(0).strip()}: a whole database or collection is deleted. Dump it first (mongodump), or "
                "delete with a filter",
            )
    return None


def dropdb(argv: tuple[str, ...], cmd: Cmd, env: Env) -> Hit | None:
    if any(a in ("--help", "-?", "--version") for a in argv[1:]):
        return None
    names = [a for a in argv[1:] if not a.startswith("-")]
    return Hit(DROP, f"dropdb {' '.join(names[-1:])} deletes the whole database. Dump it first (pg_dump), or rename it and drop it later")


def mysqladmin(argv: tuple[str, ...], cmd: Cmd, env: Env) -> Hit | None:
    if "drop" in argv[1:]:
        return Hit(DROP, "mysqladmin drop deletes the whole database. Dump it first (mysqldump)")
    return None


def _client(argv: tuple[str, ...], cmd: Cmd, env: Env) -> Hit | None:
    name = argv[0]
    if name in _SQL_CLIENTS:
        return sql_client(argv, cmd, env)
    if name == "redis-cli":
        return redis(argv, cmd, env)
    if name in ("mongo", "mongosh"):
        return mongo(argv, cmd, env)
    if name == "dropdb":
        return dropdb(argv, cmd, env)
    if name == "mysqladmin":
        return mysqladmin(argv, cmd, env)
    return None


def clients(cmd: Cmd, env: Env) -> Hit | None:
    return _client(cmd.argv, cmd, env)


_EXEC_OPTS = frozenset(
    {"-u", "--user", "-e", "--env", "-w", "--workdir", "--env-file", "-c", "--container", "-n", "--namespace", "--context"}
)


def _inner(argv: tuple[str, ...], start: int) -> tuple[str, ...] | None:
    """The command ``docker exec [opts] CONTAINER cmd…`` / ``kubectl exec POD -- cmd…`` runs."""
    if "--" in argv[start:]:
        rest = argv[argv.index("--", start) + 1 :]
        return (rest[0].rsplit("/", 1)[-1], *rest[1:]) if rest else None
    i = start
    target_seen = False
    while i < len(argv):
        a = argv[i]
        if a.startswith("-"):
            i += 2 if a in _EXEC_OPTS else 1
            continue
        if not target_seen:
            target_seen = True
            i += 1
            continue
        rest = argv[i:]
        return (rest[0].rsplit("/", 1)[-1], *rest[1:])
    return None


def container_exec(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    name = argv[0]
    start = None
    if name in ("docker", "podman") and len(argv) > 2 and argv[1] == "exec":
        start = 2
    elif name in ("docker", "podman") and len(argv) > 3 and argv[1] in ("compose", "container") and argv[2] in ("exec", "run"):
        start = 3
    elif name == "docker-compose" and len(argv) > 2 and argv[1] in ("exec", "run"):
        start = 2
    elif name in ("kubectl", "oc") and "exec" in argv[1:3]:
        start = argv.index("exec") + 1
    if start is None:
        return None
    inner = _inner(argv, start)
    if inner is None:
        return None
    return _client(inner, cmd._replace(argv=inner), env)


# -- terraform and friends ------------------------------------------------------------------


def _sub(argv: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    for i, a in enumerate(argv[1:], start=1):
        if not a.startswith("-"):
            return a, argv[i + 1 :]
    return "", ()


def terraform(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    tool = argv[0]
    sub, rest = _sub(argv)
    if tool == "terragrunt" and sub in ("run-all", "run"):
        sub, rest = _sub((tool, *rest))
    if sub in ("destroy", "destroy-all") or (sub == "apply" and any(a in ("-destroy", "--destroy") for a in rest)):
        return Hit(
            DESTROY,
            f"{tool} destroy deletes every resource the configuration manages: servers, databases and their data. "
            f"Run {tool} plan -destroy to see the list, and let a person apply it",
        )
    if sub == "apply" and any(a.lstrip("-").split("=")[0] == "auto-approve" and not a.endswith("=false") for a in rest):
        return Hit(
            AUTO_APPROVE,
            f"{tool} apply -auto-approve changes real infrastructure with no plan looked at; a replace can delete a database. "
            f"Run {tool} plan -out=tfplan and have a person apply that plan",
        )
    return None


def pulumi(cmd: Cmd, env: Env) -> Hit | None:
    sub, rest = _sub(cmd.argv)
    if sub == "destroy" and "--preview-only" not in rest:
        return Hit(DESTROY, "pulumi destroy deletes every resource of the stack. Run pulumi preview --diff and let a person destroy it")
    if sub in ("up", "update") and any(a in ("--yes", "-y", "-f", "--skip-preview") for a in rest):
        return Hit(
            AUTO_APPROVE, "pulumi up --yes changes real infrastructure with no preview looked at. Run pulumi preview, then up without --yes"
        )
    return None


def cdk(cmd: Cmd, env: Env) -> Hit | None:
    sub, _ = _sub(cmd.argv)
    if sub == "destroy":
        return Hit(
            DESTROY,
            "cdk destroy deletes every resource of the stack and, unless retained, its data. Run cdk diff, and let a person destroy it",
        )
    return None


# -- kubernetes -------------------------------------------------------------------------------------

_KUBE_WITH_VALUE = frozenset(
    {"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server", "-l", "--selector", "-o"}
)
_NAMESPACES = frozenset({"ns", "namespace", "namespaces"})


def kubectl(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    words: list[str] = []
    flags: list[str] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            break
        if a.startswith("-"):
            flags.append(a)
            if a in _KUBE_WITH_VALUE:
                i += 1
        else:
            words.append(a)
        i += 1
    if not words or words[0] != "delete":
        return None
    resources = words[1:]
    if any(
        r.split("/", 1)[0].split(",")[0] in _NAMESPACES or any(p in _NAMESPACES for p in r.split("/", 1)[0].split(",")) for r in resources
    ):
        names = " ".join(r for r in resources if r not in _NAMESPACES) or "the namespace"
        return Hit(
            NAMESPACE,
            f"kubectl delete namespace {names} deletes everything in it: deployments, services, secrets and persistent volume claims. "
            "Delete the one resource you mean, by name",
        )
    if "--all" in flags or "-A" in flags or "--all-namespaces" in flags:
        return Hit(
            NAMESPACE,
            "kubectl delete --all removes every resource of that kind (in every namespace with -A). Delete by name or by a "
            "narrow -l selector",
        )
    return None


def helm(cmd: Cmd, env: Env) -> Hit | None:
    sub, rest = _sub(cmd.argv)
    if sub in ("uninstall", "delete", "del", "un") and "--dry-run" not in rest:
        name = next((a for a in rest if not a.startswith("-")), "the release")
        return Hit(
            HELM,
            f"helm uninstall {name} removes the release and everything it created, stateful sets included. Check with helm get "
            "manifest, and let a person do it",
        )
    return None


# -- cloud CLIs ---------------------------------------------------------------------------------

_AWS_DELETE = re.compile(r"^(?:delete|terminate|remove|deregister|purge|schedule-key-deletion|disable-key)(?:-|$)")
_AWS_WITH_VALUE = frozenset(
    {"--profile", "--region", "--output", "--endpoint-url", "--query", "--color", "--ca-bundle", "--cli-read-timeout"}
)


def aws(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    words: list[str] = []
    flags: set[str] = set()
    i = 1
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            flags.add(a.split("=", 1)[0])
            if a in _AWS_WITH_VALUE:
                i += 1
        elif not a.startswith("-"):
            words.append(a)
        i += 1
    if len(words) < 2:
        return None
    service, op = words[0], words[1]
    if service == "s3":
        if op == "rb":
            return Hit(
                CLOUD,
                f"aws s3 rb {' '.join(words[2:3])} deletes the bucket{' and every object in it' if '--force' in flags else ''}. "
                "Empty it by hand after a backup, and let a person remove it",
            )
        if op == "rm" and "--recursive" in flags:
            return Hit(
                CLOUD,
                f"aws s3 rm --recursive {' '.join(words[2:3])} deletes every object under that prefix. List it first (aws s3 ls "
                "--recursive), and delete by exact key",
            )
        return None
    if _AWS_DELETE.match(op) and "--dry-run" not in flags:
        return Hit(
            CLOUD, f"aws {service} {op} deletes cloud resources, often with their data. Let a person run it, or take a snapshot first"
        )
    return None


def gcloud(cmd: Cmd, env: Env) -> Hit | None:
    words = [a for a in cmd.argv[1:] if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in cmd.argv[1:] if a.startswith("-")}
    if "delete" in words:
        what = " ".join(words[: words.index("delete")])
        return Hit(CLOUD, f"gcloud {what} delete deletes cloud resources, often with their data. Let a person run it, or snapshot first")
    if words[:2] == ["storage", "rm"] and (flags & {"-r", "--recursive"}):
        return Hit(CLOUD, "gcloud storage rm -r deletes every object under that path. List it first, and delete by exact name")
    return None


def gsutil(cmd: Cmd, env: Env) -> Hit | None:
    args = cmd.argv[1:]
    words = [a for a in args if not a.startswith("-")]
    flags = {a for a in args if a.startswith("-")}
    if not words:
        return None
    if words[0] == "rb":
        return Hit(CLOUD, "gsutil rb deletes the bucket. Let a person remove it, after a backup")
    if (words[0] in ("rm", "del") and any(f in flags for f in ("-r", "-R", "-rf", "-fr", "-a"))) or (
        words[0] in ("rm", "del") and any("**" in w for w in words)
    ):
        return Hit(CLOUD, "gsutil rm -r deletes every object under that path. List it first (gsutil ls -r), and delete by exact name")
    return None


def az(cmd: Cmd, env: Env) -> Hit | None:
    words = [a for a in cmd.argv[1:] if not a.startswith("-")]
    if "delete" in words or "purge" in words:
        what = " ".join(words[:2])
        return Hit(CLOUD, f"az {what} delete deletes Azure resources, often with their data. Let a person run it")
    return None


def doctl(cmd: Cmd, env: Env) -> Hit | None:
    words = [a for a in cmd.argv[1:] if not a.startswith("-")]
    if any(w in ("delete", "rm", "d") for w in words[1:]):
        return Hit(CLOUD, f"doctl {' '.join(words[:2])} delete destroys DigitalOcean resources. Let a person run it")
    return None


def heroku(cmd: Cmd, env: Env) -> Hit | None:
    sub = next((a for a in cmd.argv[1:] if not a.startswith("-")), "")
    if sub in ("apps:destroy", "destroy", "pg:reset", "addons:destroy", "pg:reset-database"):
        return Hit(CLOUD, f"heroku {sub} deletes the app or its database for good. Let a person run it")
    return None


def fly(cmd: Cmd, env: Env) -> Hit | None:
    words = [a for a in cmd.argv[1:] if not a.startswith("-")]
    if "destroy" in words[:2] or words[:2] in (["volumes", "delete"], ["volume", "delete"], ["apps", "delete"]):
        return Hit(CLOUD, f"{cmd.argv[0]} {' '.join(words[:2])} deletes the app or its volumes. Let a person run it")
    return None


def docker(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    words = [a for a in argv[1:] if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in argv[1:] if a.startswith("-")}
    hit = container_exec(cmd, env)
    if hit is not None:
        return hit
    if words[:2] in (["volume", "rm"], ["volume", "remove"], ["volume", "prune"]):
        return Hit(
            VOLUMES,
            f"docker {' '.join(words[:2])} deletes volumes, and a local database's data lives in one. Remove the container "
            "only, or back the volume up first",
        )
    if words[:2] == ["system", "prune"] and "--volumes" in flags:
        return Hit(
            VOLUMES, "docker system prune --volumes deletes every unused volume, local databases' data included. Prune without --volumes"
        )
    down = (argv[0] == "docker-compose" and words[:1] == ["down"]) or words[:2] == ["compose", "down"]
    if down and ({"-v", "--volumes"} & flags):
        return Hit(
            VOLUMES,
            "docker compose down -v deletes the project's volumes with its containers, and the databases' data with them. Run "
            "docker compose down without -v",
        )
    return None


PACK = Pack(
    "infra",
    RULES,
    {
        **{name: (clients,) for name in (*_SQL_CLIENTS, "redis-cli", "mongo", "mongosh", "dropdb", "mysqladmin")},
        "terraform": (terraform,),
        "tofu": (terraform,),
        "terragrunt": (terraform,),
        "pulumi": (pulumi,),
        "cdk": (cdk,),
        "kubectl": (kubectl, container_exec),
        "oc": (kubectl, container_exec),
        "helm": (helm,),
        "aws": (aws,),
        "gcloud": (gcloud,),
        "gsutil": (gsutil,),
        "az": (az,),
        "doctl": (doctl,),
        "heroku": (heroku,),
        "fly": (fly,),
        "flyctl": (fly,),
        "docker": (docker,),
        "podman": (docker,),
        "docker-compose": (docker,),
    },
    safer=SAFER,
)
