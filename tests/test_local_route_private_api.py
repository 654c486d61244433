"""HA's private default-agent pieces the local route relies on (default_agent.py).

If Home Assistant renames or reshapes them, this fails loudly here rather than the
local route failing quietly in a user's home.
"""

import inspect

from homeassistant.components.conversation.default_agent import DefaultAgent


def test_the_default_agent_still_has_what_the_local_route_uses() -> None:
    """The names and leading parameters of every private method we call or wrap."""
    expected = {
        "async_recognize_sentence_trigger": ["self", "user_input"],
        "_handle_trigger_result": ["self", "result", "user_input", "chat_log"],
        "async_recognize_intent": ["self", "user_input"],
        "_async_gazetteer_fallback": [
            "self",
            "hassil_result",
            "user_input",
            "chat_log",
        ],
        "_async_process_intent_result": ["self", "result", "user_input", "chat_log"],
        # Our understanding runs HA's intent through it, with every argument.
        "_async_execute_intent": [
            "self",
            "intent_name",
            "slots",
            "speech_slots",
            "response_key",
            "user_input",
            "chat_log",
            "lang_intents",
        ],
        "async_get_or_load_intents": ["self", "language"],
        # The loose guard reads the gazetteer's frames before they run.
        "_async_process_frames": ["self", "matcher", "frames"],
    }
    found = {
        name: list(inspect.signature(getattr(DefaultAgent, name)).parameters)[
            : len(params)
        ]
        for name, params in expected.items()
    }
    assert found == expected
    for name in expected:
        assert inspect.iscoroutinefunction(getattr(DefaultAgent, name)), name


def test_language_intents_still_have_their_responses() -> None:
    """Our understanding picks HA's words from `LanguageIntents.intent_responses`."""
    from homeassistant.components.conversation.default_agent import LanguageIntents  # noqa: PLC0415

    assert "intent_responses" in LanguageIntents.__dataclass_fields__


def test_gazetteer_frames_still_tell_the_words_they_left_out() -> None:
    """The loose guard reads `FrameCandidate.unexplained_tokens` (HA's dependency)."""
    from gazetteer_matcher.models import FrameCandidate  # noqa: PLC0415

    assert isinstance(FrameCandidate.unexplained_tokens, property)
    # Its indexes are those of the words as the gazetteer splits them.
    from gazetteer_matcher.config import normalize_tokens  # noqa: PLC0415

    assert [t.text for t in normalize_tokens("Don't turn ON the lamp")] == [
        "don't",
        "turn",
        "on",
        "the",
        "lamp",
    ]
