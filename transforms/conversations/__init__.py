"""conversations family: one module per kind; importing this package registers them."""
from . import chat_transcript  # noqa: F401
from . import email_thread  # noqa: F401
from . import team_chat  # noqa: F401
from . import meeting_transcript  # noqa: F401
