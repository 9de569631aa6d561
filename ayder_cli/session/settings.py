"""Settings: a new runtime or system prompt, as commands ask for them.

The Session (session.py) holds the Runtime in use; a change of model, server or
any config value (/model, /provider, /prompts) builds a new one here, which the
Session puts in use whole. The system prompt is composed here: the prompt files
(or --system), then the project instructions.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

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
    """How a new runtime or system prompt is made from what the command line said; the Session applies them."""

    def __init__(self, *, console: Console, secrets: Secrets, environment: Environment, root: Path,
                 instructions: Instructions, config_file: Path | None = None,
                 flags: dict[str, Any] | None = None) -> None:
        self.console, self.secrets, self.environment, self.root = console, secrets, environment, root
        # Project instructions (AGENTS.md, ...) in the system prompt; disabled by --no-instructions.
        self.instructions = instructions
        # What the command line said, so /provider can re-resolve the layers.
        self.config_file = config_file
        self.flags = dict(flags or {})
        self.system_text: str | None = None  # --system: the prompt for this run instead of the prompt files

    def with_values(self, runtime: Runtime, **values: Any) -> Runtime:
        """`runtime` with config values changed (slash commands), validated like the files; for another
        model, the window is asked again."""
        checked = {key: check_value(f"/{key}", key, value) for key, value in values.items()}
        sources = {**runtime.config.sources, **{key: f"/{key}" for key in checked}}
        config = replace(runtime.config, **checked, sources=sources)
        return runtime_for(config, self.environment.env, self.console, self.secrets, known=runtime,
                           pause=self.environment.pause)

    def for_provider(self, config: Config, provider: str) -> Runtime:
        """Every layer re-resolved as if -p PROVIDER had been given (base URL, key, defaults, window)."""
        flags = {**self.flags, "provider": provider, "base_url": None}
        from ayder_cli.config.project_trust import decided_before  # loaded by /provider only

        fresh = load_config(env=self.environment.env, root=self.root, config_file=self.config_file, flags=flags,
                            trust=lambda *asked: decided_before(config.project_trust)(*asked))
        runtime = runtime_for(fresh, self.environment.env, self.console, self.secrets, pause=self.environment.pause)
        self.flags = flags
        return runtime

    def reread_prompt(self, config: Config) -> str:
        """The system prompt, the prompt files and the project instructions read again."""
        if self.instructions.enabled:
            self.instructions = read_instructions(config, self.environment, self.root, self.console)
        prompt = self.system_text
        if prompt is None:
            prompt = load_system_prompt(config.prompts, self.root, self.console.notice)
        return compose_system_prompt(prompt, self.instructions.prompt_block())

    def given_prompt(self, text: str) -> str:
        """--system: this text instead of the prompt files, for the whole run (project instructions still follow)."""
        self.system_text = text
        return compose_system_prompt(text, self.instructions.prompt_block())


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
