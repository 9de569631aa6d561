"""Settings: the session's model, server, config values and system prompt, as commands change them.

The loop holds the Runtime in use; a change of model, server or any config
value (/model, /provider, /prompts) builds a new one and hands it over whole.
The system prompt is composed here: the prompt files (or --system), then the
project instructions.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.loop import ChatLoop
from ayder_cli.masking import Secrets
from ayder_cli.config.schema import Config
from ayder_cli.config.config_checks import check_value
from ayder_cli.config.config_layers import load_config
from ayder_cli.config.instructions import Instructions, load_instructions
from ayder_cli.config.prompts import compose_system_prompt, load_system_prompt
from ayder_cli.config.runtime import Runtime
from ayder_cli.session.server import runtime_for
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment


class Settings:
    def __init__(self, loop: ChatLoop, conversation: Conversation, *, console: Console, secrets: Secrets,
                 environment: Environment, root: Path, instructions: Instructions,
                 config_file: Path | None = None, flags: dict[str, Any] | None = None) -> None:
        self.loop, self.conversation = loop, conversation
        self.console, self.secrets, self.environment, self.root = console, secrets, environment, root
        # Project instructions (AGENTS.md, ...) in the system prompt; disabled by --no-instructions.
        self.instructions = instructions
        # What the command line said, so /provider can re-resolve the layers.
        self.config_file = config_file
        self.flags = dict(flags or {})
        self.system_text: str | None = None  # --system: the prompt for this run instead of the prompt files

    @property
    def runtime(self) -> Runtime:
        """The server and model in use with their settings: the loop holds it; /model, /provider replace it."""
        return self.loop.runtime

    @property
    def config(self) -> Config:
        return self.loop.runtime.config

    @property
    def window_note(self) -> str:
        """What the server said of the context window it serves, in words (/status)."""
        return self.loop.runtime.window_note

    def set_values(self, **values: Any) -> None:
        """Change config values for this session (slash commands); validated like the files. A new
        runtime from the next request on: for another model, the window is asked again."""
        checked = {key: check_value(f"/{key}", key, value) for key, value in values.items()}
        sources = {**self.config.sources, **{key: f"/{key}" for key in checked}}
        config = replace(self.config, **checked, sources=sources)
        self.loop.use(runtime_for(config, self.environment.env, self.console, self.secrets, known=self.runtime,
                                  pause=self.environment.pause))

    def switch_provider(self, provider: str) -> None:
        """Re-resolve every layer as if -p PROVIDER had been given (base URL, key, defaults, window)."""
        flags = {**self.flags, "provider": provider, "base_url": None}
        from ayder_cli.config.project_trust import decided_before  # loaded by /provider only

        config = load_config(env=self.environment.env, root=self.root, config_file=self.config_file, flags=flags,
                             trust=lambda *asked: decided_before(self.config.project_trust)(*asked))
        self.loop.use(runtime_for(config, self.environment.env, self.console, self.secrets,
                                  pause=self.environment.pause))
        self.flags = flags

    def reload_prompt(self) -> str:
        """Re-read the prompt files and the project instructions."""
        if self.instructions.enabled:
            self.instructions = read_instructions(self.config, self.environment, self.root, self.console)
        prompt = self.system_text
        if prompt is None:
            prompt = load_system_prompt(self.config.prompts, self.root, self.console.notice)
        self.conversation.system_prompt = compose_system_prompt(prompt, self.instructions.prompt_block())
        return self.conversation.system_prompt

    def use_system_prompt(self, text: str) -> None:
        """--system: this text instead of the prompt files, for the whole run (project instructions still follow)."""
        self.system_text = text
        self.conversation.system_prompt = compose_system_prompt(text, self.instructions.prompt_block())


def read_instructions(config: Config, environment: Environment, root: Path, console: Console) -> Instructions:
    """The project instructions; -v lists them, and what the size cap cut is always said."""
    instructions = load_instructions(root, environment.cwd, environment.env, config.instructions, warn=console.notice)
    console.log(f"instructions: {instructions.describe()}")
    if instructions.notice:
        console.notice(instructions.notice)
    return instructions


def no_instructions(console: Console) -> Instructions:
    """--no-instructions: none, and -v says so."""
    instructions = Instructions(enabled=False)
    console.log(f"instructions: {instructions.describe()}")
    return instructions
