"""hookd's deadline is strictly below the agent's timeout, by a margin that leaves the answer time to arrive."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookd.agents import deadlines


@given(st.integers(deadlines.MIN_TIMEOUT, deadlines.MAX_TIMEOUT))
def test_every_accepted_timeout_leaves_at_least_a_second_and_a_margin(timeout: int) -> None:
    assert deadlines.check(timeout, "the agent") == timeout
    deadline = deadlines.deadline(timeout)
    assert 1 <= deadline < timeout
    assert timeout - deadline >= (1 if timeout <= 3 else 2)
    assert float(deadlines.text(deadline)) == deadline  # written as it is read back


@given(st.floats(0.1, 1.99))
def test_the_shortest_budgets_still_get_a_deadline_below_them(budget: float) -> None:
    assert 0 < deadlines.deadline(budget) < budget


@pytest.mark.parametrize(("timeout", "deadline"), [(600, 588), (30, 28), (3600, 3528), (3, 2), (2, 1), (4, 2), (1000, 980)])
def test_the_margin_is_two_seconds_or_two_percent(timeout: int, deadline: int) -> None:
    assert deadlines.deadline(timeout) == deadline
    assert deadlines.text(deadlines.deadline(timeout)) == str(deadline)


def test_claude_code_s_session_end_budget() -> None:
    assert deadlines.text(deadlines.deadline(deadlines.CLAUDE_SESSION_END_BUDGET)) == "1"


@pytest.mark.parametrize("timeout", [-1, 0, 1, deadlines.MAX_TIMEOUT + 1])
def test_what_cannot_be_honoured_is_refused_with_the_reason(timeout: int) -> None:
    with pytest.raises(deadlines.TimeoutRefused, match=rf"^--timeout {timeout}: .* use at (least|most) \d+$"):
        deadlines.check(timeout, "Codex")
