"""A PIN is an answer: digits in a request are neither the right PIN nor a wrong one.

An utterance longer than any answer (over 40 words) is read for a no and never as the
PIN: with the right PIN in it, the user must not hear "That PIN is not right".
"""

from datetime import timedelta

from homeassistant.core import Context
from homeassistant.util import dt as dt_util

from custom_components.agentic_conversation.safety.confirmation import (
    Asker,
    HeldAction,
    Pending,
)
from custom_components.agentic_conversation.turn.settle import Verdict, judge

PIN = "4711"
# Number words ("four seven one one") are loaded when a question is asked: the
# conversation tests (tests/test_confirmation.py) hear them; digits suffice here.
FILLER = " ".join(["and then please also"] * 10)  # 40 words


def _pending() -> Pending:
    return Pending(
        agent_id="conversation.agent",
        asker=Asker(None, None, None),
        actions=[HeldAction("HassUnlock", {"name": "Front door"}, ())],
        context=Context(),
        needs_pin=True,
        expires=dt_util.utcnow() + timedelta(minutes=1),
    )


def test_a_short_answer_is_judged_by_its_pin() -> None:
    """The PIN alone runs; other digits are a wrong PIN; a no declines."""
    assert judge(_pending(), PIN, "en", PIN).verdict is Verdict.RUN
    assert judge(_pending(), "4 7 1 1", "en", PIN).verdict is Verdict.RUN
    wrong = judge(_pending(), "1 2 3 4", "en", PIN)
    assert (wrong.verdict, wrong.reply) == (Verdict.DECLINE, "confirmation_wrong_pin")
    no = judge(_pending(), f"no {PIN}", "en", PIN)
    assert (no.verdict, no.reply) == (Verdict.DECLINE, "confirmation_declined")


def test_digits_in_a_request_are_no_pin() -> None:
    """The right PIN, or other digits, inside a long request: a new request."""
    for digits in (PIN, "1234", "4 7 1 1"):
        said = judge(_pending(), f"{FILLER} set the alarm for {digits}", "en", PIN)
        assert said.verdict is Verdict.DROP, digits
    # A no in it still declines.
    said = judge(_pending(), f"no, {FILLER} {PIN}", "en", PIN)
    assert (said.verdict, said.reply) == (Verdict.DECLINE, "confirmation_declined")
