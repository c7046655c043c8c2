"""tables family: one module per kind; importing this package registers them."""
from . import rate_sheet  # noqa: F401
from . import case_ledger  # noqa: F401
from . import ticket_export  # noqa: F401
