"""The publishing and system pack: npm publish, twine upload, docker push and other registry
uploads; chmod -R 777 and chown -R on system trees; mkfs and dd onto devices."""

from __future__ import annotations

from hookd.guards.pack import TOO_DEEP, Pack

RULES = {
    "publish.npm-publish": "npm, pnpm or yarn publish (and unpublish, deprecate)",
    "publish.pypi-upload": "twine upload, uv publish, poetry publish, flit publish, hatch publish",
    "publish.docker-push": "docker or podman push, buildx --push",
    "publish.registry-publish": "cargo publish, gem push, nuget push, mvn deploy, gradle publish, helm push, gh release create",
    "publish.chmod-world": "chmod -R 777 (or a+rwx), or chmod on /, the home or a system directory",
    "publish.chown-recursive": "chown -R or chgrp -R on /, the home or a system directory",
    "publish.mkfs": "mkfs, wipefs, fdisk and the like: a new filesystem or partition table on a device",
    "publish.dd-device": "dd or a redirect writing onto a block device",
    "publish.power": "shutdown, reboot, halt or poweroff of the machine",
    "publish.too-deep": TOO_DEEP,
}

PACK = Pack("publish", RULES, {})
