"""The model menu: model tiers with credit rates, the models a built agent may call (each with
the constraints the model gateway enforces) and per-conversation budgets by domain and
budget tier. One versioned TOML file per menu version in `outputs/packs/menus/`; a task spec
names the file and pins its sha256, so a changed menu fails the build instead of silently
changing a task.

Pure pydantic: the evaluator imports this module (no Dagster, no media).
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from facts.errors import FactforgeError
from facts.hashing import sha256_hex
from facts.strict import StrictModel

from .spec import read_toml, validation_error

MENU_SCHEMA_VERSION = "1.0"
MENUS_DIR = Path(__file__).resolve().parent / "menus"
BUDGET_TIERS = ("easy", "medium", "hard")


class Tier(StrictModel):
    input_per_mtok: float = Field(ge=0)   # credits per million prompt tokens
    output_per_mtok: float = Field(ge=0)  # credits per million completion tokens


class Model(StrictModel):
    name: str                      # what an agent asks the gateway for
    litellm_model: str             # what the gateway calls through litellm
    tier: str
    context_window: int = Field(gt=0)
    max_output_tokens: int = Field(gt=0)
    temperature: tuple[float, float] = (0.0, 1.0)  # allowed range, inclusive
    tools: bool = True
    max_calls_per_conversation: int = Field(gt=0)


class Budget(StrictModel):
    easy: float = Field(gt=0)
    medium: float = Field(gt=0)
    hard: float = Field(gt=0)


class Menu(StrictModel):
    schema_version: Literal["1.0"] = MENU_SCHEMA_VERSION
    name: str
    version: int = Field(ge=1)
    description: str = ""
    tiers: dict[str, Tier]
    models: list[Model]
    budgets: dict[str, Budget]

    @model_validator(mode="after")
    def _coherent(self) -> "Menu":
        names = [m.name for m in self.models]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate model names: {', '.join(dup)}")
        for m in self.models:
            if m.tier not in self.tiers:
                raise ValueError(f"model {m.name}: unknown tier {m.tier!r} (tiers: {', '.join(self.tiers)})")
            lo, hi = m.temperature
            if lo > hi:
                raise ValueError(f"model {m.name}: temperature range {lo}..{hi} is empty")
        return self

    def model(self, name: str) -> Model:
        for m in self.models:
            if m.name == name:
                return m
        raise KeyError(name)

    def credits(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        """Credits of one call: (prompt x input rate + completion x output rate) / 1e6."""
        t = self.tiers[self.model(model).tier]
        return (prompt_tokens * t.input_per_mtok + completion_tokens * t.output_per_mtok) / 1e6

    def budget(self, domain: str, tiers: list[str]) -> dict[str, float]:
        """Credits per conversation for each budget tier in force."""
        b = self.budgets[domain]
        return {t: getattr(b, t) for t in tiers}


class LoadedMenu(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    menu: Menu
    path: Path
    sha256: str
    raw: bytes


def menu_path(name: str, menus_dir: Optional[Path] = None) -> Path:
    return Path(menus_dir or MENUS_DIR) / f"{name}.toml"


def load_menu(name: str, menus_dir: Optional[Path] = None) -> LoadedMenu:
    path = menu_path(name, menus_dir)
    if not path.is_file():
        avail = ", ".join(sorted(p.stem for p in Path(menus_dir or MENUS_DIR).glob("*.toml"))) or "none"
        raise FactforgeError(f"unknown model menu {name!r}; available: {avail}")
    data, text = read_toml(path)
    try:
        menu = Menu.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, path, text) from None
    if path.stem != f"{menu.name}-{menu.version}":
        raise FactforgeError(f"menu file name must be <name>-<version> ({menu.name}-{menu.version})", path)
    raw = path.read_bytes()
    return LoadedMenu(menu=menu, path=path, sha256=sha256_hex(raw), raw=raw)
