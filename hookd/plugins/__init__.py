"""Plugins (seed 004): Python modules whose functions return hooks that mutate an output.

This package's ``__init__`` stays import-free: the plugin host imports
``hookd.plugins.host`` and ``hookd.plugins.events`` inside a plugin's own
virtualenv, where nothing but the standard library and hookd_client exists.
See docs/plugins.md.
"""
