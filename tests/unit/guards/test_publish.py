"""The publish pack: registry uploads, and system-wide permissions, disks and power."""

from __future__ import annotations

import pytest

from .guard import rule, shell


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm publish", "publish.npm-publish"),
        ("pnpm -r publish --no-git-checks", "publish.npm-publish"),
        ("yarn npm publish", "publish.npm-publish"),
        ("npx lerna publish from-package --yes", "publish.npm-publish"),
        ("cd packages/core && npm publish", "publish.npm-publish"),
        ("twine upload dist/*", "publish.pypi-upload"),
        ("python3 -m twine upload dist/*", "publish.pypi-upload"),
        ("uv publish", "publish.pypi-upload"),
        ("docker push org/app:latest", "publish.docker-push"),
        ("docker buildx build --push -t org/app .", "publish.docker-push"),
        ("cargo publish", "publish.registry-publish"),
        ("./gradlew publish", "publish.registry-publish"),
        ("gh release create v1.0.0", "publish.registry-publish"),
        ("chmod -R 777 .", "publish.chmod-world"),
        ("chmod 777 -R src", "publish.chmod-world"),
        ("chmod -R a+rwx ~", "publish.chmod-world"),
        ("chmod -R go+w .", "publish.chmod-world"),
        ("yarn workspace @org/ui npm publish", "publish.npm-publish"),
        ("chmod 000 /etc", "publish.chmod-world"),
        ("sudo chown -R $USER /usr", "publish.chown-recursive"),
        ("chown -R nobody /", "publish.chown-recursive"),
        ("mkfs.ext4 /dev/sda1", "publish.mkfs"),
        ("wipefs -a /dev/sda", "publish.mkfs"),
        ("dd if=/dev/zero of=/dev/sda bs=1M", "publish.dd-device"),
        ("cat image.iso > /dev/sdb", "publish.dd-device"),
        ("shutdown -h now", "publish.power"),
        ("systemctl reboot", "publish.power"),
    ],
)
def test_publishing_and_system_changes_fire(command: str, expected: str) -> None:
    assert rule(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "npm publish --dry-run",
        "npm pack",
        "npm run publish:docs",
        "python -m build",
        "twine check dist/*",
        "cargo publish --dry-run",
        "./gradlew publishToMavenLocal",
        "docker build -t org/app .",
        "docker buildx build -t org/app --load .",
        "chmod +x scripts/deploy.sh",
        "chmod -R 755 dist",
        "chmod 700 ~/.ssh",
        "chmod -R 777 /tmp/shared",
        "chown -R dev:dev ./build",
        "mkfs.ext4 disk.img",
        "dd if=/dev/zero of=disk.img bs=1M count=10",
        "dd if=/dev/sda of=backup.img",
        "echo test > /dev/null",
        "fdisk -l",
        "shutdown --help",
        "systemctl restart nginx",
        'echo "npm publish" >> RELEASING.md',
        "docker push --help",
        "chmod -R u+rwX,go-w .",
        "chmod -R 755 .",
    ],
)
def test_builds_dry_runs_and_own_files_pass(command: str) -> None:
    assert shell(command) is None
