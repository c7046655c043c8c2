"""A faithful validator of tau2-bench's `Task` (sierra-research/tau2-bench,
`src/tau2/data_model/tasks.py` and what it imports from `src/tau2/data_model/message.py` and
`audio_effects.py`), re-declared here field for field so exported tasks can be checked
without installing tau2.

Strictness is exactly tau2's: plain pydantic `BaseModel`s with pydantic's defaults (unknown
keys ignored, lax coercion), the same optional fields and defaults, the same literals and
enums, the same unions (`UserInstructions = StructuredUserInstructions | str`; `Message` =
system, assistant, user, tool or multi-tool message). Behaviour that does not affect
validation (string forms, comparison helpers, timestamp default factories, a `bytes`
encoder for audio content) is left out. `tau2.data_model.audio.AudioFormat` is not in the
indexed tau2 source; messages' `audio_format` is therefore accepted as any JSON object (no
task file in the tau2 data sets one).

`unknown_keys` adds the one check tau2 cannot make (its models ignore unknown keys): which
keys of an exported task are outside tau2's schema. A factforge export keeps everything
tau2 does not know under one key, `factforge`.
"""
from __future__ import annotations

from enum import Enum
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

SystemRole = Literal["system"]
UserRole = Literal["user"]
AssistantRole = Literal["assistant"]
ToolRole = Literal["tool"]
ToolRequestor = Union[UserRole, AssistantRole]


# --------------------------------------------------------------------------- message.py

class SystemMessage(BaseModel):
    role: SystemRole
    content: Optional[str] = None
    turn_idx: Optional[int] = None
    timestamp: Optional[str] = None


class ToolCall(BaseModel):
    id: str = ""
    name: str
    arguments: dict
    requestor: ToolRequestor = "assistant"


class TurnTakingAction(BaseModel):
    action: str
    info: Optional[str] = None
    interrupt_check_seconds: Optional[float] = None
    interrupt_check_cost: Optional[float] = None
    interrupt_check_usage: Optional[dict] = None
    backchannel_check_seconds: Optional[float] = None
    backchannel_check_cost: Optional[float] = None
    backchannel_check_usage: Optional[dict] = None
    llm_generation_seconds: Optional[float] = None
    tts_synthesis_seconds: Optional[float] = None


class UserSpeechInsert(BaseModel):
    text: str
    type: Literal["vocal_tic", "non_directed_phrase"]


class ChannelEffectsResult(BaseModel):
    frame_drops_enabled: bool = False
    frame_drop_ms: int = 0


class SourceEffectsResult(BaseModel):
    burst_noise_file: Optional[str] = None
    speech_insert: Optional[UserSpeechInsert] = None


class SpeechEffectsResult(BaseModel):
    dynamic_muffling_enabled: bool = False
    speech_insert: Optional[UserSpeechInsert] = None


class ParticipantMessageBase(BaseModel):
    role: str
    content: Optional[str] = None
    tool_calls: Optional[list[ToolCall]] = None
    is_audio: bool = False
    turn_idx: Optional[int] = None
    timestamp: Optional[str] = None
    cost: Optional[float] = None
    usage: Optional[dict] = None
    raw_data: Optional[dict] = None
    generation_time_seconds: Optional[float] = None
    context_truncation: Optional[dict] = None
    audio_format: Optional[dict[str, Any]] = None
    audio_content: Optional[str] = None
    audio_path: Optional[str] = None
    audio_script_gold: Optional[str] = None
    speech_effects: Optional[SpeechEffectsResult] = None
    source_effects: Optional[SourceEffectsResult] = None
    channel_effects: Optional[ChannelEffectsResult] = None
    turn_taking_action: Optional[TurnTakingAction] = None
    utterance_ids: Optional[list[str]] = None
    chunk_id: Optional[int] = None
    is_final_chunk: bool = True
    source: Optional[str] = None
    contains_speech: bool = True


class AssistantMessage(ParticipantMessageBase):
    role: AssistantRole


class UserMessage(ParticipantMessageBase):
    role: UserRole


class ToolMessage(BaseModel):
    id: str
    role: ToolRole
    content: Optional[str] = None
    requestor: Literal["user", "assistant"] = "assistant"
    error: bool = False
    turn_idx: Optional[int] = None
    timestamp: Optional[str] = None


class MultiToolMessage(BaseModel):
    role: ToolRole
    tool_messages: list[ToolMessage]


Message = Union[SystemMessage, AssistantMessage, UserMessage, ToolMessage, MultiToolMessage]


# --------------------------------------------------------------------------- tasks.py

class StructuredUserInstructions(BaseModel):
    domain: str
    reason_for_call: str
    known_info: Optional[str] = None
    unknown_info: Optional[str] = None
    task_instructions: str


UserInstructions = Union[StructuredUserInstructions, str]


class UserScenario(BaseModel):
    persona: Optional[str] = None
    instructions: UserInstructions


class Description(BaseModel):
    purpose: Optional[str] = None
    relevant_policies: Optional[str] = None
    notes: Optional[str] = None


class Action(BaseModel):
    action_id: str
    requestor: ToolRequestor = "assistant"
    name: str
    arguments: dict
    info: Optional[str] = None
    compare_args: Optional[list[str]] = None


class EnvFunctionCall(BaseModel):
    env_type: ToolRequestor
    func_name: str
    arguments: dict


class EnvAssertion(EnvFunctionCall):
    assert_value: bool = True
    message: Optional[str] = None


class RewardType(str, Enum):
    DB = "DB"
    ENV_ASSERTION = "ENV_ASSERTION"
    NL_ASSERTION = "NL_ASSERTION"
    ACTION = "ACTION"
    COMMUNICATE = "COMMUNICATE"


class TaskIssueStatus(str, Enum):
    OPEN = "open"
    RESOLVED = "resolved"
    WONT_FIX = "wont_fix"


class TaskIssue(BaseModel):
    id: str
    title: str
    description: Optional[str] = None
    status: TaskIssueStatus = TaskIssueStatus.OPEN
    resolution: Optional[str] = None
    created_at: Optional[str] = None
    resolved_at: Optional[str] = None
    author_email: Optional[str] = None
    pr_link: Optional[str] = None
    simulation_file: Optional[str] = None


class EvaluationCriteria(BaseModel):
    actions: Optional[list[Action]] = None
    env_assertions: Optional[list[EnvAssertion]] = None
    communicate_info: Optional[list[str]] = None
    nl_assertions: Optional[list[str]] = None
    reward_basis: list[RewardType] = Field(default_factory=lambda: [RewardType.DB, RewardType.COMMUNICATE])


class InitializationData(BaseModel):
    agent_data: Optional[dict] = None
    user_data: Optional[dict] = None


class InitialState(BaseModel):
    initialization_data: Optional[InitializationData] = None
    initialization_actions: Optional[list[EnvFunctionCall]] = None
    message_history: Optional[list[Message]] = None


class Task(BaseModel):
    id: str
    description: Optional[Description] = None
    user_scenario: UserScenario
    ticket: Optional[str] = None
    initial_state: Optional[InitialState] = None
    evaluation_criteria: Optional[EvaluationCriteria] = None
    issues: Optional[list[TaskIssue]] = None
    required_documents: Optional[list[str]] = None
    user_tools: Optional[list[str]] = None


TASKS = TypeAdapter(list[Task])
SPLITS = TypeAdapter(dict[str, list[str]])


def validate_tasks(data: Any) -> list[str]:
    """Problems of a tasks.json payload under tau2's Task model (empty: valid)."""
    try:
        TASKS.validate_python(data)
    except ValidationError as e:
        return [f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:20]]
    return []


def validate_splits(data: Any, task_ids: set[str]) -> list[str]:
    """Problems of a split_tasks.json payload: tau2 reads it as {split name: [task ids]}; every
    id must name a task of the tasks.json beside it."""
    try:
        splits = SPLITS.validate_python(data)
    except ValidationError as e:
        return [f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:20]]
    return [f"split {name!r}: unknown task id {tid}" for name, ids in splits.items() for tid in ids
            if tid not in task_ids]


def unknown_keys(task: dict) -> list[str]:
    """Keys of a task dict (at any depth tau2 models) that tau2's models do not define."""
    out = [k for k in task if k not in Task.model_fields]

    def check(obj: Any, model: type[BaseModel], where: str) -> None:
        if isinstance(obj, dict):
            out.extend(f"{where}.{k}" for k in obj if k not in model.model_fields)

    check(task.get("description"), Description, "description")
    us = task.get("user_scenario") or {}
    check(us, UserScenario, "user_scenario")
    check(us.get("instructions") if isinstance(us, dict) else None, StructuredUserInstructions,
          "user_scenario.instructions")
    ec = task.get("evaluation_criteria") or {}
    check(ec, EvaluationCriteria, "evaluation_criteria")
    for i, a in enumerate((ec.get("actions") or []) if isinstance(ec, dict) else []):
        check(a, Action, f"evaluation_criteria.actions.{i}")
    return sorted(out)
