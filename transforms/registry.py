"""The kind registry, keyed by "family/kind". Fails loudly on duplicates and unknown names."""
from __future__ import annotations

import importlib

from facts.errors import FactforgeError

from .base import Transformer

FAMILIES = ("conversations", "documents", "tables", "visuals", "recordings")

_REGISTRY: dict[str, type[Transformer]] = {}
_loaded = False


class RegistrationError(RuntimeError):
    """A transformer class that cannot be registered: a programming error, raised at import."""


class DuplicateKindError(RegistrationError):
    pass


class UnknownFamilyError(RegistrationError):
    pass


class UnknownKindError(FactforgeError):
    pass


def register(cls: type[Transformer]) -> type[Transformer]:
    """Class decorator: `@register` on each Transformer subclass."""
    if cls.family not in FAMILIES:
        raise UnknownFamilyError(f"{cls.__name__}: unknown family {cls.family!r}; families: {', '.join(FAMILIES)}")
    key = cls.key()
    if key in _REGISTRY and _REGISTRY[key] is not cls:
        raise DuplicateKindError(f"kind {key!r} registered twice: {_REGISTRY[key].__module__} and {cls.__module__}")
    _REGISTRY[key] = cls
    return cls


def load_all() -> None:
    global _loaded
    if not _loaded:
        for fam in FAMILIES:
            importlib.import_module(f"transforms.{fam}")
        _loaded = True


def kinds() -> dict[str, type[Transformer]]:
    load_all()
    return dict(sorted(_REGISTRY.items()))


def get(key: str) -> Transformer:
    load_all()
    if key not in _REGISTRY:
        raise UnknownKindError(f"unknown artifact kind {key!r}; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[key]()
