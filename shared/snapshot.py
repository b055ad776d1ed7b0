"""A msgpack-ready codec for game states (docs/architecture.md, "Keys":
``tapis:{p<N>}:<T>:snap``).

Game states are plain dataclasses holding ints, strs, lists, tuples, sets,
dicts, enums and other dataclasses.  :func:`dump` turns such a value into
msgpack-native data, tagging what msgpack cannot express; :func:`load`
rebuilds it exactly.  Only classes defined in modules under ``shared.``
are rebuilt, so a snapshot can never name arbitrary code.

Tags (a one-key map whose key starts with ``~``):
``{"~dc": [qualified name, [field values...]]}`` dataclass,
``{"~en": [qualified name, value]}`` enum member, ``{"~t": [...]}`` tuple,
``{"~s": [...]}`` set, ``{"~fs": [...]}`` frozenset, ``{"~d": [[k, v]...]}``
dict with non-str keys or a str key starting with ``~``.
"""

from __future__ import annotations

import dataclasses
import importlib
from enum import Enum
from typing import Any

import msgpack

_FIELDS: dict[type, tuple[str, ...]] = {}
_CLASSES: dict[str, type] = {}


class SnapshotError(ValueError):
    """Raised on a value that cannot be dumped or a blob that cannot be loaded."""


def _qualname(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def allow(*classes: type) -> None:
    """Let :func:`load` rebuild these classes even outside ``shared.``
    (tests and plug-in games)."""
    for cls in classes:
        _CLASSES[_qualname(cls)] = cls


def _resolve(name: str) -> type:
    cls = _CLASSES.get(name)
    if cls is not None:
        return cls
    module, _, qual = name.partition(":")
    if not module.startswith("shared."):
        raise SnapshotError(f"refusing to load class outside shared: {name}")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise SnapshotError(f"not a class: {name}")
    _CLASSES[name] = obj
    return obj


def dump(value: Any) -> Any:
    """Turn a state into msgpack-native data (see module doc).

    Raises :class:`SnapshotError` for a type it does not know.
    """
    t = type(value)
    if value is None or t in (int, str, bool, float, bytes):
        return value
    if t is list:
        return [dump(v) for v in value]
    if t is dict:
        if all(type(k) is str and not k.startswith("~") for k in value):
            return {k: dump(v) for k, v in value.items()}
        return {"~d": [[dump(k), dump(v)] for k, v in value.items()]}
    if t is tuple:
        return {"~t": [dump(v) for v in value]}
    if isinstance(value, Enum):
        return {"~en": [_qualname(t), value.value]}
    if dataclasses.is_dataclass(value):
        names = _FIELDS.get(t)
        if names is None:
            names = tuple(f.name for f in dataclasses.fields(value))
            _FIELDS[t] = names
        return {"~dc": [_qualname(t), [dump(getattr(value, n)) for n in names]]}
    if t is set:
        return {"~s": [dump(v) for v in value]}
    if t is frozenset:
        return {"~fs": [dump(v) for v in value]}
    if isinstance(value, tuple):  # NamedTuple
        return {"~dc": [_qualname(t), [dump(v) for v in value]]}
    raise SnapshotError(f"cannot snapshot a {t.__name__}")


def load(data: Any) -> Any:
    """Inverse of :func:`dump`.  Raises :class:`SnapshotError` on bad data."""
    t = type(data)
    if t is list:
        return [load(v) for v in data]
    if t is dict:
        if len(data) == 1:
            (key, inner), = data.items()
            if type(key) is str and key.startswith("~"):
                return _load_tagged(key, inner)
        return {k: load(v) for k, v in data.items()}
    return data


def _load_tagged(tag: str, inner: Any) -> Any:
    if tag == "~t":
        return tuple(load(v) for v in inner)
    if tag == "~s":
        return {load(v) for v in inner}
    if tag == "~fs":
        return frozenset(load(v) for v in inner)
    if tag == "~d":
        return {load(k): load(v) for k, v in inner}
    if tag == "~en":
        return _resolve(inner[0])(inner[1])
    if tag == "~dc":
        cls = _resolve(inner[0])
        values = [load(v) for v in inner[1]]
        if dataclasses.is_dataclass(cls):
            obj = object.__new__(cls)
            names = _FIELDS.get(cls) or tuple(f.name for f in dataclasses.fields(cls))
            _FIELDS[cls] = names
            for n, v in zip(names, values, strict=True):
                object.__setattr__(obj, n, v)
            return obj
        return cls(*values)
    raise SnapshotError(f"unknown tag {tag}")


def pack(version: int, state: Any, *, dumper=dump) -> bytes:
    """Snapshot blob: msgpack of ``{"v": version, "s": dumped state}``."""
    return msgpack.packb({"v": version, "s": dumper(state)}, use_bin_type=True)


def unpack(blob: bytes, *, loader=load) -> tuple[int, Any]:
    """Inverse of :func:`pack`: ``(version, state)``.

    Raises :class:`SnapshotError` when the blob is unreadable.
    """
    try:
        obj = msgpack.unpackb(blob, raw=False, strict_map_key=False)
        return int(obj["v"]), loader(obj["s"])
    except SnapshotError:
        raise
    except Exception as exc:  # noqa: BLE001 -- msgpack or the game's loader may raise anything; all mean unreadable
        raise SnapshotError(f"unreadable snapshot: {exc.__class__.__name__}") from None
