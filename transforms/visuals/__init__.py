"""visuals family: one module per kind; importing this package registers them."""
from . import web_screenshot  # noqa: F401
from . import app_screenshot  # noqa: F401
from . import flowchart  # noqa: F401
from . import slide_deck  # noqa: F401
from . import chart  # noqa: F401
