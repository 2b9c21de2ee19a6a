"""The hooks.yaml `hookd init` writes: commented, with hookd's own guards first (enforced, or tried in
shadow mode), then a command guard that denies only what it means to, and an observer."""

_HEAD = r"""# hookd hook file. Check it with `hookd check`, edit it safely with `hookd edit`.
# The format: `hookd help hooks`. Where files live, drop-ins (hooks.d/*.yaml): `hookd help files`.
# An edit takes effect within a second; a file that does not validate never half-loads.
hooks:
  # hookd's own guards, the first to turn on: they stop destructive and secret-leaking tool calls
  # (a recursive delete outside the build dirs, git reset --hard, a force push to main, terraform
  # destroy, cat .env | curl, npm publish, ...) from every agent, inside the daemon: no process per
  # call. Each refusal names its rule (git.reset-hard); `hookd help guards` lists them.
  - name: guards
    point: tool.approval.pre
    builtin: default                  # all five packs: files, git, infra, secrets, publish
"""

_SHADOW = r"""    # Shadow mode: the guards run on every call and nothing is blocked; `hookd tail` and `hookd stats`
    # show what they would have denied. Delete this line to enforce them.
    shadow: true
"""

_ENFORCED = r"""    # To try them first without blocking anything, add `shadow: true` (`hookd init --shadow` writes it).
"""

_OPTIONS = r"""    on_error: deny                    # a guard that fails denies the call: it fails closed
    enabled: true
    # Your policy: a rule allowed by name, rules that ask a person instead of denying, more branches
    # that must never be force-pushed (main and master are), paths never to delete.
    # options:
    #   allow: [git.branch-force-delete]
    #   ask: [git.*]
    #   protected_branches: [main, master, release]
    #   protected_paths: [~/notes]

"""

_REST = r"""  # A guard of your own, as a command: refuses `rm -rf /` (or -fr), in a shell command, from any
  # agent. The guards above refuse it already; this one shows how a hook you write is made.
  - name: no-rm-root
    description: refuse rm -rf / (and rm -fr /)
    point: tool.approval.pre          # before a tool runs: allow, deny or ask (`hookd help points`)
    type: decision
    # `match` picks the calls this hook sees: every entry must match (a regular expression on a
    # payload field). A call that does not match starts no process. Try it (with the hooks of the
    # project you are in, once its file is trusted; -p DIR: another project's; --global: none):
    #   hookd explain tool.approval.pre --payload "$(hookd points --example tool.approval.pre)"
    match:
      args.command: '(^|[;&|]\s*)rm\s+-(rf|fr)\s+/(\s|$)'
    # A decision hook answers on stdout with JSON; nothing at all abstains. Exit 0:
    # any other exit is a hook error (then on_error applies).
    command: /bin/sh
    args:
      - -c
      - >-
        echo '{"decision": "deny", "reason": "rm -rf / refused by the no-rm-root hook"}'
    timeout: 5                        # seconds
    on_error: deny                    # if this guard fails on a matching call, deny it: a guard fails closed
    enabled: true

  # An observer: told about every tool that ran, answers nothing. Turn it on with
  # `enabled: true` or `hookd enable log-tools`; `hookd tail` shows the calls too.
  - name: log-tools
    point: tool.execute.after
    type: observer
    command: /bin/sh
    args:
      - -c
      - |
        log="${XDG_STATE_HOME:-$HOME/.local/state}/hookd-tools.log"
        { cat; echo; } >> "$log"
    enabled: false
"""


def template(shadow: bool = False) -> str:
    """The file `hookd init` writes; ``shadow``: its built-in guards tried out, never applied."""
    return _HEAD + (_SHADOW if shadow else _ENFORCED) + _OPTIONS + _REST


TEMPLATE = template()
