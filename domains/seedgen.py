"""The base a pack's seed generator builds on (`domains/<name>/seed.py`): the pack, its
policy values, a random stream named by the pack and the seed, the brand's id prefixes,
the world clock and a variant's price scaling."""
from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict

from facts.errors import FactforgeError

from .seedkit import iso


def price_scale_of(price_scale: float) -> float:
    """A variant's price scaling as a float; anything but a positive number is an error."""
    if isinstance(price_scale, bool) or not isinstance(price_scale, (int, float)) or price_scale <= 0:
        raise FactforgeError(f"price_scale must be a positive number, not {price_scale!r}")
    return float(price_scale)


class SeedGen:
    """What a seed generator starts from. The world clock must carry a UTC offset."""

    #: whether a random id may have a 0 right after its prefix
    id_leading_zero: bool = True

    def __init__(self, pack, seed: int, v: dict, price_scale: float = 1.0):
        self.pack, self.v, self.seed = pack, v, seed
        self.rng = random.Random(f"{pack.name}:{seed}")
        self.pre = pack.brand.id_prefixes
        self.now = pack.info.now
        if self.now.tzinfo is None:
            raise FactforgeError("domain.toml [domain] now needs a UTC offset", pack.path / "domain.toml")
        self.tz = self.now.tzinfo
        self.today = self.now.date()
        self.price_scale = price_scale
        self._ids: set[str] = set()
        self._serials: dict[str, int] = defaultdict(int)

    def prefix(self, entity: str, default: str) -> str:
        """The brand's id prefix of `entity`, else `default`."""
        return self.pre.get(entity, default)

    def serial(self, entity: str, base: int) -> str:
        """The next numbered id of `entity`: the brand's prefix of it and `base` + 1, + 2, ..."""
        self._serials[entity] += 1
        return f"{self.pre[entity]}{base + self._serials[entity]}"

    def new_id(self, entity: str, default: str, digits: int, chars: str = "0123456789") -> str:
        """A new id, unique in the database: the brand's prefix of `entity` (else `default`)
        and `digits` random characters of `chars`."""
        pre = self.prefix(entity, default)
        while True:
            i = pre + "".join(self.rng.choice(chars) for _ in range(digits))
            if i not in self._ids and (self.id_leading_zero or i[len(pre)] != "0"):
                self._ids.add(i)
                return i

    def ts(self, t: dt.datetime) -> str:
        """A timestamp in the world clock's offset, to the second."""
        return iso(t, self.tz)
