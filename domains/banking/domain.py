"""The banking pack's code: seed, check, API (api.py) and held-out tests (scenarios.py)."""
from .seed import DOMAIN  # noqa: F401
