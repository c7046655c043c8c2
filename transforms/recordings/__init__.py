"""recordings family: one module per kind; importing this package registers them."""
from . import call_audio  # noqa: F401
from . import voicemail  # noqa: F401
from . import screen_recording  # noqa: F401
