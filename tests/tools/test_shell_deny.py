"""The shell deny list judges what would run, not the text: spellings, wrappers, nesting, and the tool itself.

The tables only call denied_by. The end-to-end tests run the real tool (and the last ones the
real `ayder -x`) with HOME set to a temporary directory, so a command that got through would
only delete that directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.tool_calls import call_tool
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.tools import background as background_module
from ayder_cli.tools.spec import ToolContext
from ayder_cli.command_policy.braces import MAX_WORDS, expand_braces
from ayder_cli.tools.background import ProcessManager
from ayder_cli.command_policy.deny import (
    CHMOD_ROOT, CHOWN_ROOT, DD_TO_DISK, DEFAULT_SHELL_DENY, FORK_BOMB, MKFS, POWER_OFF, REASONS, RM_HOME,
    RM_NO_PRESERVE_ROOT, RM_ROOT, RM_SYSTEM_DIRECTORY, RULES, TOO_DEEP, WRITE_TO_DISK, denied_by, refusal,
)
from ayder_cli.command_policy.what_runs import what_runs

# (command, the first rule that refuses it)
DENIED = [
    # the spellings the attack got through
    ("timeout 5 rm -rf ~", RM_HOME),
    ("\\rm -rf ~", RM_HOME),
    ("nice -n 5 rm -rf ~", RM_HOME),
    ("sudo -u root rm -rf /", RM_ROOT),
    ("'rm' -rf /", RM_ROOT),
    ('"rm" -rf /', RM_ROOT),
    ("r\\m -rf /", RM_ROOT),
    ("eval rm -rf /", RM_ROOT),
    ("setsid rm -rf /", RM_ROOT),
    ("stdbuf -o0 rm -rf /", RM_ROOT),
    ("busybox rm -rf /", RM_ROOT),
    ('sh -c "rm -rf \\$HOME"', RM_HOME),
    ("rm -rf /*/", RM_ROOT),
    ("rm -rf ~root", RM_HOME),
    # the root directory, however it is spelt
    ("rm -rf /", RM_ROOT),
    ("rm -rf //", RM_ROOT),
    ("rm -rf ///", RM_ROOT),
    ("rm -rf /.", RM_ROOT),
    ("rm -rf /..", RM_ROOT),
    ("rm -rf /*", RM_ROOT),
    ("rm -rf /.*", RM_ROOT),
    ("rm -rf '/'", RM_ROOT),
    ('rm -rf "/"', RM_ROOT),
    ('rm -rf "/"*', RM_ROOT),
    ("rm -rf \\/", RM_ROOT),
    ("rm -rf /tmp/../", RM_ROOT),
    # rm's flags in any order or cluster, before or after the path
    ("rm -r -f /", RM_ROOT),
    ("rm -fr /", RM_ROOT),
    ("rm -Rf /", RM_ROOT),
    ("rm -fR /", RM_ROOT),
    ("rm -rvf /*", RM_ROOT),
    ("rm -r /", RM_ROOT),
    ("rm --recursive --force /", RM_ROOT),
    ("rm --recur -f /", RM_ROOT),
    ("rm / -rf", RM_ROOT),
    ("rm -rf -- /", RM_ROOT),
    ("rm -rf build /", RM_ROOT),
    # the program, however it is named
    ("/bin/rm -rf /", RM_ROOT),
    ("/usr/bin/rm -rf /", RM_ROOT),
    ("./rm -rf /", RM_ROOT),
    ("r''m -rf /", RM_ROOT),
    ("\"r\"'m' -rf /", RM_ROOT),
    ("$'rm' -rf /", RM_ROOT),
    ("$'\\x72m' -rf /", RM_ROOT),
    # the home directory, however it is spelt
    ("rm -rf ~", RM_HOME),
    ("rm -rf ~/", RM_HOME),
    ("rm -rf ~/*", RM_HOME),
    ("rm -rf ~/.", RM_HOME),
    ("rm -rf ~/.*", RM_HOME),
    ("rm -rf ~root/", RM_HOME),
    ("rm -rf ~nosuchuser", RM_HOME),
    ("rm -rf $HOME", RM_HOME),
    ("rm -rf ${HOME}", RM_HOME),
    ('rm -rf "$HOME"', RM_HOME),
    ("rm -rf $HOME/", RM_HOME),
    ("rm -rf $HOME/*", RM_HOME),
    ("rm -rf ${HOME}/*", RM_HOME),
    ('rm -rf "${HOME}"/*', RM_HOME),
    ('rm -rf "$HOME/"', RM_HOME),
    ("rm -rf ${HOME%/}", RM_HOME),
    ("rm -rf ~/projects/..", RM_HOME),
    ("rm -R $HOME", RM_HOME),
    ("rm -rf '~'", RM_HOME),  # the shell would take it literally; refusing costs a retype, not a home
    ("rm -rf -- ~", RM_HOME),
    # top-level system directories
    ("rm -rf /usr", RM_SYSTEM_DIRECTORY),
    ("rm -rf /etc/", RM_SYSTEM_DIRECTORY),
    ("rm -rf /bin", RM_SYSTEM_DIRECTORY),
    ("rm -rf /home", RM_SYSTEM_DIRECTORY),
    ("rm -rf /var/*", RM_SYSTEM_DIRECTORY),
    ("rm -rf /boot", RM_SYSTEM_DIRECTORY),
    ("rm -rf /lib", RM_SYSTEM_DIRECTORY),
    ("rm -rf /u*", RM_SYSTEM_DIRECTORY),
    ("rm -rf /*/lib", RM_SYSTEM_DIRECTORY),
    ("sudo rm -rf /opt", RM_SYSTEM_DIRECTORY),
    # after a cd to one of them
    ("cd / && rm -rf *", RM_ROOT),
    ("cd /; rm -rf *", RM_ROOT),
    ("cd ~ && rm -rf *", RM_HOME),
    ("cd; rm -rf *", RM_HOME),
    ("cd $HOME && rm -rf ./*", RM_HOME),
    ("cd / && rm -rf usr", RM_SYSTEM_DIRECTORY),
    ("cd /usr && rm -rf *", RM_SYSTEM_DIRECTORY),
    ("cd /tmp && cd .. && rm -rf .*", RM_ROOT),
    ("cd / && sh -c 'rm -rf *'", RM_ROOT),
    ("pushd / && rm -rf *", RM_ROOT),
    # wrappers, alone and stacked
    ("sudo rm -rf /", RM_ROOT),
    ("sudo -uroot rm -rf /", RM_ROOT),
    ("sudo --user=root rm -rf /", RM_ROOT),
    ("sudo --user root rm -rf /", RM_ROOT),
    ("sudo -E -H rm -rf /", RM_ROOT),
    ("sudo -- rm -rf /", RM_ROOT),
    ("sudo HOME=/tmp rm -rf /", RM_ROOT),
    ("doas rm -rf /", RM_ROOT),
    ("doas -u root rm -rf /", RM_ROOT),
    ("pkexec rm -rf /", RM_ROOT),
    ("env rm -rf /", RM_ROOT),
    ("env -i PATH=/bin rm -rf /", RM_ROOT),
    ("env -u HOME rm -rf /", RM_ROOT),
    ("env -S 'rm -rf /'", RM_ROOT),
    ("FOO=1 rm -rf /", RM_ROOT),
    ("A=1 B=2 rm -rf ~", RM_HOME),
    ("nice rm -rf /", RM_ROOT),
    ("nice -5 rm -rf /", RM_ROOT),
    ("nice --adjustment=5 rm -rf /", RM_ROOT),
    ("ionice -c3 rm -rf /", RM_ROOT),
    ("ionice -c 2 -n 7 rm -rf /", RM_ROOT),
    ("timeout -s KILL 5 rm -rf /", RM_ROOT),
    ("timeout --signal=KILL -k 1 5s rm -rf /", RM_ROOT),
    ("timeout --preserve-status 5 rm -rf ~", RM_HOME),
    ("stdbuf -o 0 -e L rm -rf /", RM_ROOT),
    ("setsid -f rm -rf /", RM_ROOT),
    ("nohup rm -rf / &", RM_ROOT),
    ("command rm -rf /", RM_ROOT),
    ("command -p rm -rf /", RM_ROOT),
    ("exec rm -rf /", RM_ROOT),
    ("exec -a x rm -rf /", RM_ROOT),
    ("builtin rm -rf /", RM_ROOT),
    ("time rm -rf /", RM_ROOT),
    ("time -p rm -rf /", RM_ROOT),
    ("/usr/bin/time -o log rm -rf /", RM_ROOT),
    ("toybox rm -rf /", RM_ROOT),
    ("xargs rm -rf /", RM_ROOT),
    ("xargs -0 -n 1 rm -rf ~", RM_HOME),
    ("xargs -I{} rm -rf /", RM_ROOT),
    ("find . | xargs -i{} rm -rf /", RM_ROOT),
    ("chroot /mnt rm -rf /", RM_ROOT),
    ("watch -n 1 rm -rf /", RM_ROOT),
    ("sudo nice -n 5 timeout 5 rm -rf ~", RM_HOME),
    ("sudo env FOO=1 nohup stdbuf -oL rm -rf /", RM_ROOT),
    # eval and shells: their strings are parsed again
    ("eval 'rm -rf /'", RM_ROOT),
    ('eval "rm -rf ~"', RM_HOME),
    ("eval eval rm -rf /", RM_ROOT),
    ("sh -c 'rm -rf /'", RM_ROOT),
    ("bash -c 'rm -rf ~'", RM_HOME),
    ("dash -c 'rm -rf /'", RM_ROOT),
    ("zsh -c 'rm -rf /'", RM_ROOT),
    ("ksh -c 'rm -rf /'", RM_ROOT),
    ("bash -lc 'rm -rf ~'", RM_HOME),
    ("bash -e -c 'rm -rf /'", RM_ROOT),
    ("bash -o errexit -c 'rm -rf /'", RM_ROOT),
    ("/bin/sh -c 'rm -rf /'", RM_ROOT),
    ("sudo sh -c 'rm -rf /'", RM_ROOT),
    ("sh -c \"sh -c 'rm -rf /'\"", RM_ROOT),
    ("su -c 'rm -rf /'", RM_ROOT),
    ("su root -c 'rm -rf /'", RM_ROOT),
    ("sudo -s 'rm -rf /'", RM_ROOT),
    # a shell fed on its standard input
    ('echo "rm -rf ~" | sh', RM_HOME),
    ("echo rm -rf / | bash", RM_ROOT),
    ("printf 'rm -rf /\\n' | sh", RM_ROOT),
    ("sh <<EOF\nrm -rf /\nEOF", RM_ROOT),
    ("bash -s <<'X'\nrm -rf /\nX", RM_ROOT),
    ("bash <<< 'rm -rf ~'", RM_HOME),
    # every command of a list, a pipeline, a group or a substitution
    ("ls; rm -rf /", RM_ROOT),
    ("true && rm -rf ~", RM_HOME),
    ("false || rm -rf /", RM_ROOT),
    ("ls | rm -rf /", RM_ROOT),
    ("sleep 1 & rm -rf /", RM_ROOT),
    ("ls\nrm -rf /", RM_ROOT),
    ("echo hi # a comment\nrm -rf /", RM_ROOT),
    ("rm -rf \\\n /", RM_ROOT),
    ("(rm -rf /)", RM_ROOT),
    ("{ rm -rf /; }", RM_ROOT),
    ("if true; then rm -rf /; fi", RM_ROOT),
    ("while true; do rm -rf ~; done", RM_HOME),
    ("! rm -rf /", RM_ROOT),
    ("f() { rm -rf /; }", RM_ROOT),
    ("function f { rm -rf ~; }", RM_HOME),
    ("echo $(rm -rf ~)", RM_HOME),
    ("echo `rm -rf /`", RM_ROOT),
    ('echo "$(rm -rf /)"', RM_ROOT),
    ("echo $(echo $(rm -rf /))", RM_ROOT),
    ("cat <(rm -rf /)", RM_ROOT),
    ("x=$(rm -rf /)", RM_ROOT),
    ("echo ${x:-$(rm -rf /)}", RM_ROOT),
    ("cat <<EOF\n$(rm -rf ~)\nEOF", RM_HOME),
    # rm --no-preserve-root
    ("rm --no-preserve-root -rf /tmp/x", RM_NO_PRESERVE_ROOT),
    ("rm --no-preserve-root x", RM_NO_PRESERVE_ROOT),
    ("rm --no-pres -r x", RM_NO_PRESERVE_ROOT),
    ("rm -rf --no-preserve-root /", RM_ROOT),
    # formatting a disk
    ("mkfs.ext4 /dev/sdb1", MKFS),
    ("mkfs -t ext4 /dev/sdb", MKFS),
    ("sudo mkfs.vfat /dev/sdc1", MKFS),
    ("/sbin/mkfs.xfs /dev/nvme0n1p1", MKFS),
    ("mke2fs /dev/sda1", MKFS),
    ("mkswap /dev/sda2", MKFS),
    # dd onto a disk
    ("dd if=/dev/zero of=/dev/sda bs=1M", DD_TO_DISK),
    ("sudo dd if=x.iso of=/dev/sdb bs=4M", DD_TO_DISK),
    ("dd of=/dev/nvme0n1 if=x.img", DD_TO_DISK),
    ("dd if=x.img of=/dev/disk2", DD_TO_DISK),
    ("dd if=x of='/dev/sda'", DD_TO_DISK),
    ("dd if=x of=//dev//sda", DD_TO_DISK),
    ("cd /dev && dd if=x of=sda", DD_TO_DISK),
    # other writes onto a disk
    ("echo oops > /dev/sda", WRITE_TO_DISK),
    ("cat image >/dev/sdb1", WRITE_TO_DISK),
    ("cat image 1>/dev/sda", WRITE_TO_DISK),
    ("cat image &> /dev/sda", WRITE_TO_DISK),
    ("cat image >> /dev/mmcblk0", WRITE_TO_DISK),
    ("exec 3>/dev/sda", WRITE_TO_DISK),
    ("{ cat image; } > /dev/sda", WRITE_TO_DISK),
    ("cat image | sudo tee /dev/sda", WRITE_TO_DISK),
    ("cp disk.img /dev/sdb", WRITE_TO_DISK),
    ("shred /dev/sda", WRITE_TO_DISK),
    # fork bombs
    (":(){ :|:& };:", FORK_BOMB),
    ("bomb(){ bomb|bomb& }; bomb", FORK_BOMB),
    ("f(){ f | f & }; f", FORK_BOMB),
    ("bash -c ':(){ :|:& };:'", FORK_BOMB),
    # ... in the spellings a pattern missed: any name, no `&`, a subshell body, `function`, quoted calls
    (": () { : | : & } ; :", FORK_BOMB),
    ("function f { f|f& }; f", FORK_BOMB),
    ("f(){ f|f; }; f", FORK_BOMB),
    ("f() ( f|f& ); f", FORK_BOMB),
    ("f(){ f& f& };f", FORK_BOMB),
    ("+(){ +|+& };+", FORK_BOMB),
    ('f(){ "f"|\\f& };f', FORK_BOMB),
    ("f(){ $(f)|f& };f", FORK_BOMB),
    ("bomb()\n{\n  bomb | bomb &\n}\nbomb", FORK_BOMB),
    ("a(){ b|b& }; b(){ a|a& }; a", FORK_BOMB),
    ("eval 'g(){ g|g& }; g'", FORK_BOMB),
    # chmod, chown, chgrp -R on / or a system directory
    ("chmod -R 777 /", CHMOD_ROOT),
    ("sudo chmod 777 -R /", CHMOD_ROOT),
    ("chmod --recursive a+rwx /", CHMOD_ROOT),
    ("chmod -Rv 755 /*", CHMOD_ROOT),
    ("chmod -R 000 /etc", CHMOD_ROOT),
    ("chown -R me:me /", CHOWN_ROOT),
    ("sudo chgrp -R users /*", CHOWN_ROOT),
    ("chown -R nobody /usr", CHOWN_ROOT),
    # shutting down
    ("shutdown -h now", POWER_OFF),
    ("sudo shutdown -r +5", POWER_OFF),
    ("reboot", POWER_OFF),
    ("sudo reboot", POWER_OFF),
    ("halt", POWER_OFF),
    ("poweroff", POWER_OFF),
    ("/sbin/reboot", POWER_OFF),
    ("init 0", POWER_OFF),
    ("init 6", POWER_OFF),
    ("telinit 6", POWER_OFF),
    ("systemctl poweroff", POWER_OFF),
    ("systemctl reboot", POWER_OFF),
    ("sudo systemctl --force reboot", POWER_OFF),
    ("loginctl poweroff", POWER_OFF),
    ("ls; sudo systemctl halt", POWER_OFF),
    ("nohup reboot &", POWER_OFF),
    # the misses of the third attack (issue 19): HOME's other ${...} forms, brace expansion, coproc,
    # a glob over HOME's dotfiles
    ("rm -rf ${HOME?}", RM_HOME),
    ("rm -rf ${HOME-x}", RM_HOME),
    ("rm -rf ${HOME:=x}", RM_HOME),
    ("rm -rf ${HOME+$HOME}", RM_HOME),
    ("rm -rf ${HOME:+${HOME}}", RM_HOME),
    ("rm -rf ${HOME+/}", RM_ROOT),
    ("bash -c 'rm -rf {~,/tmp/x}'", RM_HOME),
    ("rm -rf {~,/tmp/x}", RM_HOME),
    ("rm -rf {/,}", RM_ROOT),
    ("rm -rf /tmp{,/..}", RM_ROOT),
    ("rm -rf {/u,/e}sr", RM_SYSTEM_DIRECTORY),
    ("rm -{r,f} /", RM_ROOT),
    ("chmod -R 777 {/,x}", CHMOD_ROOT),
    ("bash -c 'coproc rm -rf ~; wait'", RM_HOME),
    ("coproc rm -rf /", RM_ROOT),
    ("coproc X { rm -rf ~; }", RM_HOME),
    ("rm -rf ~/.[!.]*", RM_HOME),
    ("rm -rf ~/.??*", RM_HOME),
    ("rm -rf ~/[a-z]*", RM_HOME),
    ("rm -rf /[!.]*", RM_ROOT),
    # commands whose first word is a substitution: judged by the command inside it
    ("$(rm -rf ~) -V", RM_HOME),
    ("`rm -rf /` -V", RM_ROOT),
    ('"$(rm -rf ~)/build.sh"', RM_HOME),
    ("${x:-rm -rf /}", TOO_DEEP),  # unquoted, the default's words would run; it cannot be judged
    # too deep to judge
    ("echo " + "$(" * 30 + "ls" + ")" * 30, TOO_DEEP),
    ("eval " * 40 + "ls", TOO_DEEP),
    ("f(){ " * 20_000, TOO_DEEP),
]

ALLOWED = [
    # ordinary deletions
    "rm -rf build/",
    "rm -rf ./dist",
    "rm -rf node_modules",
    "rm -rf build dist .pytest_cache",
    "rm -r ~/project/tmp",
    "rm -rf ~/projects/old",
    "rm -rf $HOME/.cache/pip",
    "rm -rf ${HOME}/.cache",
    "rm -rf ~/*.log",
    "rm -rf /tmp/build",
    "rm -rf /tmp/build/*",
    "rm -rf /tmp/pytest-*",
    "rm -rf /usr/local/lib/foo",
    "rm -rf /var/tmp/x",
    "rm -rf *",
    "rm -rf ./*",
    "rm -rf .",
    "rm -rf '~/tmp'",
    "rm -f ~/notes.txt",
    "rm ~/*.log",
    "rm -f /",
    "rm -rf build; ls /",
    "rm -rf build && ls /",
    "rm -rf build\nls /",
    "rm -rf $BUILD_DIR/*",
    "rm -rf \"$(mktemp -d)\"",
    "find . -name '*.pyc' | xargs rm -f",
    "xargs rm -f < list.txt",
    "sh -c 'rm -rf build'",
    # a cd that leads somewhere harmless
    "cd / && ls",
    "cd /tmp && rm -rf *",
    "cd ~ && rm -rf build/*",
    "cd ~/project && rm -rf *",
    "cd \"$(mktemp -d)\" && rm -rf *",
    # the words, not the commands
    "echo rm -rf /",
    'git commit -m "rm -rf /"',
    'grep -r "reboot" .',
    "printf '%s' '/'",
    "echo rm -rf / is dangerous",
    "echo 'sudo rm -rf /' >> notes.md",
    "cat <<EOF\nrm -rf /\nEOF",
    "cat <<'EOF'\n$(rm -rf /)\nEOF",
    "echo rm -rf / | cat",
    "eval echo rm -rf /",
    "bash -c 'echo rm -rf /'",
    "git log --grep reboot",
    "./reboot.sh",
    "python halt.py",
    "cat shutdown.txt",
    "grep -r mkfs docs",
    "man rm",
    "which rm reboot",
    "echo '$HOME'",
    "echo ~",
    "ls -R /",
    "find / -name '*.py'",
    "du -sh ~",
    "sh script.sh /",
    # disks read, not written
    "dd if=/dev/zero of=disk.img bs=1M count=1",
    "dd if=/dev/sda of=backup.img",
    "echo hi > /dev/null",
    "make 2>/dev/null",
    "cmd >/dev/stderr 2>&1",
    "head -c 512 /dev/sda > mbr.bin",
    "cp /dev/sda disk.img",
    "tee out.txt",
    # permissions on ordinary paths
    "chmod -R 755 build/",
    "chmod 644 /tmp/x",
    "chmod -R u+w ./",
    "chmod +x a.sh; ls -R /",
    "chown -R me build",
    "chown -R $USER ~",
    "chmod 755 /",
    "chmod -r /etc/x",
    # services and programs with alarming names
    "systemctl status nginx",
    "systemctl restart nginx",
    "systemctl status reboot.target",
    "git init",
    "npm init -y",
    "docker run --init alpine",
    "init",
    "f() { echo hi; }; f",
    ":(){ echo hi; }; :",
    "f(){ f; }; f",  # endless, but one process: not a fork bomb
    'walk() { for d in "$1"/*/; do [ -d "$d" ] && walk "$d" & done; wait; }; walk .',
    "fib() { if [ $1 -lt 2 ]; then echo $1; else echo $(( $(fib $(($1-1))) + $(fib $(($1-2))) )); fi; }; fib 8",
    "a(){ ls; }; b(){ a|a& }; b",
    # braces, globs and ${HOME...} that name no home or root
    "rm -rf {build,dist}",
    "rm -rf ~/{.cache,tmp}",
    "rm -rf ${HOME}/{a,b}",
    "rm -rf ~/*.log ~/.[a-z]*.bak",
    "rm -rf build/[!.]*",
    "rm -rf ${HOME+/tmp/x}",
    "rm -rf ${HOME-x}/.cache",
    "coproc sleep 1",
    "find . -exec echo {} +",
    # a first word that is a substitution: judged by what it runs, not refused as too deep
    "$(which python3) -V",
    "`which python3` -V",
    "$(npm bin)/eslint .",
    '"$(git rev-parse --show-toplevel)/build.sh"',
    "$(command -v node) --version && ls",
    "sudo -s 'ls $(pwd)'",
    # wrappers around harmless commands
    "sudo apt-get install -y ripgrep",
    "timeout 5 pytest -q",
    "nice -n 10 make -j8",
    "env FOO=1 python x.py",
    "nohup python server.py &",
    "time make",
    "xargs -n1 echo",
    "sudo -u postgres psql",
    "busybox ls /",
]


def test_the_tables_are_large_enough():
    assert len(DENIED) + len(ALLOWED) >= 100
    assert len({command for command, _ in DENIED}) == len(DENIED)
    assert len(set(ALLOWED)) == len(ALLOWED)


@pytest.mark.parametrize(("command", "rule"), DENIED, ids=[repr(command)[:60] for command, _ in DENIED])
def test_denied(command, rule):
    assert denied_by(command, DEFAULT_SHELL_DENY) == rule


@pytest.mark.parametrize("command", ALLOWED, ids=[repr(command)[:60] for command in ALLOWED])
def test_allowed(command):
    assert denied_by(command, DEFAULT_SHELL_DENY) is None


def test_every_rule_is_in_the_tables_and_has_a_reason():
    assert set(DEFAULT_SHELL_DENY) == set(RULES) == set(REASONS) == {rule for _, rule in DENIED}


@pytest.mark.parametrize(("command", "words"), [
    ("timeout 5 rm -rf ~", "it deletes the home directory"),
    ("sudo -u root rm -rf /", "it deletes the root directory"),
    ("rm -rf /usr", "system directory"),
    ("mkfs.ext4 /dev/sdb1", "it formats a disk"),
    ("echo x > /dev/sda", "overwrites the disk"),
    ("sudo systemctl reboot", "shuts down or restarts the machine"),
    (":(){ :|:& };:", "fork bomb"),
])
def test_the_refusal_says_why_in_words(command, words):
    message = refusal(command, denied_by(command, DEFAULT_SHELL_DENY))
    assert message.startswith(f"refused: `{command}` is on the shell deny list (")
    assert words in message and "never run, even with -x" in message


@pytest.mark.parametrize(("command", "rule"), [
    ("rm -rf /home/alice", RM_HOME),
    ("rm -rf /home/alice/", RM_HOME),
    ("rm -rf /home/alice/*", RM_HOME),
    ("rm -rf /home/bob", RM_HOME),
    ("rm -rf /Users/carol", RM_HOME),
    ("rm -rf /home", RM_SYSTEM_DIRECTORY),
    ("rm -rf /home/alice/src", None),
    ("rm -rf ~/src", None),
])
def test_the_home_directory_counts_by_its_own_path_too(monkeypatch, command, rule):
    monkeypatch.setenv("HOME", "/home/alice")
    assert denied_by(command, DEFAULT_SHELL_DENY) == rule


def test_a_home_anywhere_counts_and_so_does_the_directory_holding_it(monkeypatch):
    monkeypatch.setenv("HOME", "/srv/users/dave")
    assert denied_by("rm -rf /srv/users/dave", DEFAULT_SHELL_DENY) == RM_HOME
    assert denied_by("rm -rf /srv/users", DEFAULT_SHELL_DENY) == RM_SYSTEM_DIRECTORY
    assert denied_by("rm -rf /srv/users/erin", DEFAULT_SHELL_DENY) is None


def test_user_patterns_are_searched_in_the_text_beside_the_rules():
    patterns = (*DEFAULT_SHELL_DENY, r"\bgit\s+push\b")
    assert denied_by("git push origin main", patterns) == r"\bgit\s+push\b"
    assert denied_by('echo "git push"', patterns) == r"\bgit\s+push\b"  # text, as the README says
    assert denied_by("rm -rf ~ && git push", patterns) == RM_HOME  # the order of the tuple decides
    assert denied_by("git pull", patterns) is None
    assert "it matches the pattern `\\bgit\\s+push\\b`" in refusal("git push", r"\bgit\s+push\b")


def test_a_rule_alone_judges_alone():
    assert denied_by("rm -rf / ; reboot", [POWER_OFF]) == POWER_OFF
    assert denied_by("rm -rf /", [POWER_OFF]) is None
    assert denied_by("rm -rf /", []) is None


def test_what_runs_unwraps_to_the_program_and_follows_cd():
    found = what_runs("cd / && sudo -u root timeout 5 nice -n 2 /bin/rm -rf usr 2>/dev/null")
    assert [(run.name, run.args, run.cwd) for run in found.runs] == [
        ("cd", ("/",), None), ("rm", ("-rf", "usr"), "/")]
    assert found.runs[1].redirects == ((">", "/dev/null"),)
    assert not found.too_deep


def test_a_cd_in_a_child_shell_does_not_move_the_parent():
    assert denied_by("sh -c 'cd /'; rm -rf *", DEFAULT_SHELL_DENY) is None
    assert denied_by("echo $(cd /); rm -rf *", DEFAULT_SHELL_DENY) is None
    assert denied_by("eval 'cd /'; rm -rf *", DEFAULT_SHELL_DENY) == RM_ROOT  # eval runs in the same shell


SHELLISH = st.text(alphabet=list("rm -f/~$HOME{}()'\"\\`;&|<>*\n#=cdshevaltimeoutxargs0123456789"), max_size=200)


@settings(max_examples=examples(400), deadline=None)
@given(SHELLISH)
def test_any_text_is_judged_without_an_error(text):
    denied_by(text, DEFAULT_SHELL_DENY)


@pytest.mark.parametrize("tail, refused", [("rm -rf build", False), ("rm -rf ~", True)])
def test_a_long_command_is_judged_to_its_end(tail, refused):
    # Its cost against the length is measured in benchmarks/deny_list.py, not here.
    command = "echo " + "'a b' \"c $d\" $(e) " * 2_000 + "; " + tail
    assert (denied_by(command, DEFAULT_SHELL_DENY) is not None) is refused


# --- end to end: the tool itself


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A throwaway HOME with a marker: a command that got through would delete only this."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "marker").write_text("keep")
    monkeypatch.setenv("HOME", str(home))
    assert os.path.expanduser("~") == str(home)
    return home


@pytest.fixture
def context(project, home, monkeypatch):
    monkeypatch.setattr(background_module, "START_PEEK_S", 0.05)
    processes = ProcessManager(project, max_processes=3, max_output_chars=4000)
    yield ToolContext(project, max_output_chars=4000, processes=processes, shell_deny=DEFAULT_SHELL_DENY,
                      shell_timeout_s=10)
    processes.kill_all()


@pytest.mark.parametrize("tool", ["run_shell_command", "run_background_process"])
@pytest.mark.parametrize("command", [
    "timeout 5 rm -rf ~", "\\rm -rf ~", "nice -n 5 rm -rf ~", 'sh -c "rm -rf \\$HOME"', "cd ~ && rm -rf *",
    "eval rm -rf '$HOME'", "echo 'rm -rf ~' | sh",
])
def test_a_denied_command_is_not_run(context, home, tool, command):
    result = call_tool(context, tool, command=command)
    assert not result.ok
    assert result.error.startswith("refused:") and REASONS[RM_HOME] in result.error
    assert (home / "marker").read_text() == "keep"


def test_an_ordinary_deletion_runs(context, project):
    (project / "build" / "lib").mkdir(parents=True)
    (project / "build" / "lib" / "out.o").write_text("object")
    (project / "src.c").write_text("int main;")
    result = call_tool(context, "run_shell_command", command="rm -rf build/")
    assert result.ok, result.error
    assert not (project / "build").exists() and (project / "src.c").exists()


def test_a_deletion_inside_home_runs(context, home):
    (home / "project" / "tmp").mkdir(parents=True)
    result = call_tool(context, "run_shell_command", command="rm -r ~/project/tmp")
    assert result.ok, result.error
    assert not (home / "project" / "tmp").exists() and (home / "marker").exists()


# --- brace expansion, as bash does it


@pytest.mark.parametrize("word", [
    "{~,/tmp/x}", "{/,}", "a{b,c{d,e}}f", "x{,}y", "{a,b}{c,d}", "~/{.ssh,.config}", "{a}", "{}", "${HOME}",
    "a{b,c", "{a,b}}", "{{a,b},c}",
])
def test_braces_expand_as_bash_expands_them(word):
    if shutil.which("bash") is None:
        pytest.skip("no bash to compare with")
    shown = subprocess.run(["bash", "-c", f"set -f; HOME=/h; printf '%s\\n' {word}"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    expanded = [("/h" + text[1:] if text.startswith("~") else text).replace("${HOME}", "/h")
                for text in expand_braces(word)]
    assert [text for text in expanded if text] == shown


def test_braces_stop_at_a_bounded_number_of_words():
    assert len(expand_braces("{a,b}" * 30)) == MAX_WORDS


# --- end to end: the model asks, `ayder -x` runs the tool


def plant_home(home):
    (home / "marker").write_text("keep")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_test").write_text("secret key")


def ask_to_run(fake, run_ayder, command):
    """`ayder -x` with a model that asks for one run_shell_command; what the tool answered the model."""
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": command}}]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-x", "tidy up")
    assert result.returncode == 0, result.stderr
    return [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"][0]["content"]


@pytest.mark.parametrize(("command", "reason"), [
    ("rm -rf ${HOME?}", REASONS[RM_HOME]),
    ("rm -rf ${HOME-x}", REASONS[RM_HOME]),
    ("rm -rf ${HOME+$HOME}", REASONS[RM_HOME]),
    ("bash -c 'rm -rf {~,/tmp/x}'", REASONS[RM_HOME]),
    ("bash -c 'coproc rm -rf ~; wait'", REASONS[RM_HOME]),
    ("rm -rf ~/.[!.]*", REASONS[RM_HOME]),
    ("bomb() { bomb | bomb & }; bomb", REASONS[FORK_BOMB]),
])
def test_the_third_attacks_spellings_are_refused_end_to_end(fake, run_ayder, isolated_env, command, reason):
    plant_home(isolated_env)
    answer = ask_to_run(fake, run_ayder, command)
    assert "refused: `" in answer and reason in answer and "never run, even with -x" in answer
    assert (isolated_env / "marker").read_text() == "keep"
    assert (isolated_env / ".ssh" / "id_test").read_text() == "secret key"


@pytest.mark.parametrize("command", ["$(which python3) -V", "`which python3` -V"])
def test_a_command_named_by_a_substitution_runs_end_to_end(fake, run_ayder, command):
    answer = ask_to_run(fake, run_ayder, command)
    assert "refused" not in answer and "Python 3." in answer


def test_a_script_found_by_a_substitution_runs_end_to_end(fake, run_ayder, project):
    if shutil.which("git") is None:
        pytest.skip("no git")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "build.sh").write_text("#!/bin/sh\necho built-it\n")
    (project / "build.sh").chmod(0o755)
    answer = ask_to_run(fake, run_ayder, '"$(git rev-parse --show-toplevel)/build.sh"')
    assert "refused" not in answer and "built-it" in answer
