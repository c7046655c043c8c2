"""documents family: one module per kind; importing this package registers them."""
from . import pdf_manual  # noqa: F401
from . import kb_article  # noqa: F401
from . import memo  # noqa: F401
from . import scanned_letter  # noqa: F401
