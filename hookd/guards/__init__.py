"""The guard packs hookd ships (files, git, infra, secrets, publish): pure rules
that read a tool call with a real shell parser and name what it would destroy.

Pure: no event loop, no processes, no files; everything about the call comes in ``model.Context``.
The daemon's ``builtin`` hook type calls ``check.check``; docs/guards-rules.md lists every rule.

The modules: ``check`` (``check``), ``model`` (``DEFAULT``, ``PACKS``, ``Context``, ``Finding``, ``OptionsError``),
``options`` (``policy``), ``policy`` (``Policy``) and ``catalogue`` (``rules``). The package itself imports
none of them: a daemon or a command without a built-in hook never loads the packs and their parser.
"""
