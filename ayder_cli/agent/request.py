"""Building the requests the model is sent: the session's settings, the conversation, and the tools.

The tools the executor offers go as native schemas, or, where the server takes
no native tools (tool_fallback.py decides), as the [CALL] format taught at the
end of the system prompt. The doctor builds its probes here too, so what it
measures is what a session sends.
"""

from __future__ import annotations

from typing import Any, Callable

from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.template_needs import ids_for
from ayder_cli.config.schema import Config
from ayder_cli.edit_formats import edit_format_named, resolve
from ayder_cli.intents import call_format_instructions
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.wire_types import ChatClient, ChatRequest, Reply
from ayder_cli.storage.profiles import ServerProfiles
from ayder_cli.tools.executor import ToolExecutor


def with_settings(config: Config, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                  stream: bool | None = None, tool_choice: str | None = None) -> ChatRequest:
    """A request for `messages` with the session's settings: model, sampling, max_tokens, num_ctx, keep_alive;
    streamed as configured unless `stream` says otherwise."""
    return ChatRequest(
        model=config.resolved_model,
        messages=messages,
        stream=config.stream if stream is None else stream,
        tools=tools,
        temperature=config.temperature,
        top_p=config.top_p,
        max_tokens=config.max_tokens,
        num_ctx=config.num_ctx,
        keep_alive=config.keep_alive,
        tool_choice=tool_choice,
    )


def next_request(config: Config, conversation: Conversation, executor: ToolExecutor | None,
                 tools_as_text: bool) -> ChatRequest:
    """The next request for the conversation as it stands: system prompt, the offered tools (native
    schemas, or taught as text when `tools_as_text`), settings."""
    system = conversation.system_prompt
    tools = None
    offered = executor.offered() if executor is not None else []
    edit_format = executor.policy.edit_format if offered else None
    teach_edits = edit_format_named(edit_format).teaching if edit_format else ""
    if teach_edits:  # only the format in use; stable per model, so the prefix stays cached
        system = f"{system}\n\n{teach_edits}" if system else teach_edits
    note = executor.registry.prompt_note() if offered else ""
    if note:  # tools deferred to save room (MCP servers in a small window): what they are for
        system = f"{system}\n\n{note}" if system else note
    if offered:
        if tools_as_text:
            teach = call_format_instructions([spec.signature() for spec in offered])
            system = f"{system}\n\n{teach}" if system else teach
        else:
            tools = executor.schemas()
    return with_settings(config, ids_for(config.resolved_model, conversation.for_request(system)), tools=tools)


def pick_edit_format(config: Config, profiles: ServerProfiles | None, executor: ToolExecutor | None,
                     log: Callable[[str], None]) -> None:
    """The edit format for this model (auto: what its server profile learned, else the table by its name),
    set where the offered tools are decided: the executor's policy."""
    if executor is None:
        return
    auto = config.edit_format == "auto"
    learned = profiles.get(config.resolved_base_url, config.resolved_model) if auto and profiles else {}
    chosen, why = resolve(config.edit_format, config.resolved_model, learned)
    if chosen != executor.policy.edit_format or auto:
        log(f"edit format: {chosen} ({why})")
    executor.policy.edit_format = chosen


def whole_reply(client: ChatClient, request: ChatRequest) -> Reply:
    """The model's reply to `request`, gathered whole and shown to no one (summaries, the doctor's probes)."""
    accumulator = Accumulator()
    for delta in client.stream(request):
        accumulator.add(delta)
    return accumulator.reply()
