"""Every invoke gets exactly one answer the daemon accepts, whatever the handler returned or raised."""

from __future__ import annotations

import asyncio
import pathlib
import sys

import msgspec
from hookd_client import messages as m
from hookd_client.answers import MAX_DEPTH, encode_answer
from hookd_client.callbacks import Book, callback, label, run_async, run_sync
from hookd_client.framing import HEADER_SIZE, reply_codec
from hypothesis import given, settings
from hypothesis import strategies as st

POINT = "tool.approval.pre"
CODEC = reply_codec()
# What the daemon decodes an answer with: the same schema, so "decodes here" means "accepted there".
DAEMON_SIDE = msgspec.msgpack.Decoder(m.InvokeResult)


def invoke(cb: int, kind: str = "decision") -> m.Invoke:
    return m.Invoke(call=11, cb=cb, point=POINT, hook="guard", kind=kind, payload={}, session="s1")  # type: ignore[arg-type]


def answer(value: object, kind: str = "decision", max_frame: int | None = 1 << 20) -> m.InvokeResult:
    """Run a handler returning ``value`` through the sync client's path and decode what goes on the wire."""
    book = Book()
    entry = book.entry_for(callback(POINT, lambda p: value, name="guard"))
    served = book.served[entry.spec.cb]
    inv = invoke(entry.spec.cb, kind)
    data = encode_answer(CODEC.encode, run_sync(served, inv), label(inv, served), max_frame)
    return DAEMON_SIDE.decode(data[HEADER_SIZE:])


def cyclic() -> list:
    loop: list = []
    loop.append(loop)
    return loop


def nested(depth: int) -> object:
    value: object = "leaf"
    for _ in range(depth):
        value = [value]
    return value


class Hostile:
    def __str__(self) -> str:
        raise RuntimeError("no")


class Trap(dict):
    """A mapping that fails every way of looking inside it."""

    def items(self):  # type: ignore[override]
        raise RuntimeError("items")

    def values(self):  # type: ignore[override]
        raise RuntimeError("values")

    def __len__(self) -> int:
        raise RuntimeError("len")


hostile_leaf = st.one_of(
    st.builds(pathlib.PurePosixPath, st.text(max_size=5)),
    st.integers(min_value=2**64, max_value=2**80),
    st.integers(max_value=-(2**63) - 1, min_value=-(2**80)),
    st.text(max_size=3).map(lambda t: t + "\udc80"),
    st.builds(object),
    st.builds(Hostile),
    st.builds(lambda: Trap(a=pathlib.Path("x"))),
    st.just(cyclic()),
    st.just(nested(MAX_DEPTH + 5)),
    st.binary(max_size=4),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.none(),
)
values = st.recursive(
    hostile_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.dictionaries(st.integers(), inner, max_size=2),
    ),
    max_leaves=8,
)
answers = st.one_of(
    values,
    st.builds(lambda v: {"decision": "deny", "modifiedInput": {"v": v}}, values),
    st.builds(lambda v: {"decision": "allow", "modifiedOutput": v}, values),
    st.builds(lambda v: {"decision": "ask", "reason": v}, values),
    st.builds(lambda v: m.Decision("deny", reason=v), values),  # a Struct is not validated when built
    st.builds(lambda v: m.Decision(v), st.text(max_size=8)),
    st.builds(lambda v: m.Decision("deny", modified_input=v), values),
    st.builds(lambda v: {"decision": v}, values),
)


@settings(max_examples=400, deadline=None)
@given(answers, st.sampled_from(["decision", "observer"]))
def test_any_return_value_gives_one_answer_the_daemon_accepts(value, kind):
    result = answer(value, kind)
    assert result.call == 11
    if result.error is None:
        assert kind == "observer" or result.decision is None or isinstance(result.decision, m.Decision)
    else:
        # Degraded (names the handler) or raised by the conversion (``Type: message``).
        assert result.decision is None
        assert "'guard" in result.error or result.error.split(":")[0].isidentifier()


def test_a_path_names_its_type_the_handler_and_where_it_sits():
    result = answer({"decision": "allow", "modifiedInput": {"file": pathlib.Path("/etc/passwd")}})
    assert result.decision is None
    assert "'guard" in result.error and "PosixPath" in result.error and "modifiedInput.file" in result.error


def test_each_kind_of_unencodable_value_is_named():
    assert "64 bits" in answer({"reason": "x", "modifiedInput": {"n": 2**70}}).error
    assert "surrogate" in answer({"reason": "bad \udc80"}).error
    assert "contains itself" in answer(m.Decision("deny", modified_output=cyclic())).error or "nested deeper" in (
        answer(m.Decision("deny", modified_output=cyclic())).error
    )
    assert f"nested deeper than {MAX_DEPTH}" in answer({"modifiedInput": {"a": nested(MAX_DEPTH + 1)}}).error
    assert "invalid decision" in answer(m.Decision("block")).error  # type: ignore[arg-type]
    assert "frame limit" in answer({"reason": "x" * 5000}, max_frame=4096).error


def test_what_a_handler_raises_is_its_error_text_even_systemexit_and_a_broken_str():
    book = Book()
    for fn, expect in ((lambda p: sys.exit(3), "SystemExit: 3"), (lambda p: (_ for _ in ()).throw(ValueError(Hostile())), "ValueError")):
        entry = book.entry_for(callback(POINT, fn))
        result = run_sync(book.served[entry.spec.cb], invoke(entry.spec.cb))
        assert result.decision is None and result.error.startswith(expect)


def test_the_async_path_degrades_the_same_way():
    book = Book()

    async def handler(p: dict) -> dict:
        return {"decision": "deny", "modifiedInput": {"p": pathlib.Path("x")}}

    entry = book.entry_for(callback(POINT, handler, name="guard"))
    served = book.served[entry.spec.cb]
    inv = invoke(entry.spec.cb)
    data = encode_answer(CODEC.encode, asyncio.run(run_async(served, inv)), label(inv, served))
    result = DAEMON_SIDE.decode(data[HEADER_SIZE:])
    assert result.decision is None and "PosixPath" in result.error and "guard" in result.error


def test_a_handler_whose_name_cannot_be_read_still_gets_its_answer_sent():
    class Nameless:
        armed = False

        def __getattr__(self, name: str) -> object:
            if self.armed:  # only once registered: registration itself looks at the callable
                raise RuntimeError(name)
            raise AttributeError(name)

        def __call__(self, payload: dict) -> dict:
            return m.Decision("deny", modified_input=Trap(a=pathlib.Path("x")))

    book = Book()
    handler = Nameless()
    entry = book.entry_for(callback(POINT, handler, name="guard"))
    handler.armed = True
    served = book.served[entry.spec.cb]
    inv = invoke(entry.spec.cb)
    data = encode_answer(CODEC.encode, run_sync(served, inv), label(inv, served))
    result = DAEMON_SIDE.decode(data[HEADER_SIZE:])
    assert result.call == 11 and result.decision is None and "guard" in result.error
