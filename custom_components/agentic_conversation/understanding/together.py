"""HA's responses to one command run device by device, as one response."""

from collections.abc import Sequence

from homeassistant.helpers import intent

from ..tools.entities import EntityInfo

_ERROR = intent.IntentResponseType.ERROR


def together(
    responses: Sequence[intent.IntentResponse], entities: Sequence[EntityInfo]
) -> intent.IntentResponse:
    """HA's words for the last one done, every device done and every one not.

    A device whose run failed is named in the `failed` results (HA's error names
    none), so what was done is told with what was not; none done: the first error,
    naming them all.
    """
    failed = [
        e for e, r in zip(entities, responses, strict=True) if r.response_type is _ERROR
    ]
    done = [r for r in responses if r.response_type is not _ERROR]
    chosen = done[-1] if done else responses[0]
    if failed:
        chosen.async_set_results(
            success_results=[target for r in done for target in r.success_results],
            failed_results=[
                intent.IntentResponseTarget(
                    name=e.name,
                    type=intent.IntentResponseTargetType.ENTITY,
                    id=e.entity_id,
                )
                for e in failed
            ],
        )
    return chosen
