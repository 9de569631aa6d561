"""get_project_structure: an indented tree of the project, honouring .gitignore, cut to stay readable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ayder_cli.calls import ToolResult
from ayder_cli.tools.spec import ToolContext, ToolSpec
from ayder_cli.tools.deadline import NEVER, Deadline
from ayder_cli.tools.gitignore import IgnoreRules
from ayder_cli.tools.walk import scan
from ayder_cli.wording import counted

TREE_MAX_LINES = 400
TREE_MAX_PER_DIR = 40
DEFAULT_DEPTH = 3


def get_project_structure(context: ToolContext, args: dict[str, Any], deadline: Deadline | None = None) -> ToolResult:
    depth = max(1, args.get("max_depth", DEFAULT_DEPTH))
    rules = IgnoreRules.for_root(context.root)
    return project_tree(rules, depth, deadline or Deadline(context.tool_timeout_s, context.clock))


@dataclass
class _Node:
    rel: str
    name: str
    is_dir: bool  # shown with a trailing /
    expandable: bool  # a real directory, not a link to one (links are never followed)
    children: list["_Node"] | None = None  # None: not expanded
    hidden: int = 0  # entries beyond the per-directory cap
    count: int | None = None  # entries of an unexpanded directory, when known


def project_tree(rules: IgnoreRules, max_depth: int, deadline: Deadline = NEVER) -> ToolResult:
    """Level by level, so a cut keeps every top-level directory rather than the first few in full.
    Past the `deadline` (checked after each directory read) the tree shown is what was read."""
    top = _Node("", ".", True, True)
    level, depth, used, cut_at = [top], 0, 0, 0
    while level and depth < max_depth:
        planned = []
        for node in level:
            planned.append((node, _children(rules, node)))
            if deadline.passed():
                break
        adding = sum(len(shown) + (1 if hidden else 0) for _, (shown, hidden, _) in planned)
        if depth and used + adding > TREE_MAX_LINES:
            for node, (_, _, total) in planned:
                node.count = total
            cut_at = depth
            break
        level = []
        for node, (shown, hidden, _) in planned:
            node.children, node.hidden = shown, hidden
            level += [child for child in shown if child.expandable]
        used += adding
        depth += 1
        if deadline.hit:
            break
    else:
        for node in level:  # at the depth limit: say how much each holds
            node.count = _children(rules, node)[2]
    lines: list[str] = []
    _render(top, 0, lines)
    if not lines:
        lines.append("[empty project]")
    if cut_at:
        lines.append(f"[shown to depth {cut_at} to stay under {TREE_MAX_LINES} lines; "
                     "use list_files or a smaller max_depth]")
    if deadline.hit:
        lines.append(deadline.note(f"{used} entries"))
        return ToolResult(ok=True, output="\n".join(lines),
                          summary=f"stopped after {deadline.seconds:g} s: {used} entries")
    return ToolResult(ok=True, output="\n".join(lines), summary=f"{used} entries")


def _children(rules: IgnoreRules, node: _Node) -> tuple[list[_Node], int, int]:
    """(the entries shown, how many more, the total) of a directory, directories first."""
    try:
        entries, _ = scan(rules, node.rel)
    except OSError:
        return [], 0, 0
    nodes = [_Node(entry.rel, entry.name, entry.points_to_dir(), entry.kind == "dir") for entry in entries]
    nodes.sort(key=lambda item: (not item.is_dir, item.name))
    return nodes[:TREE_MAX_PER_DIR], max(0, len(nodes) - TREE_MAX_PER_DIR), len(nodes)


def _render(node: _Node, depth: int, lines: list[str]) -> None:
    indent = "  " * (depth - 1)
    if depth:
        text = f"{indent}{node.name}/" if node.is_dir else f"{indent}{node.name}"
        if node.expandable and node.children is None and node.count:
            text += f" ({counted(node.count, 'entry', 'entries')})"
        lines.append(text)
    for child in node.children or ():
        _render(child, depth + 1, lines)
    if node.hidden:
        lines.append(f"{'  ' * depth}… {node.hidden} more")


GET_PROJECT_STRUCTURE = ToolSpec(
    name="get_project_structure",
    description=f"Indented tree of the project's directories and files, {DEFAULT_DEPTH} levels unless max_depth.",
    parameters={
        "type": "object",
        "properties": {"max_depth": {"type": "integer"}},
        "additionalProperties": False,
    },
    permission="r",
    run=get_project_structure,
    aliases={"depth": "max_depth"},
    group="files",
)
