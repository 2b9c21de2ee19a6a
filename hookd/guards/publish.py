"""The publishing and system pack: npm publish, twine upload, docker push and other registry
uploads; chmod -R 777 and chown -R on system trees; mkfs and dd onto devices; powering off."""

from __future__ import annotations

import posixpath
import re

from hookd.guards.model import Hit
from hookd.guards.pack import TOO_DEEP, Env, Pack, flags
from hookd.guards.paths import CRITICAL, DYNAMIC, SAFE, SYSTEM_DIRS, Where, classify, display
from hookd.guards.shell import Cmd

NPM = "publish.npm-publish"
PYPI = "publish.pypi-upload"
DOCKER = "publish.docker-push"
REGISTRY = "publish.registry-publish"
CHMOD = "publish.chmod-world"
CHOWN = "publish.chown-recursive"
MKFS = "publish.mkfs"
DD = "publish.dd-device"
POWER = "publish.power"

RULES = {
    NPM: "npm, pnpm or yarn publish (and unpublish, deprecate; lerna, changesets, semantic-release)",
    PYPI: "twine upload, uv publish, poetry publish, flit publish, hatch publish",
    DOCKER: "docker or podman push, buildx --push, compose push",
    REGISTRY: "cargo publish, gem push, nuget push, mvn deploy, gradle publish, helm push, gh release create",
    CHMOD: "chmod -R to a world-writable mode (777, a+rwx, o+w), or any chmod of /, the home or a system directory",
    CHOWN: "chown -R or chgrp -R on /, the home or a system directory",
    MKFS: "mkfs, mkswap, wipefs, fdisk, parted, sgdisk on a device: a new filesystem or partition table",
    DD: "dd or a redirect writing onto a block device",
    POWER: "shutdown, reboot, halt or poweroff of the machine",
    "publish.too-deep": TOO_DEEP,
}

# The safer command for each rule, as docs/guards-rules.md lists it.
SAFER = {
    "publish.npm-publish": "npm publish --dry-run or npm pack, and let a person publish",
    "publish.pypi-upload": "twine check dist/*, and let a person upload",
    "publish.docker-push": "build and tag locally (docker buildx build --load), and let a person or CI push",
    "publish.registry-publish": "the tool's dry run (cargo publish --dry-run, gh release create --draft), and let a person publish",
    "publish.chmod-world": "give the owner what it needs (chmod -R u+rwX), on the directory you mean",
    "publish.chown-recursive": "change the owner of the one directory you mean (chown -R me ./build)",
    "publish.mkfs": "check the device with lsblk, and let a person format it",
    "publish.dd-device": "write to an image file (of=disk.img); let a person write the device",
    "publish.power": "ask a person to do it",
    "publish.too-deep": "run the inner command directly, without the nesting",
}

_DRY = frozenset({"--dry-run", "-n", "--dryrun", "--dry"})


def _dry(argv: tuple[str, ...]) -> bool:
    return any(a in _DRY or a.startswith("--dry-run") for a in argv[1:])


def _publish_hit(rule: str, what: str, where: str, safer: str) -> Hit:
    return Hit(rule, f"{what} publishes to {where}, for everyone, and a published version cannot be taken back cleanly. {safer}")


def _first_word(argv: tuple[str, ...], skip_values: frozenset[str] = frozenset()) -> tuple[str, int]:
    i = 1
    while i < len(argv):
        a = argv[i]
        if a.startswith("-"):
            i += 2 if a in skip_values else 1
            continue
        return a, i
    return "", len(argv)


def npm(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    sub, i = _first_word(argv, frozenset({"--filter", "-F", "-C", "--dir", "--prefix", "-w", "--workspace"}))
    if argv[0] == "yarn" and sub in ("workspace", "workspaces") and len(argv) > i + 2:
        # `yarn workspace @org/ui npm publish`: the rest is a yarn command run in that workspace.
        rest = argv[i + 2 :] if sub == "workspace" else tuple(a for a in argv[i + 1 :] if a != "foreach")
        return npm(cmd._replace(argv=("yarn", *rest)), env)
    if argv[0] == "yarn" and sub == "npm":
        sub, _ = _first_word(argv[i:])
    if _dry(argv):
        return None
    if sub in ("publish", "unpublish", "deprecate"):
        return _publish_hit(
            NPM,
            f"{argv[0]} {sub}",
            "the npm registry",
            f"Run {argv[0]} publish --dry-run (or npm pack) to check it, and let a person publish",
        )
    return None


def js_release(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    name = argv[0]
    sub, _ = _first_word(argv)
    if _dry(argv) or ("--no-ci" in argv and "--dry-run" in argv):
        return None
    if (
        (name == "lerna" and sub == "publish")
        or (name == "changeset" and sub == "publish")
        or name in ("semantic-release", "np", "release-it")
    ):
        return _publish_hit(NPM, f"{name} {sub}".strip(), "the npm registry", "Run it with --dry-run, and let a person publish")
    return None


def twine(cmd: Cmd, env: Env) -> Hit | None:
    sub, _ = _first_word(cmd.argv)
    if sub == "upload":
        return _publish_hit(PYPI, "twine upload", "the Python package index", "Run twine check dist/*, and let a person upload")
    return None


def python_tools(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    sub, _ = _first_word(argv, frozenset({"--directory", "--project", "-C"}))
    if sub == "publish" and not _dry(argv):
        return _publish_hit(PYPI, f"{argv[0]} publish", "the Python package index", f"Build with {argv[0]} build and let a person publish")
    return None


def docker(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    words = [a for a in argv[1:] if not a.startswith("-")]
    if not words:
        return None
    if (
        words[0] == "push"
        or words[:2] == ["image", "push"]
        or words[:2] == ["compose", "push"]
        or (argv[0] == "docker-compose" and words[0] == "push")
    ):
        return _publish_hit(
            DOCKER, f"{argv[0]} push", "a container registry", "Build and tag locally, and let a person push (or let CI push on a tag)"
        )
    if words[0] in ("buildx", "build") and (
        "--push" in argv or any(a.startswith("--output") and "registry" in a for a in argv) or "type=registry" in argv
    ):
        return _publish_hit(
            DOCKER, f"{argv[0]} {words[0]} --push", "a container registry", "Build with --load instead, and let a person push"
        )
    return None


def registry(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    name = argv[0]
    sub, i = _first_word(argv)
    if _dry(argv):
        return None
    if name == "cargo" and sub in ("publish", "yank"):
        return _publish_hit(REGISTRY, f"cargo {sub}", "crates.io", "Run cargo publish --dry-run, and let a person publish")
    if name == "gem" and sub in ("push", "yank"):
        return _publish_hit(REGISTRY, f"gem {sub}", "RubyGems", "Build with gem build, and let a person push")
    if name == "dotnet" and sub == "nuget" and "push" in argv[i:]:
        return _publish_hit(REGISTRY, "dotnet nuget push", "a NuGet feed", "Pack with dotnet pack, and let a person push")
    if name == "nuget" and sub == "push":
        return _publish_hit(REGISTRY, "nuget push", "a NuGet feed", "Let a person push")
    if name in ("mvn", "mvnw") and any(a == "deploy" or a.startswith("deploy:") for a in argv[1:]):
        return _publish_hit(REGISTRY, "mvn deploy", "a Maven repository", "Run mvn install for a local copy, and let a person deploy")
    if name in ("gradle", "gradlew") and any(re.match(r"^(:?[\w-]+:)*publish(?!ToMavenLocal)\w*$", a) for a in argv[1:]):
        return _publish_hit(REGISTRY, "gradle publish", "a Maven repository", "Run publishToMavenLocal, and let a person publish")
    if name == "helm" and sub == "push":
        return _publish_hit(REGISTRY, "helm push", "a chart registry", "Package with helm package, and let a person push")
    if name == "gh" and sub == "release" and len(argv) > i + 1 and argv[i + 1] in ("create", "upload", "delete", "edit"):
        return _publish_hit(
            REGISTRY, f"gh release {argv[i + 1]}", "GitHub's releases", "Draft it (gh release create --draft) and let a person publish"
        )
    return None


# -- system ----------------------------------------------------------------------------------

_WORLD_DIGITS = re.compile(r"^0?[0-7]?[0-7][0-7][2367]$")
_WORLD_SYMBOLIC = re.compile(r"(^|,)[ugoa]*[oa][ugoa]*[+=][rwxXst]*w|(^|,)[+=][rwxXst]*w")


def _system_or_home(where: Where, env: Env) -> bool:
    """/, a system directory, the home or one of its parents; the project's own root is the project's to change."""
    if where.kind != CRITICAL:
        return False
    home = posixpath.normpath(env.ctx.home)
    return where.path == "/" or where.path in SYSTEM_DIRS or home == where.path or home.startswith(where.path.rstrip("/") + "/")


def chmod(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    short, long, operands = flags(argv, frozenset({"--reference"}))
    recursive = "R" in short or "--recursive" in long
    mode_word = next((a for a in argv[1:] if a.startswith("-") and len(a) > 1 and a[1:].isdigit()), None)
    if not operands and mode_word is None:
        return None
    mode = operands[0] if operands and mode_word is None else (mode_word or "")[1:] if mode_word else ""
    targets = operands[1:] if mode_word is None else operands
    world = bool(_WORLD_DIGITS.match(mode)) or bool(_WORLD_SYMBOLIC.search(mode)) or mode in ("a+rwx", "ugo+rwx", "o+rwx")
    cwd = env.cwd(cmd)
    dyn = dict.fromkeys((a for a, d in zip(argv, cmd.dyn, strict=False) if d), True)
    for t in targets:
        where = classify(t, t in dyn, env.ctx, cwd)
        if _system_or_home(where, env) and (recursive or where.path == "/" or where.path.count("/") <= 2):
            return Hit(
                CHMOD,
                f"chmod {mode} {display(where, env.ctx)} changes the permissions of {'everything under ' if recursive else ''}a "
                "directory the system "
                "or your login depends on; ssh, sudo and services stop working, and undoing it by hand is long. Change the one "
                "file you mean",
            )
        if recursive and world and where.kind not in (SAFE,) and not where.path.startswith("/tmp/"):
            return Hit(
                CHMOD,
                f"chmod -R {mode} {display(where, env.ctx)} makes every file there writable by every user and process on the machine. "
                "Give the owner what it needs instead (chmod -R u+rwX, or 755 for directories and 644 for files)",
            )
    return None


def chown(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    short, long, operands = flags(argv, frozenset({"--reference", "--from"}))
    if "R" not in short and "--recursive" not in long:
        return None
    cwd = env.cwd(cmd)
    dyn = dict.fromkeys((a for a, d in zip(argv, cmd.dyn, strict=False) if d), True)
    for t in operands[1:]:
        where = classify(t, t in dyn, env.ctx, cwd)
        if _system_or_home(where, env) or where.kind == DYNAMIC:
            return Hit(
                CHOWN,
                f"{argv[0]} -R {operands[0]} {display(where, env.ctx)} hands every file under a system directory (or your home) "
                "to another owner; "
                "sudo, ssh and services refuse to run afterwards. Change the owner of the one directory you mean (e.g. ./build)",
            )
    return None


_DEVICE = re.compile(r"^/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper/|loop\d|sr\d|nbd\d)")
_MKFS = frozenset(
    {"mkfs", *(f"mkfs.{fs}" for fs in ("ext2", "ext3", "ext4", "xfs", "btrfs", "vfat", "fat", "msdos", "ntfs", "exfat", "f2fs"))}
)
_DISK_TOOLS = frozenset(
    {"mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard", "mke2fs", "cryptsetup"}
)


def mkfs(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    name = argv[0]
    if name in ("fdisk", "sfdisk", "parted", "gdisk") and any(a in ("-l", "--list", "-s", "--show") for a in argv[1:]):
        return None
    if name == "cryptsetup" and not any(a in ("luksFormat", "erase", "luksErase") for a in argv[1:]):
        return None
    devices = [a for a, d in zip(argv[1:], cmd.dyn[1:], strict=False) if _DEVICE.match(a) or (d and a.startswith("/dev/"))]
    if not devices:
        return None
    return Hit(
        MKFS,
        f"{name} {devices[0]} writes a new filesystem or partition table over the device: every file on it is gone. "
        "Check the device with lsblk first, and let a person run it",
    )


def dd(cmd: Cmd, env: Env) -> Hit | None:
    for a in cmd.argv[1:]:
        if a.startswith("of=") and _DEVICE.match(a[3:]):
            return _dd_hit(f"dd {a}", a[3:])
    return None


def _dd_hit(how: str, device: str) -> Hit:
    return Hit(
        DD,
        f"{how} writes raw bytes over {device}: its partition table and every filesystem on it are destroyed. "
        "Write to an image file (of=disk.img) instead, and check the device with lsblk before a person writes it",
    )


def device_redirects(cmd: Cmd, env: Env) -> Hit | None:
    for op, target, _ in cmd.redirects:
        if op in (">", ">>", ">|", "&>") and _DEVICE.match(target):
            return _dd_hit(f"{cmd.argv[0]} > {target}", target)
    return None


def power(cmd: Cmd, env: Env) -> Hit | None:
    argv = cmd.argv
    name = argv[0]
    if name == "shutdown" and any(a in ("--help", "-c", "--cancel") for a in argv[1:]):
        return None
    if name in ("shutdown", "reboot", "halt", "poweroff") and "--help" not in argv:
        return Hit(POWER, f"{name} stops this machine and everything running on it, other people's work included. Ask a person to do it")
    if name == "systemctl" and any(a in ("poweroff", "reboot", "halt", "kexec", "emergency", "rescue") for a in argv[1:]):
        return Hit(POWER, "systemctl poweroff/reboot stops this machine and everything running on it. Ask a person to do it")
    if name in ("init", "telinit") and any(a in ("0", "6") for a in argv[1:]):
        return Hit(POWER, f"{name} {argv[1]} stops or restarts this machine. Ask a person to do it")
    return None


PACK = Pack(
    "publish",
    RULES,
    {
        "npm": (npm,),
        "pnpm": (npm,),
        "yarn": (npm,),
        "bun": (npm,),
        "lerna": (js_release,),
        "changeset": (js_release,),
        "semantic-release": (js_release,),
        "np": (js_release,),
        "release-it": (js_release,),
        "twine": (twine,),
        "uv": (python_tools,),
        "poetry": (python_tools,),
        "flit": (python_tools,),
        "hatch": (python_tools,),
        "pdm": (python_tools,),
        "docker": (docker,),
        "podman": (docker,),
        "docker-compose": (docker,),
        "cargo": (registry,),
        "gem": (registry,),
        "dotnet": (registry,),
        "nuget": (registry,),
        "mvn": (registry,),
        "mvnw": (registry,),
        "gradle": (registry,),
        "gradlew": (registry,),
        "helm": (registry,),
        "gh": (registry,),
        "chmod": (chmod,),
        "chown": (chown,),
        "chgrp": (chown,),
        "dd": (dd,),
        **{name: (mkfs,) for name in _DISK_TOOLS | _MKFS},
        "shutdown": (power,),
        "reboot": (power,),
        "halt": (power,),
        "poweroff": (power,),
        "systemctl": (power,),
        "init": (power,),
        "telinit": (power,),
    },
    (device_redirects,),
    safer=SAFER,
)
