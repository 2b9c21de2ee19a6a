"""Reading a shell command into the simple commands it runs: wrappers, nesting, quoting, bounds."""

from __future__ import annotations

import pytest

from hookd.guards.shell import MAX_COMMANDS, MAX_DEPTH, parse


def argvs(command: str) -> list[tuple[str, ...]]:
    return [c.argv for c in parse(command).cmds]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("sudo -u root /bin/rm -rf x", ("rm", "-rf", "x")),
        ("env -i A=1 PATH=/bin rm x", ("rm", "x")),
        ("command rm x", ("rm", "x")),
        ("exec rm x", ("rm", "x")),
        ("nice -n 10 ionice -c 3 rm x", ("rm", "x")),
        ("timeout -s KILL 30 rm x", ("rm", "x")),
        ("nohup rm x", ("rm", "x")),
        ("FOO=1 BAR=2 rm x", ("rm", "x")),
        ("npx cdk destroy", ("cdk", "destroy")),
        ("pnpm dlx lerna publish", ("lerna", "publish")),
        ("python3 -m twine upload dist/x", ("twine", "upload", "dist/x")),
        ("env -S 'rm -rf x'", ("rm", "-rf", "x")),
    ],
)
def test_wrappers_and_binary_paths_are_peeled(command: str, expected: tuple[str, ...]) -> None:
    assert argvs(command)[-1] == expected


def test_command_v_runs_nothing() -> None:
    assert argvs("command -v rm") == [("command", "-v", "rm")]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm \"a b\" 'c d' e\\ f", ("rm", "a b", "c d", "e f")),
        ("rm $'a\\tb'", ("rm", "a\tb")),
        ('rm "$HOME/x" ${HOME}/y ~/z', ("rm", "~/x", "~/y", "~/z")),
        ('echo "a\\"b"', ("echo", 'a"b')),
        ("rm -rf \\\n  src", ("rm", "-rf", "src")),
        ("$(echo rm) -rf x", ("rm", "-rf", "x")),
    ],
)
def test_words_come_out_as_bash_passes_them(command: str, expected: tuple[str, ...]) -> None:
    assert argvs(command)[-1] == expected


def test_unknown_expansions_are_marked_dynamic() -> None:
    (cmd,) = parse('rm -rf "$X/a" b').cmds
    assert cmd.dyn == (False, False, True, False)


def test_every_command_of_chains_pipes_subshells_and_substitutions_is_read() -> None:
    found = argvs("a && (b; c) | d || e $(f) `g` <(h); if i; then j; fi; k() { l; }; for x in 1; do m; done")
    names = {a[0] for a in found}
    assert names >= set("abcdefghijlm") and "k" not in names  # k is only defined


def test_bash_c_eval_watch_and_piped_scripts_are_read_one_level_deeper() -> None:
    script = parse("bash -lc 'sh -c \"rm -rf x\"'; eval 'git reset --hard'; echo 'npm publish' | sh; watch -n 5 'make deploy'")
    deep = {c.argv[0]: c.depth for c in script.cmds}
    assert deep["rm"] == 2 and deep["git"] == 1 and deep["npm"] == 1 and deep["make"] == 1


def test_here_docs_and_here_strings_reach_the_command_that_reads_them() -> None:
    cat, psql = parse("cat <<'EOF' | psql\nDROP TABLE x;\nEOF").cmds
    assert cat.stdin == "DROP TABLE x;\n" and psql.group == cat.group and psql.stage == cat.stage + 1
    (mysql,) = parse('mysql <<< "DROP DATABASE y"').cmds
    assert mysql.stdin is not None and "DROP DATABASE y" in mysql.stdin


def test_cd_and_variables_follow_the_script() -> None:
    _, rm = parse("cd ~/x && rm -rf y").cmds
    assert rm.cds == ("~/x",)
    (sub_rm,) = [c for c in parse("(cd /tmp; true); rm -rf z").cmds if c.argv[0] == "rm"]
    assert sub_rm.cds == ()
    assert [c.argv for c in parse("for d in a b; do rm -rf $d; done").cmds] == [("rm", "-rf", "a"), ("rm", "-rf", "b")]
    assert argvs("X=build; rm -rf $X") == [("rm", "-rf", "build")]


def test_xargs_adds_unknown_words() -> None:
    _, rm = parse("find . | xargs -0 rm -rf").cmds
    assert rm.argv[-1] == "$(xargs)" and rm.dyn[-1] and "xargs" in rm.wrappers


def test_nesting_past_the_bound_marks_the_script_too_deep() -> None:
    script = parse("eval " * (MAX_DEPTH + 3) + "rm -rf /")
    assert script.too_deep and not script.complete
    assert not any(c.argv[:1] == ("rm",) for c in script.cmds)


def test_too_many_commands_mark_the_script_incomplete() -> None:
    script = parse("true; " * (MAX_COMMANDS + 10))
    assert not script.complete and len(script.cmds) <= MAX_COMMANDS


def test_a_nesting_python_cannot_recurse_through_is_a_bound_not_a_crash() -> None:
    script = parse("(" * 5000 + "ls" + ")" * 5000)
    assert not script.complete


def test_parses_are_cached_by_string() -> None:
    assert parse("git status") is parse("git status")


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"import os; os.system('rm -rf src')\"",
        "node -e \"require('child_process').execSync('rm -rf src')\"",
        "perl -e 'system(\"rm -rf src\")'",
        "ruby -e 'system(\"rm -rf src\")'",
    ],
)
def test_interpreters_shelling_out_are_read_as_shell(command: str) -> None:
    inner = [c for c in parse(command).cmds if c.depth > 0]
    assert [c.argv for c in inner] == [("rm", "-rf", "src")]
    assert inner[0].text == command


CRASHERS = "\n".join(
    [
        "import random, sys",
        "from hookd.guards.shell import parse",
        "rng = random.Random(7)",
        "for i in range(3000):",
        "    parse.cache_clear()",
        "    astral = chr(rng.randrange(0x10000, 0x110000))",
        "    parse(rng.choice(['{', 'echo {', 'sudo {', '{ ', 'x{y']) + astral + rng.choice(['', '}', ' rm', astral]))",
        "print('answered')",
    ]
)


def test_a_brace_before_a_four_byte_character_does_not_crash_the_process() -> None:
    """The grammar's parser reads past its tables on `{` then a character outside the BMP; it runs in a
    child here, so a crash fails this test instead of ending the test run."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", CRASHERS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "answered" in done.stdout, done.stderr[-500:]
