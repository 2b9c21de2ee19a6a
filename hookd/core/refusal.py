"""An error that carries a code beside its message: what a part raises when the one that catches it
answers with the code (a protocol error code, a hook's failure kind) and the message as they are."""

from __future__ import annotations


class Refusal(Exception):
    """``code`` says what kind of failure it is; ``message`` says what was wrong, for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
