"""Config layers, provider defaults, validation messages and API-key handling."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ayder_cli.errors import ConfigError, ExitStatus
from ayder_cli.llm.providers import normalize_ollama_host
from ayder_cli.config.schema import ProjectTrust
from ayder_cli.config.config_layers import load_config
from ayder_cli.config.keys import endpoint_of

SECRET = "sk-test-0123456789abcdef"


@pytest.fixture
def xdg(tmp_path) -> Path:
    return tmp_path / "xdg"


@pytest.fixture
def root(tmp_path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def write(path: Path, data, mode: int = 0o600) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    path.chmod(mode)
    return path


class Layers:
    """Build a config from named layers, the way the CLI does."""

    def __init__(self, xdg: Path, root: Path):
        self.xdg_dir = xdg
        self.root = root
        self.env: dict[str, str] = {"XDG_CONFIG_HOME": str(xdg)}
        self.warnings: list[str] = []

    def user(self, data, mode: int = 0o600) -> Path:
        return write(self.xdg_dir / "ayder" / "config.json", data, mode)

    def project(self, data, mode: int = 0o600) -> Path:
        return write(self.root / ".ayder" / "config.json", data, mode)

    def load(self, config_file: Path | None = None, **flags):
        # The project here is one the user trusts: these tests are about the layers (trust: test_project_trust.py).
        return load_config(env=self.env, root=self.root, config_file=config_file, flags=flags,
                           warn=self.warnings.append, trust=trusted)


def trusted(path: Path, data: bytes, asked: dict) -> ProjectTrust:
    return ProjectTrust(tuple(asked), True, "trusted by the test")


@pytest.fixture
def layers(xdg, root) -> Layers:
    return Layers(xdg, root)


# --- defaults and provider defaults


def test_defaults_talk_to_local_ollama(layers):
    config = layers.load()
    assert config.provider == "ollama"
    assert config.resolved_base_url == "http://localhost:11434"
    assert config.sources["base_url"] == "default"


def test_openai_provider_defaults_to_the_openai_api(layers):
    config = layers.load(provider="openai")
    assert config.resolved_base_url == "https://api.openai.com/v1"
    assert config.resolved_model != layers.load().resolved_model


# --- load order


def test_each_layer_overrides_the_one_before(layers, tmp_path):
    extra = write(tmp_path / "extra.json", {"model": "from-config-flag", "iterations": 7})
    layers.user({"model": "from-user", "temperature": 0.1, "iterations": 3, "num_ctx": 1000})
    layers.project({"model": "from-project", "temperature": 0.2, "iterations": 5})

    config = layers.load(config_file=extra)
    assert config.model == "from-config-flag"
    assert config.iterations == 7
    assert config.temperature == 0.2
    assert config.num_ctx == 1000
    assert config.sources["temperature"].endswith(os.path.join(".ayder", "config.json"))
    assert config.sources["num_ctx"].endswith(os.path.join("ayder", "config.json"))

    layers.env["AYDER_MODEL"] = "from-env"
    assert layers.load(config_file=extra).model == "from-env"
    assert layers.load(config_file=extra).sources["model"] == "environment"

    config = layers.load(config_file=extra, model="from-flag", iterations=None)
    assert config.model == "from-flag"
    assert config.sources["model"] == "flag"
    assert config.iterations == 7  # a flag left unset does not override


def test_provider_from_environment_beats_config_files(layers):
    layers.project({"provider": "ollama"})
    layers.env["AYDER_PROVIDER"] = "openai"
    assert layers.load().provider == "openai"
    assert layers.load(provider="ollama").provider == "ollama"


def test_missing_config_flag_file_is_a_usage_error(layers, tmp_path):
    with pytest.raises(ConfigError) as caught:
        layers.load(config_file=tmp_path / "nope.json")
    assert "nope.json" in caught.value.message
    assert "not found" in caught.value.message
    assert caught.value.exit_status == ExitStatus.USAGE == 2


# --- base_url belongs to the provider it was set with


def test_base_url_from_an_earlier_layer_than_the_provider_is_dropped(layers):
    layers.user({"base_url": "http://gpu-box:11434"})
    layers.project({"provider": "openai"})
    config = layers.load()
    assert config.resolved_base_url == "https://api.openai.com/v1"
    assert config.sources["base_url"] == "default"


def test_base_url_set_with_or_after_the_provider_is_kept(layers):
    layers.user({"provider": "openai", "base_url": "http://127.0.0.1:8080/v1"})
    assert layers.load().resolved_base_url == "http://127.0.0.1:8080/v1"

    layers.project({"base_url": "http://127.0.0.1:9090/v1"})
    assert layers.load().resolved_base_url == "http://127.0.0.1:9090/v1"


def test_repeating_the_same_provider_keeps_its_base_url(layers):
    # `-p openai` on top of a config that already says openai must not send the
    # request (and the key) to api.openai.com instead of the configured server.
    layers.user({"provider": "openai", "base_url": "http://127.0.0.1:8080/v1"})
    assert layers.load(provider="openai").resolved_base_url == "http://127.0.0.1:8080/v1"
    layers.env["AYDER_PROVIDER"] = "openai"
    assert layers.load().resolved_base_url == "http://127.0.0.1:8080/v1"


def test_switching_provider_by_environment_drops_the_file_base_url(layers):
    layers.user({"base_url": "http://gpu-box:11434"})
    layers.env["AYDER_PROVIDER"] = "openai"
    layers.env["OPENAI_BASE_URL"] = "http://llama.lan:8000/v1/"
    config = layers.load()
    assert config.resolved_base_url == "http://llama.lan:8000/v1"
    assert config.sources["base_url"] == "environment"


# --- provider environment variables


def test_ollama_host_overrides_config_file_but_not_the_flag(layers):
    layers.user({"base_url": "http://from-file:11434"})
    layers.env["OLLAMA_HOST"] = "gpu-box:11500"
    assert layers.load().resolved_base_url == "http://gpu-box:11500"
    assert layers.load(base_url="http://flag:1/").resolved_base_url == "http://flag:1"


def test_provider_env_urls_apply_only_to_their_provider(layers):
    layers.env["OLLAMA_HOST"] = "gpu-box"
    layers.env["OPENAI_BASE_URL"] = "http://llama.lan:8000/v1"
    assert layers.load().resolved_base_url == "http://gpu-box:11434"
    assert layers.load(provider="openai").resolved_base_url == "http://llama.lan:8000/v1"


@pytest.mark.parametrize(
    "value, url",
    [
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:9000", "http://gpu-box:9000"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("10.0.0.5:11434", "http://10.0.0.5:11434"),
        ("[::1]", "http://[::1]:11434"),
        ("[::1]:8000", "http://[::1]:8000"),
        ("http://gpu-box:9000/", "http://gpu-box:9000"),
        # With a scheme, the scheme's own port is meant, as in the ollama CLI.
        ("https://ollama.example.com", "https://ollama.example.com"),
        ("https://ollama.example.com/", "https://ollama.example.com"),
        ("http://proxy.lan/ollama", "http://proxy.lan/ollama"),
        (" gpu-box:9000 ", "http://gpu-box:9000"),
    ],
)
def test_ollama_host_is_normalised(value, url):
    assert normalize_ollama_host(value) == url


def test_bad_provider_in_environment_names_the_variable(layers):
    layers.env["AYDER_PROVIDER"] = "anthropic"
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert "AYDER_PROVIDER" in caught.value.message
    assert "ollama, openai" in caught.value.message


def test_bad_flag_value_names_the_flag(layers):
    with pytest.raises(ConfigError) as caught:
        layers.load(base_url="localhost:11434")
    assert "--base-url" in caught.value.message
    assert "http://" in caught.value.message


# --- file errors


def test_invalid_json_names_file_line_and_column(layers):
    path = layers.project('{\n  "model": "x",\n  "iterations": 3,,\n}\n')
    with pytest.raises(ConfigError) as caught:
        layers.load()
    message = caught.value.message
    assert str(path) in message
    assert "line 3" in message
    assert "column 19" in message
    assert caught.value.exit_status == 2


def test_wrong_type_names_file_and_key(layers):
    path = layers.user({"timeout_s": "fast"})
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert str(path) in caught.value.message
    assert '"timeout_s"' in caught.value.message
    assert "number" in caught.value.message
    assert caught.value.exit_status == 2


@pytest.mark.parametrize(
    "data, key",
    [
        ({"stream": "yes"}, "stream"),
        ({"max_retries": 1.5}, "max_retries"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"iterations": True}, "iterations"),
        ({"prompts": []}, "prompts"),
        ({"model": ""}, "model"),
    ],
)
def test_out_of_range_values_are_rejected(layers, data, key):
    layers.user(data)
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert f'"{key}"' in caught.value.message


def test_top_level_must_be_an_object(layers):
    layers.user('["model"]')
    with pytest.raises(ConfigError, match="JSON object"):
        layers.load()


def test_unknown_key_suggests_the_nearest(layers):
    path = layers.project({"modle": "llama3"})
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert str(path) in caught.value.message
    assert 'unknown key "modle"' in caught.value.message
    assert 'did you mean "model"' in caught.value.message
    assert caught.value.exit_status == 2


def test_unknown_key_without_a_near_match_points_at_the_key_list(layers):
    layers.project({"colour_scheme": "dark"})
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert "did you mean" not in caught.value.message
    assert "ayder --help-config" in caught.value.hint  # an installed ayder has it; config.example.json is not shipped


def test_prompts_accepts_a_comma_separated_flag(layers):
    assert layers.load(prompts="plain, system").prompts == ("plain", "system")


def test_tool_groups_core_by_default_more_from_a_file_or_the_tools_flag(layers):
    assert layers.load().tool_groups == ("core",)
    layers.project({"tool_groups": ["tasks"]})
    assert layers.load().tool_groups == ("core", "tasks")  # core is always offered
    assert layers.load(tool_groups="memory, processes").tool_groups == ("core", "processes", "memory")  # flag wins
    assert layers.load(tool_groups="all").tool_groups == ("core", "files", "processes", "tasks", "memory")


def test_tools_naming_tools_replaces_the_configs_allowlist_and_keeps_the_rest_of_tools(layers):
    layers.user({"tools": {"enabled": ["read_file"], "disabled": ["write_file"], "shell_deny": ["^rm "]}})
    assert layers.load().tools["enabled"] == ["read_file"]
    config = layers.load(tool_groups="list_files,tasks")
    assert config.tools == {"enabled": ["list_files", "create_task", "list_tasks", "show_task", "update_task_status"],
                            "disabled": ["write_file"], "shell_deny": ["^rm "]}
    assert config.tool_groups == ("core", "tasks")
    assert layers.load(tool_groups="memory").tools["enabled"] == ["read_file"]  # groups only: the list stays


def test_an_unknown_tool_group_names_the_flag_and_the_groups(layers):
    with pytest.raises(ConfigError) as caught:
        layers.load(tool_groups="core,proc")
    assert caught.value.exit_status == ExitStatus.USAGE
    assert caught.value.message.startswith("--tools: ")
    assert "unknown tool group 'proc'" in caught.value.message
    assert "core, files, processes, tasks, memory, or all" in caught.value.message
    layers.project({"tool_groups": "tasks"})  # a string is read as a comma-separated list
    assert layers.load().tool_groups == ("core", "tasks")
    layers.project({"tool_groups": [1]})
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert '"tool_groups" must be a list of tool groups' in caught.value.message


# --- API keys


def test_api_key_env_var_wins_over_file_and_config(layers, tmp_path):
    key_file = write(tmp_path / "key.txt", "from-file\n")
    layers.user({"provider": "openai", "api_key_env": "MY_KEY", "api_key_file": str(key_file),
                 "api_key": "from-config"})
    config = layers.load()
    assert endpoint_of(config, {"MY_KEY": " from-env\n", "OPENAI_API_KEY": "other"}).api_key == "from-env"
    assert endpoint_of(config, {"MY_KEY": "", "OPENAI_API_KEY": "other"}).api_key == "from-file"


def test_api_key_file_wins_over_config_key(layers, tmp_path):
    key_file = write(tmp_path / "key.txt", "from-file\n")
    layers.user({"provider": "openai", "api_key_file": str(key_file), "api_key": "from-config"})
    assert endpoint_of(layers.load(), {}).api_key == "from-file"


def test_config_key_is_the_last_resort(layers):
    layers.user({"provider": "openai", "api_key": "from-config"})
    config = layers.load()
    assert endpoint_of(config, {}).api_key == "from-config"
    assert endpoint_of(config, {"OPENAI_API_KEY": "from-env"}).api_key == "from-env"


def test_unreadable_api_key_file_is_a_config_error(layers, tmp_path):
    layers.user({"provider": "openai", "api_key_file": str(tmp_path / "missing-key")})
    with pytest.raises(ConfigError) as caught:
        endpoint_of(layers.load(), {})
    assert "missing-key" in caught.value.message
    assert caught.value.exit_status == 2


def test_binary_api_key_file_is_a_config_error(layers, tmp_path):
    key_file = tmp_path / "key.bin"
    key_file.write_bytes(b"\xff\xfe\x00binary")
    key_file.chmod(0o600)
    layers.user({"provider": "openai", "api_key_file": str(key_file)})
    with pytest.raises(ConfigError) as caught:
        endpoint_of(layers.load(), {})
    assert "not a text file" in caught.value.message


def test_config_file_with_key_readable_by_others_warns(layers):
    path = layers.user({"api_key": SECRET}, mode=0o644)
    layers.load()
    assert len(layers.warnings) == 1
    assert str(path) in layers.warnings[0]
    assert "chmod 600" in layers.warnings[0]
    assert SECRET not in layers.warnings[0]


def test_private_config_file_with_key_does_not_warn(layers):
    layers.user({"api_key": SECRET}, mode=0o600)
    layers.project({"model": "x"}, mode=0o644)  # shared, but holds no key
    layers.load()
    assert layers.warnings == []


def test_shared_api_key_file_warns(layers, tmp_path):
    key_file = write(tmp_path / "key.txt", SECRET, mode=0o640)
    layers.user({"api_key_file": str(key_file)})
    layers.load()
    assert len(layers.warnings) == 1
    assert str(key_file) in layers.warnings[0]
    assert SECRET not in layers.warnings[0]

    key_file.chmod(0o600)
    layers.warnings.clear()
    layers.load()
    assert layers.warnings == []


@pytest.mark.parametrize(
    "value",
    [[SECRET], {"value": SECRET}, 12345678901234567890, f" {SECRET}"],
)
def test_config_errors_never_show_the_key(layers, value):
    layers.user({"api_key": value, "iterations": 0})
    try:
        layers.load()
    except ConfigError as exc:
        text = f"{exc.message} {exc.hint}"
    else:
        pytest.fail("a bad config must be rejected")
    assert SECRET not in text
    assert str(12345678901234567890) not in text


def test_wrongly_typed_key_error_still_names_the_key_setting(layers):
    path = layers.user({"api_key": [SECRET]})
    with pytest.raises(ConfigError) as caught:
        layers.load()
    assert str(path) in caught.value.message
    assert '"api_key"' in caught.value.message
    assert SECRET not in caught.value.message
