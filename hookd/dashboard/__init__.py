"""`hookd dashboard`: a local web page that shows what hooks do and answers approvals, a client of the daemon.

A separate process, a client of the daemon like any other (hookd_client): it subscribes to the
event stream (with history), asks for status and stats, and is an approver. It serves one page
of static HTML and vanilla JavaScript on 127.0.0.1, live through server-sent events, behind a
per-run secret (a token in the URL it prints, then a cookie), Host and Origin checks, and size
and time limits. docs/dashboard.md.
"""
