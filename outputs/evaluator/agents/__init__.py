"""The reference agents, shipped: `oracle`, `naive` and `null`. Each is an agent module under
the kit's agent contract (`create_agent()`, `get_init_state()`,
`generate_next_message(message, state)`), standard library only, so it runs in the same
sandbox and over the same HTTP API as a built agent.

A reference agent gets what it replays from the evaluator, never from the sealed part on
disk: `create_agent(reference)` receives the test's actions and its reply text (composed by
the evaluator under the task's phrasing rules) through the runner's protocol.

- `oracle`: replays the gold actions through the API with the reference client (which
  copes with every defect kind of a deployment) on the first customer message, and says
  every `communicate_info` value; scores 1.0 on every test.
- `naive`: does what the customer asks (the test's `naive_actions`) and applies no policy:
  it states no policy value. It passes exactly the tests where that is what the policy wants.
- `null`: does nothing and says nothing; scores 0.0 on every test.
"""
