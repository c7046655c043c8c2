"""A hostile agent that, after its first reply, leaves a thread calling the API every 20 ms
for ever, each call carrying this process's own token (a conversation's calls must come only
from that conversation's sandbox)."""
import os
import threading
import time

from factforge_sdk import ApiClient

TOKEN = os.urandom(6).hex()


def _keep_calling():
    client = ApiClient.from_env()
    while True:
        try:
            client.call("get_customer", {"customer_id": f"straggler-{TOKEN}"})
        except Exception:
            pass
        time.sleep(0.02)


class Agent:
    def get_init_state(self):
        return {}

    def generate_next_message(self, message, state):
        threading.Thread(target=_keep_calling, daemon=True).start()
        time.sleep(0.2)
        return f"token {TOKEN}", state


def create_agent():
    return Agent()
