"""Claude Code's HTTP hooks, answered by the daemon on 127.0.0.1.

Claude Code POSTs a hook input and reads the hook output from the response
body, so a hook event costs one request on a kept-alive connection instead of
a process. Only the user can call it: a per-user secret (a 0600 file in the
state directory) sent as a bearer token and compared in constant time, the
Host header checked, any browser request (an Origin header) refused, and
bounds on header size, body size and the time a request may take to arrive.
The HTTP parsing is h11's. docs/bridges.md has the settings it answers.
"""
