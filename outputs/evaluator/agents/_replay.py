"""What the oracle and the naive agent share: replay a list of calls once, through the
reference client (so the two differ in policy only, never in how they cope with the
deployment's defects), then keep saying the reply the evaluator composed."""
from __future__ import annotations


def reference_client(reference: dict):
    """The kit SDK's `ApiClient` wrapped in the reference client (`ffapi`, mounted for the
    reference agents only), given the deployment the evaluator passed."""
    from factforge_sdk import ApiClient  # noqa: PLC0415  (the kit's SDK, inside the sandbox)
    from ffapi.refclient import ReferenceClient  # noqa: PLC0415  (the kit's reference client, inside the sandbox)

    sdk = ApiClient.from_env()
    if {a["name"] for a in reference.get("actions", [])} - set(sdk.ops):
        sdk.refresh()   # a capability switched on for this run: the server's contract names it
    return ReferenceClient(sdk, sdk.spec, deployment=reference.get("deployment"))


class ReplayAgent:
    def __init__(self, reference: dict):
        self.actions = list(reference.get("actions", []))
        self.reply = str(reference.get("reply", ""))
        self.client = reference_client(reference) if self.actions else None

    def get_init_state(self) -> dict:
        return {"done": False, "calls": 0}

    def generate_next_message(self, message: str, state: dict) -> tuple[str, dict]:
        state = dict(state)
        if not state["done"]:
            for a in self.actions:
                self.client.call(a["name"], dict(a["arguments"]))
            state["done"], state["calls"] = True, len(self.actions)
        return self.reply, state
