"""Whether a project's own config may set what sends keys or runs code (config.NEEDS_TRUST).

Loaded only when the project's .ayder/config.json asks for such a setting. Trusted
are: a project you approved at a terminal with this very file content (remembered
in your state directory), or any project for one run with --trust-project. Else, at
a terminal, ayder asks once; without one, those settings are ignored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Mapping

from ayder_cli.config.schema import ProjectTrust
from ayder_cli.storage.trusted_projects import TrustedProjects, trusted_projects_path

# (the project's real root, its config file, {name: value} asked) -> the answer: trusted or not.
Ask = Callable[[Path, Path, dict[str, Any]], bool]

NO_TERMINAL = "no terminal to ask; --trust-project applies them for this run"
FLAG, NOT_ASKED = "the flag", "no terminal to ask"  # why approval() decided so, for the caller to word


def decide_trust(path: Path, data: bytes, asked: dict[str, Any], *, root: Path, env: Mapping[str, str],
                 ask: Ask | None, flag: bool, warn: Callable[[str], None]) -> ProjectTrust:
    """The decision on the project config `path` whose bytes are `data`. --trust-project (`flag`)
    approves for this run only and stores nothing: a flag in a script should not trust the project
    for later runs at a terminal; only an answer there is remembered."""
    trusted, why = approval(TrustedProjects(trusted_projects_path(env)), root, path, data, asked,
                            ask=ask, flag=flag, warn=warn)
    if why == FLAG:
        why = "--trust-project, for this run"
    elif why == NOT_ASKED:
        why = NO_TERMINAL
    return ProjectTrust(tuple(asked), trusted, why, hashlib.sha256(data).hexdigest())


def approval(store: TrustedProjects, root: Path, path: Path, data: bytes, shown: dict[str, Any], *,
             ask: Callable[[Path, Path, dict[str, Any]], bool] | None, flag: bool,
             warn: Callable[[str], None]) -> tuple[bool, str]:
    """Whether a project file `path` (bytes `data`) is approved, and why: the flag (this run only,
    nothing stored), an earlier yes for this very content, else the question at the terminal, a yes
    remembered in `store`. The why is FLAG, NOT_ASKED or words for the user."""
    if flag:
        return True, FLAG
    digest = hashlib.sha256(data).hexdigest()
    real_root = root.resolve()
    if store.approved(real_root, digest):
        return True, "approved earlier"
    if ask is None:
        return False, NOT_ASKED
    if not ask(real_root, path, shown):
        return False, "you answered no"
    problem = store.approve(real_root, digest)
    if problem:
        warn(f"the approval is for this run only: {problem}")
    return True, "approved at the terminal"


def decided_before(known: ProjectTrust | None) -> Callable[[Path, bytes, dict[str, Any]], ProjectTrust]:
    """For reading the layers again in the same run (/provider): the decision made at start, for the
    same file content; a file changed since is not trusted (and nobody is asked in the middle)."""

    def decide(path: Path, data: bytes, asked: dict[str, Any]) -> ProjectTrust:
        digest = hashlib.sha256(data).hexdigest()
        if known is not None and known.digest == digest:
            return known
        return ProjectTrust(tuple(asked), False, "the file changed since ayder started", digest)

    return decide


def remember_written(root: Path, before: bytes | None, after: bytes, env: Mapping[str, str]) -> str:
    """After the user approved settings that /init wrote into the project's config: its new content is
    approved too, when the old one was approved or asked for nothing that needs trust (nothing the user
    did not see is approved with it). -> one line saying what holds from the next run."""
    from ayder_cli.config.config_layers import needing_trust

    real_root = root.resolve()
    store = TrustedProjects(trusted_projects_path(env))
    old_asked = {}
    if before is not None:
        try:
            old = json.loads(before.decode("utf-8"))
            old_asked = needing_trust(old) if isinstance(old, dict) else {}
        except (UnicodeDecodeError, ValueError):
            old_asked = {"?": None}
    if old_asked and not store.approved(real_root, hashlib.sha256(before).hexdigest()):
        return (f"the project's config also asks for {', '.join(old_asked)}, which you have not approved: "
                "ayder asks whether to trust it at the next start")
    problem = store.approve(real_root, hashlib.sha256(after).hexdigest())
    if problem:
        return f"not remembered as trusted ({problem}): ayder asks at the next start"
    return "remembered as approved: they apply from the next start"
