"""The hooks.yaml `hookd init` writes: commented, with a working guard that denies only what it means to."""

TEMPLATE = r"""# hookd hook file. Check it with `hookd check`, edit it safely with `hookd edit`.
# The format: `hookd help hooks`. Where files live, drop-ins (hooks.d/*.yaml): `hookd help files`.
# An edit takes effect within a second; a file that does not validate never half-loads.
hooks:
  # A guard: refuses `rm -rf /` (or -fr), in a shell command, from any agent.
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
