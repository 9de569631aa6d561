"""Commands that change what the model is and is told: /model, /provider, /system, /reload, /prompts."""

from __future__ import annotations

from ayder_cli.llm.providers import PROVIDERS, provider_named
from ayder_cli.repl.commands.registry import CommandContext, command
from ayder_cli.wording import counted


@command("model", usage="[NAME]", help="switch model, or list the server's models")
def _model(context: CommandContext, args: str) -> None:
    session = context.session
    if args:
        session.use_model(args)  # a new runtime: the window is asked of the server again
        context.console.info(f"model: {session.runtime.endpoint.model}")
        return
    current = session.runtime.endpoint.model
    models = session.runtime.client.list_models()
    if not models:
        context.console.info(f"the server lists no models (current: {current})")
        return
    for name in models:
        context.console.info(f"{'*' if name == current else ' '} {name}")
    if current not in models:
        context.console.notice(f"the configured model {current} is not among the server's models; "
                               "pick one with /model NAME")


@command("provider", usage=f"[{'|'.join(PROVIDERS)}]", help="show or switch the provider")
def _provider(context: CommandContext, args: str) -> None:
    if args:
        context.session.switch_provider(args)  # every layer resolved again, as with -p NAME: a new runtime
    endpoint = context.session.runtime.endpoint
    key = f", {endpoint.describe_key()}" if endpoint.api_key or provider_named(endpoint.provider).wants_key else ""
    context.console.info(f"{endpoint.provider} at {endpoint.base_url}, model {endpoint.model}{key}")


@command("system", usage="[TEXT]", help="show the system prompt, or replace it for this session")
def _system(context: CommandContext, args: str) -> None:
    if args:
        context.session.conversation.system_prompt = args
        context.console.info("system prompt replaced for this session")
    else:
        context.console.info(context.session.conversation.system_prompt or "(empty system prompt)")


@command("reload", help="re-read the selected prompt files")
def _reload(context: CommandContext, args: str) -> None:
    prompt = context.session.reload_prompt()
    context.console.info(f"reloaded {','.join(context.session.config.prompts)} "
                         f"({counted(len(prompt), 'character')})")


@command("prompts", usage="[NAME,...]", help="list the prompt files, or select some")
def _prompts(context: CommandContext, args: str) -> None:
    from ayder_cli.config.prompts import available_prompts  # loaded when asked for: the REPL prompts sooner

    if args:
        context.session.set_values(prompts=args)
        context.session.reload_prompt()
    selected = context.session.config.prompts
    for name, path in available_prompts(context.state_root).items():
        mark = f"{selected.index(name) + 1}" if name in selected else " "
        context.console.info(f"{mark} {name:<12} {path}")
