#!/usr/bin/env bash
# A persistent decision hook in shell + jq: denies `rm -rf` commands, abstains otherwise.
# One jq process per request would cost a spawn each; `jq --unbuffered -c` runs once and
# maps every request line to an answer line, so the hook stays warm.
#
#   hooks:
#     - name: no-rm-rf
#       point: tool.approval.pre
#       type: decision
#       command: /path/to/examples/warm-hooks/guard.sh
#       mode: persistent
#       enabled: true
exec jq --unbuffered -c '
  {id: .id,
   decision: (if ((.payload.args.command // "") | test("rm\\s+-[a-zA-Z]*r[a-zA-Z]*f|rm\\s+-[a-zA-Z]*f[a-zA-Z]*r"))
              then {decision: "deny", reason: "recursive force delete is not allowed"}
              else null end)}'
