"""A project's `tools` object can only narrow what yours allows, never widen it: a cloned project must
not bring back a tool you disabled nor lift a cap you set.

disabled lists join (disabled stays disabled), allowlists intersect, each cap of
max_calls_per_message is the lower of the two, and shell_deny lists join. What a project asks
beyond yours is said in one line and left out.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping


def narrowed_tools(mine: Mapping[str, Any], project: Mapping[str, Any], where: str,
                   warn: Callable[[str], None]) -> dict[str, Any]:
    """Your tools policy as the project's narrows it."""
    merged = dict(mine)
    ignored: list[str] = []
    for key in ("disabled", "shell_deny"):
        if key in project:
            merged[key] = list(dict.fromkeys([*mine.get(key, ()), *project[key]]))
    if "enabled" in project:
        if "enabled" in mine:
            allowed = set(mine["enabled"])
            merged["enabled"] = [name for name in project["enabled"] if name in allowed]
            ignored += [f"enabled {name}" for name in project["enabled"] if name not in allowed]
        else:
            merged["enabled"] = list(project["enabled"])
    if "max_calls_per_message" in project:
        caps = dict(mine.get("max_calls_per_message", {}))
        for name, count in project["max_calls_per_message"].items():
            if name in caps and count > caps[name]:
                ignored.append(f"max_calls_per_message {name}: {count}")
                continue
            caps[name] = count
        merged["max_calls_per_message"] = caps
    if ignored:
        warn(f"{where}: a project's tools can only narrow yours; {', '.join(ignored)} ignored")
    return merged
