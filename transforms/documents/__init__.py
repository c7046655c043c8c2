"""documents family: one module per kind; importing this package registers them."""
from . import pdf_manual  # noqa: F401
