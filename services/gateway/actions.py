"""Actions checked strictly at the edge (docs/api.md, "Actions"): per game,
a union of one pydantic model per action type, discriminated by ``type``,
built from the game's action table (:attr:`shared.engine.ActionRule.fields`).
An action with an unknown key, a missing key or a value of another type is
refused before it reaches the worker: 422 ``bad_action`` with ``errors``
naming the fields.  The same models make the per-game action schemas of
the OpenAPI description.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from services.gateway.errors import ApiError
from shared.engine import Game


def _model(game: str, kind: str, fields: dict[str, Any]) -> type[BaseModel]:
    spec: dict[str, Any] = {"type": (Literal[kind], ...)}
    for name, kind_of in fields.items():
        if isinstance(kind_of, tuple):  # (type, None): may be left out
            spec[name] = (kind_of[0] | None, None)
        else:
            spec[name] = (kind_of, ...)
    model_name = f"{game}_{kind}".title().replace("_", "")
    return create_model(model_name, __config__=ConfigDict(extra="forbid", strict=True,
                                                          title=f"{game}: {kind}"), **spec)


_ADAPTERS: dict[str, TypeAdapter | None] = {}


def adapter(game: Game) -> TypeAdapter | None:
    """The strict validator of ``game``'s actions, or None when the game
    declares no action table (then the worker alone judges actions)."""
    if game.name in _ADAPTERS:
        return _ADAPTERS[game.name]
    actions = getattr(game, "actions", None)
    ta = None
    if actions:
        models = [_model(game.name, kind, dict(rule.fields)) for kind, rule in actions.items()]
        union: Any = models[0] if len(models) == 1 else Annotated[Union[tuple(models)], Field(discriminator="type")]  # noqa: UP007
        ta = TypeAdapter(union)
    _ADAPTERS[game.name] = ta
    return ta


def check(game: Game, action: Any) -> None:
    """Raise 422 ``bad_action`` unless ``action`` has the shape of one of
    ``game``'s action types (``errors``: each wrong field's location)."""
    ta = adapter(game)
    if ta is None:
        return
    try:
        ta.validate_python(action)
    except ValidationError as exc:
        errors = [{"loc": ["body", "action", *map(str, e["loc"])], "msg": e["msg"], "type": e["type"]}
                  for e in exc.errors()]
        where = ", ".join(".".join(x["loc"][2:]) or "action" for x in errors[:3])
        raise ApiError(422, "bad_action", f"not an action of {game.title}: {where}",
                       extra={"errors": errors}) from None


def schema(game: Game) -> dict[str, Any] | None:
    """JSON Schema of ``game``'s actions (for the OpenAPI description)."""
    ta = adapter(game)
    return None if ta is None else ta.json_schema(ref_template="#/components/schemas/{model}")
