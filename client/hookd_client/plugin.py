"""What a hookd plugin (seed 004) imports: ``Block``.

A plugin handler raises ``Block(reason)`` to block a blockable event; the
decision is then ``deny`` with that reason. Any other exception is an error in
the plugin, reported as such and never taken for a block.
"""

from __future__ import annotations


class Block(Exception):  # the seed's word: a block is a verdict, not an error
    """Raise from a plugin handler to block the event: decision deny, with ``reason``."""

    def __init__(self, reason: str = "blocked by a plugin") -> None:
        super().__init__(reason)
        self.reason = reason
