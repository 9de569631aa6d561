"""The API key a config sends, and the Endpoint it resolves to (once, for make_client)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Mapping

from ayder_cli.errors import ConfigError
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm.providers import PROVIDERS, provider_named
from ayder_cli.config.schema import Config


def endpoint_of(config: Config, env: Mapping[str, str]) -> Endpoint:
    """Where requests go and how: the config resolved once (URL, model, key and where it came from).

    An unreadable api_key_file is a ConfigError."""
    key, source = _api_key(config, env, config.provider)
    return Endpoint(
        provider=config.provider,
        base_url=config.resolved_base_url,
        model=config.resolved_model,
        api_key=key,
        key_source=source,
        key_env=config.api_key_env,
        connect_timeout_s=config.connect_timeout_s,
        read_timeout_s=config.timeout_s,
        stream_idle_timeout_s=config.stream_idle_timeout_s,
        request_timeout_s=config.request_timeout_s,
        max_retries=config.max_retries,
    )


def api_keys(config: Config, env: Mapping[str, str]) -> list[str]:
    """Every key this config could send, whichever the provider (for masking); a key file that
    cannot be read holds none (endpoint_of reports it)."""
    keys = []
    for provider in PROVIDERS:
        try:
            keys.append(_api_key(config, env, provider)[0])
        except ConfigError:
            pass
    return [key for key in keys if key]


def _api_key(config: Config, env: Mapping[str, str], provider: str) -> tuple[str | None, str | None]:
    """(the key, where it came from). A provider that wants no key (Ollama) gets one only if the config
    names one (api_key_file or api_key), never one from the environment."""
    if provider_named(provider).wants_key and config.api_key_env and env.get(config.api_key_env):
        return env[config.api_key_env].strip(), config.api_key_env
    if config.api_key_file:
        key = read_key_file(Path(config.api_key_file).expanduser())
        return (key, "api_key_file") if key else (None, None)
    if config.api_key:
        return config.api_key, "api_key"
    return None, None


MAX_KEY_FILE_BYTES = 64 * 1024  # a key file holds one key (or a few lines): more is not a key file


def read_key_file(path: Path) -> str:
    """The key in `path`, stripped. Only a regular file is read, and at most MAX_KEY_FILE_BYTES of it:
    /dev/zero is refused, not read until memory runs out. Opened without waiting (O_NONBLOCK), so a
    FIFO is refused at once instead of hanging for a writer. A link is followed: your config named it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ConfigError(f"api_key_file: cannot read {path}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"api_key_file: {path} is not a regular file",
                              hint="point api_key_file at a file holding the key")
        data = b""
        while len(data) <= MAX_KEY_FILE_BYTES:
            chunk = os.read(fd, MAX_KEY_FILE_BYTES + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise ConfigError(f"api_key_file: cannot read {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_KEY_FILE_BYTES:
        raise ConfigError(f"api_key_file: {path} is over {MAX_KEY_FILE_BYTES // 1024} KB, too big for a key file")
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigError(f"api_key_file: {path} is not a text file") from None
