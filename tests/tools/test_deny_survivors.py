"""The deny list's mutation survivors, each killed by a test: spellings that reach the same harm
(su's --command in both forms, a cd before a relative path, the shortest long options), a wrapper
whose value option is its last word, and the tables built at import time (RULES, WRAPPERS).

A survivor is a change to the code that no test noticed (`benchmarks/mutation.py policy`).
"""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.errors import ToolError
from ayder_cli.tools.spec import ToolContext
from ayder_cli.command_policy.deny import (
    CHMOD_ROOT, CHOWN_ROOT, DD_TO_DISK, DEFAULT_SHELL_DENY, FORK_BOMB, MKFS, POWER_OFF, REASONS, RM_HOME,
    RM_NO_PRESERVE_ROOT, RM_ROOT, RM_SYSTEM_DIRECTORY, RULES, TOO_DEEP, WRITE_TO_DISK, built_rules, check_command,
    denied_by,
)
from ayder_cli.tools.shell import refuse_before_asking
from ayder_cli.command_policy.shell_words import MAX_DEPTH
from ayder_cli.command_policy.what_runs import WRAPPERS, built_wrappers, what_runs


@pytest.mark.parametrize(("command", "rule"), [
    # su runs its --command's value, attached by = or as the next word
    ("su --command='rm -rf /'", RM_ROOT),
    ("su --command 'rm -rf /'", RM_ROOT),
    ("su root --command='rm -rf ~'", RM_HOME),
    ("runuser -u root --command 'mkfs.ext4 /dev/sda1'", MKFS),
    ("su -lc 'rm -rf /'", RM_ROOT),
    # a relative path after a cd names what the cd reached
    ("cd /; chmod -R 777 etc", CHMOD_ROOT),
    ("cd / && chown -R me usr", CHOWN_ROOT),
    ("cd /usr/..; rm -rf etc", RM_SYSTEM_DIRECTORY),
    # the shortest abbreviations GNU accepts
    ("rm --r /", RM_ROOT),
    ("chmod --rec 777 /", CHMOD_ROOT),
    ("chown --recu me /etc", CHOWN_ROOT),
    ("rm --no /", RM_NO_PRESERVE_ROOT),
])
def test_spellings_that_reach_the_same_harm_are_refused(command, rule):
    assert denied_by(command, DEFAULT_SHELL_DENY) == rule


@pytest.mark.parametrize("command", [
    "rm --force /tmp/x",         # --f... is not --r...
    "rm -f /",                   # no recursion: rm refuses a directory
    "chmod --re 777 /",          # --re is ambiguous (--recursive, --reference): GNU refuses it
    "chmod -v 777 /",
    "chown me /etc",
    "su --command='ls /'",
    "su -c 'echo rm -rf /'",
    "cd /tmp; rm -rf etc",       # /tmp/etc is nobody's system directory
    "cd /; rm -rf tmp/build",
    "su -l root",                # -l ends in no c: what follows is not a command
])
def test_what_only_looks_alike_runs(command):
    assert denied_by(command, DEFAULT_SHELL_DENY) is None


def _value_options():
    for name, wrapper in WRAPPERS.items():
        for letter in wrapper.values:
            yield f"{name} -{letter}"
        for long in sorted(wrapper.long_values):
            yield f"{name} --{long}"


@pytest.mark.parametrize("command", list(_value_options()))
def test_a_value_option_as_the_last_word_gets_a_verdict_not_a_crash(command):
    # `sudo -u` with nothing after it: the judge must answer (nothing is run, so nothing refused).
    assert denied_by(command, DEFAULT_SHELL_DENY) is None
    check_command(command, DEFAULT_SHELL_DENY)  # no exception: the shell itself will say what is wrong


def _wrapped_spellings():
    """Every wrapper with each of its options, around `rm -rf /`: a table entry that breaks shows here."""
    for name, wrapper in WRAPPERS.items():
        operands = " X" * wrapper.operands  # timeout's duration, chroot's root
        yield f"{name}{operands} rm -rf /"
        for letter in set(wrapper.values) - wrapper.split:  # env -S: the value is the command (below)
            yield f"{name} -{letter} V{operands} rm -rf /"
            yield f"{name} -{letter}V{operands} rm -rf /"
        for long in sorted(wrapper.long_values - wrapper.split):
            yield f"{name} --{long} V{operands} rm -rf /"
            yield f"{name} --{long}=V{operands} rm -rf /"
        for letter in wrapper.attached:
            yield f"{name} -{letter}V{operands} rm -rf /"


@pytest.mark.parametrize("command", sorted(_wrapped_spellings()))
def test_every_wrapper_and_each_of_its_options_is_seen_through(command):
    assert denied_by(command, DEFAULT_SHELL_DENY) == RM_ROOT


@pytest.mark.parametrize("command", ["env -S 'rm -rf /'", "env --split-string='rm -rf /'",
                                     "env --split-string 'rm -rf /'", "env -u X -S'rm -rf /'"])
def test_env_split_string_is_the_command(command):
    assert denied_by(command, DEFAULT_SHELL_DENY) == RM_ROOT


def test_a_value_option_takes_its_value_not_the_command():
    # Were -u not a value option, `root` would be the program and rm only its argument.
    assert [(run.name, run.args) for run in what_runs("sudo -u root rm -rf build").runs] == [
        ("rm", ("-rf", "build"))]
    assert [run.name for run in what_runs("timeout -s KILL 5 ls").runs] == ["ls"]
    assert [run.name for run in what_runs("xargs -i{} cp {} dir").runs] == ["cp"]


# One command per rule that this rule refuses and no other: a factory built with the wrong argument
# (RM_ROOT judging homes, chown's rule built for chmod) or a table entry under the wrong name fails here.
ONLY_THIS_RULE = {
    RM_ROOT: "rm -r /",
    RM_HOME: "rm -r ~",
    RM_SYSTEM_DIRECTORY: "rm -r /usr",
    RM_NO_PRESERVE_ROOT: "rm --no-preserve-root build",
    MKFS: "mkfs.ext4 build.img",
    DD_TO_DISK: "dd if=x of=/dev/sda",
    WRITE_TO_DISK: "echo x > /dev/nvme0n1",
    FORK_BOMB: ":(){ :|:& };:",
    CHMOD_ROOT: "chmod -R 777 /etc",
    CHOWN_ROOT: "chgrp -R staff /usr",
    POWER_OFF: "systemctl --now poweroff",
    TOO_DEEP: "eval " * (MAX_DEPTH + 2) + "ls",
}


@pytest.mark.parametrize("rule", list(RULES))
def test_each_rule_in_the_table_refuses_its_harm_and_only_its_own(rule):
    command = ONLY_THIS_RULE[rule]
    assert denied_by(command, [rule]) == rule
    assert [other for other in RULES if denied_by(command, [other])] == [rule]
    assert REASONS[rule] and rule.startswith("ayder:")


def test_the_table_holds_every_rule_once_in_the_order_the_first_match_is_named():
    assert DEFAULT_SHELL_DENY == tuple(ONLY_THIS_RULE)
    assert denied_by("rm -rf / ~", DEFAULT_SHELL_DENY) == RM_ROOT
    assert denied_by("rm -rf ~ /usr", DEFAULT_SHELL_DENY) == RM_HOME


@pytest.mark.parametrize(("command", "rule"), [
    ("init 0", POWER_OFF), ("telinit 6", POWER_OFF), ("init 3", None), ("loginctl reboot", POWER_OFF),
    ("systemctl -i halt", POWER_OFF), ("systemctl status reboot", None), ("systemctl", None),
    ("sudo kexec -e", None), ("shutdown -h now", POWER_OFF),
])
def test_power_verbs_count_in_the_first_word_only(command, rule):
    assert denied_by(command, DEFAULT_SHELL_DENY) == rule


def test_the_factories_build_again_the_rules_the_table_holds():
    # RULES was built at import; built afresh, every rule still refuses its own harm and no other's.
    rebuilt = built_rules()
    assert list(rebuilt) == list(RULES)
    for rule, check in rebuilt.items():
        for other, command in ONLY_THIS_RULE.items():
            assert check(what_runs(command)) == (other == rule), (rule, command)


def test_the_wrappers_built_again_are_the_table():
    rebuilt = built_wrappers()
    assert rebuilt == WRAPPERS
    assert rebuilt["sudo"].long_values >= {"user", "chdir", "chroot"} and "split-string" in rebuilt["env"].split
    assert rebuilt["xargs"].attached == "eil" and rebuilt["timeout"].operands == 1


@pytest.mark.parametrize("command, answered", [
    ("rm -rf ~", "error: refused: `rm -rf ~` is on the shell deny list (it deletes the home directory"),
    ("echo hi", "error: denied: run_shell_command needs execute permission, which was not granted"),
])
def test_a_denied_command_is_refused_before_the_user_is_asked(fake, run_ayder, command, answered):
    # Without -x (and no terminal to ask on) a command is denied for want of permission; a command on
    # the deny list is refused by the preview first, saying why, as it would be before a confirmation.
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": command}}]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "tidy up")
    assert result.returncode == 0, result.stderr
    answer = [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"][0]["content"]
    assert answer.startswith(answered), answer


@pytest.mark.parametrize(("command", "rule"), [
    ("su --command='rm -rf a=b /'", RM_ROOT),     # the value is all after the first =
    ("su -l 'rm -rf /'", None),                    # -l ends in no c: the next word is a user name
    ("su marc 'rm -rf /'", None),                  # a user name ending in c is no option
    ("su --sync 'rm -rf /'", None),                # nor a long option ending in c
    ("cd -P /; rm -rf etc", RM_SYSTEM_DIRECTORY),  # cd's options are not its directory
    ("cd /; cd -; rm -rf *", None),                # cd -, popd, pushd alone: where they go is not known
    ("popd; rm -rf *", None),
    ("pushd; rm -rf *", None),
    ("pushd /; rm -rf usr", RM_SYSTEM_DIRECTORY),
    ("chmod 755 /usr", None),                      # not recursive
    ("chmod -R 755 build", None),
    ("chown -R me:me /", CHOWN_ROOT),
    ("rm -R /", RM_ROOT),
])
def test_su_and_cd_are_read_as_they_parse_their_words(command, rule):
    assert denied_by(command, DEFAULT_SHELL_DENY) == rule


@pytest.mark.parametrize(("command", "names"), [
    ("su root -c ls", ["su", "ls"]),
    ("su -c ls extra", ["su", "ls"]),
    ("su --command=ls root", ["su", "ls"]),
])
def test_su_runs_its_command_and_nothing_around_it(command, names):
    assert [run.name for run in what_runs(command).runs] == names


def test_cd_dash_leaves_the_directory_unknown():
    assert what_runs("cd /; cd -; ls").runs[-1].cwd is None
    assert what_runs("cd /; cd usr; ls").runs[-1].cwd == "/usr"


def test_a_split_string_option_with_no_value_runs_nothing():
    assert [(run.name, run.args) for run in what_runs("env -S").runs] == [("", ())]


@pytest.mark.parametrize(("command", "shown"), [
    ("  rm -rf /  ", "rm -rf /"),
    ("rm -rf /\necho done", "rm -rf / echo done"),           # one line
    ("rm -rf / " + "x" * 71, "rm -rf / " + "x" * 71),          # 80 characters: shown whole
    ("rm -rf / " + "x" * 72, "rm -rf / " + "x" * 70 + "…"),    # 81: cut to 79 and an ellipsis
])
def test_the_refusal_shows_the_command_on_one_line_cut_at_80_characters(command, shown):
    with pytest.raises(ToolError) as refused:
        check_command(command, DEFAULT_SHELL_DENY)
    assert str(refused.value) == (
        f"refused: `{shown}` is on the shell deny list ({REASONS[RM_ROOT]}); it is never run, even with -x. "
        "Do not retry it; if the user really wants it, they must run it themselves "
        "(the list is tools.shell_deny in the config)")


@pytest.mark.parametrize("command", ["", "  \n\t"])
def test_an_empty_command_is_refused_in_words(command):
    with pytest.raises(ToolError, match="^the command is empty$"):
        check_command(command, DEFAULT_SHELL_DENY)


def test_the_preview_of_a_call_without_a_command_says_it_is_empty(tmp_path):
    with pytest.raises(ToolError, match="^the command is empty$"):
        refuse_before_asking(ToolContext(tmp_path), {})
