"""The shape of the code, checked: a newcomer finds things where the README's "How it is built" says.

These read the source (AST), not the behaviour: each guards a promise of the README's
layout that a later change could quietly break (a module grown past 400 lines, an arrow
pointing up, a provider named outside its record, a retired word back in a name).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest
from support.source_trees import parsed

PACKAGE = Path(__file__).resolve().parents[2] / "ayder_cli"
LEAVES = {"errors", "calls", "wording", "spelling", "masking", "partial", "tool_groups", "edit_formats", "__init__"}
MAX_LINES = 400
SMALLER = {"ayder_cli.intents.scanner": 300}  # the scanner reads every reply: kept small enough to read in one go


@functools.cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules `path` imports anywhere in it (inside functions too), resolved to modules."""
    found = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from a import b`: the module a.b where b is one, else a itself
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                     for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name.startswith("ayder_cli."):
                found.add(name)
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(path, known) - {name} for name, path in known.items()}


def area(module: str) -> str:
    """The first name below ayder_cli: a package (agent, tools, ...) or a top-level module."""
    return module.split(".")[1] if "." in module else "ayder_cli"


def test_the_top_level_holds_only_the_entry_point_and_leaves():
    top = sorted(path.stem for path in PACKAGE.glob("*.py"))
    assert len(top) <= 11, top
    assert set(top) - LEAVES <= {"cli", "__main__"}, top


def test_no_two_modules_share_a_name():
    # A name found by search, in a traceback or in the README's layout leads to one file.
    by_name: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_is_over_400_lines(name):
    lines = modules()[name].read_text(encoding="utf-8").count("\n")
    assert lines <= SMALLER.get(name, MAX_LINES), f"{name}: {lines} lines"


def test_chatloop_is_the_message_loop_only():
    tree = parsed(PACKAGE / "agent" / "loop.py")
    loop = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ChatLoop")
    methods = [node for node in loop.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert loop.end_lineno - loop.lineno + 1 <= 250
    assert len(methods) <= 20, [method.name for method in methods]


RUNTIME_OWNER = "ayder_cli.session.session"  # the Session and its RuntimeHold: the one writer of the runtime


def attribute_writes(tree: ast.AST) -> list[tuple[ast.Attribute, int]]:
    """Every `x.name = ...` (also `+=`, annotated, in a tuple) and setattr(x, ...) in `tree`, with its line."""
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
            found.append((ast.Attribute(value=node.args[0], attr="?"), node.lineno))
        while targets:
            target = targets.pop()
            if isinstance(target, (ast.Tuple, ast.List)):
                targets += list(target.elts)
            elif isinstance(target, ast.Attribute):
                found.append((target, node.lineno))
    return found


def test_only_the_session_writes_the_runtime():
    """The runtime is assigned in the Session's module only; nothing assigns another object's config (the
    context keeper asks the Session to narrow the window) and no property gives the runtime or config a setter."""
    writers = []
    for name, path in modules().items():
        tree = parsed(path)
        for target, line in attribute_writes(tree):
            if target.attr in ("runtime", "_runtime") and name != RUNTIME_OWNER:
                writers.append(f"{name}:{line} .{target.attr} =")
            if target.attr == "config" and not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                writers.append(f"{name}:{line} {ast.unparse(target)} =")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("runtime", "config") and any(
                    isinstance(d, ast.Attribute) and d.attr == "setter" for d in node.decorator_list):
                writers.append(f"{name}:{node.lineno} a {node.name} setter")
    assert writers == []


def construction_faults(function: ast.FunctionDef) -> list[str]:
    """What in `function` is not construction in order: an attribute set on an object (patching after
    building it), or a lambda or inner function that names a local assigned only after it (a forward reference)."""
    faults = [f"{function.name}:{line} {ast.unparse(target.value)}.{target.attr} set"
              for target, line in attribute_writes(function)]
    first_set: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            first_set[node.id] = min(first_set.get(node.id, node.lineno), node.lineno)
    for inner in ast.walk(function):
        if inner is function or not isinstance(inner, (ast.Lambda, ast.FunctionDef)):
            continue
        faults += [f"{function.name}:{inner.lineno} uses {node.id} before it is built"
                   for node in ast.walk(inner) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                   and first_set.get(node.id, 0) > inner.lineno]
    return faults


def test_the_session_is_built_whole_with_nothing_patched_afterwards():
    tree = parsed(PACKAGE / "session" / "services.py")
    build = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "build_session")
    assert construction_faults(build) == []


def test_construction_faults_sees_patching_and_a_forward_reference():
    # The shape build_services had: a lambda over `loop` before `loop` exists, and an object patched later.
    before = ast.parse("def build():\n    c = C()\n    v = V(window=lambda: loop.n)\n    loop = L(c, v)\n"
                       "    c.on_message = loop.record\n    return loop\n").body[0]
    assert construction_faults(before) == ["build:5 c.on_message set", "build:3 uses loop before it is built"]


def test_there_is_no_import_cycle_counting_imports_inside_functions():
    edges = graph()
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                cycle = path[path.index(target):] + [target] if target in path else [node, target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, path + [target])
        state[node] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])


# The packages from the bottom of the stack to the top: each imports only from the layers below its own
# (and from itself); two parts of one layer do not import each other. A new package gets a place here.
LAYERS = (
    {"leaves"},
    {"llm", "intents", "storage"},
    {"processes", "command_policy", "matching"},  # engines the tools (and the terminal, !cmd) use
    {"tools"},
    {"mcp_servers", "lsp", "skills"},  # beside the tools: MCP servers' tools, language servers, the skills' tool
    {"config"},
    {"terminal", "agent"},
    {"session"},
    {"repl"},
    {"modes", "acp"},  # the front ends: the terminal modes, and ACP for editors
    {"cli"},
    {"__main__"},
)
LAYER_OF = {part: number for number, layer in enumerate(LAYERS) for part in layer}


def kind(module: str) -> str:
    name = area(module)
    leaves = {f"ayder_cli.{leaf}" for leaf in LEAVES} | {"ayder_cli"}
    return "leaves" if name in LEAVES or module in leaves else name


def test_every_package_has_its_place_in_the_layers():
    assert sorted({kind(name) for name in modules()} - LAYER_OF.keys()) == []


@pytest.mark.parametrize("part", sorted(LAYER_OF))
def test_each_part_imports_only_the_layers_below_it(part):
    upward = sorted(f"{source} -> {target}" for source, targets in graph().items() if kind(source) == part
                    for target in targets if kind(target) != part and LAYER_OF[kind(target)] >= LAYER_OF[part])
    assert upward == []


def test_there_is_no_cycle_between_packages():
    folded: dict[str, set[str]] = {}
    for source, targets in graph().items():
        part = kind(source)
        folded.setdefault(part, set()).update(kind(target) for target in targets if kind(target) != part)
    seen: set[str] = set()
    for start in sorted(folded):
        stack, path = [(start, iter(sorted(folded[start])))], [start]
        while stack:
            node, targets = stack[-1]
            target = next(targets, None)
            if target is None:
                stack.pop()
                path.pop()
                seen.add(node)
            elif target in path:
                pytest.fail("package cycle: " + " -> ".join(path[path.index(target):] + [target]))
            elif target not in seen:
                stack.append((target, iter(sorted(folded.get(target, ())))))
                path.append(target)


def test_nothing_below_the_modes_imports_a_mode_or_the_command():
    upward = sorted(f"{source} -> {target}" for source, targets in graph().items()
                    if kind(source) not in {"modes", "cli", "__main__", "leaves"}
                    for target in targets if kind(target) in {"modes", "cli"})
    assert upward == []


def test_only_the_mcp_adapter_imports_the_mcp_sdk():
    # The SDK is an optional extra (pip install -e '.[mcp]') and heavy: one module loads it, late.
    importing = sorted(name for name, path in modules().items()
                       if re.search(r"^\s*(from mcp[ .]|import mcp\b)", path.read_text(encoding="utf-8"), re.M))
    assert importing in ([], ["ayder_cli.mcp_servers.adapter"]), importing


# A provider's name in a string: alone ("ollama", "[ollama|openai]", "-p openai"), not inside a longer name, a
# URL or a path (openai_compat, OPENAI_BASE_URL, api.openai.com, llm.ollama:OllamaClient), nor the ollama
# program's command line (`ollama serve`, ollama pull). Capitalised, it is prose: "cannot reach Ollama".
PROVIDER_NAME = re.compile(r"(?<![\w./:-])(?:ollama|openai)(?![\w./:-])"
                           r"(?! (?:serve|pull|run|create|show|list|ps|stop|rm|cp|push)\b)")


def provider_names_in(source: str | ast.Module) -> list[int]:
    """The lines of the strings in `source` (or its tree) that name a provider; docstrings, which explain,
    left out."""
    tree = ast.parse(source) if isinstance(source, str) else source
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return sorted({node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant)
                   and isinstance(node.value, str) and id(node) not in docstrings and PROVIDER_NAME.search(node.value)})


@pytest.mark.parametrize("source, lines", [
    ('if provider == "openai":\n    pass', [1]),
    ('CHOICES = ["ollama", "openai"]', [1]),
    ('usage = "[ollama|openai]"\nhint = f"an OpenAI-compatible API (-p openai) at {url}"', [1, 2]),
    ('HOST = "https://api.openai.com/v1"\nCLIENT = "ayder_cli.llm.openai_compat:OpenAIClient"', []),
    ('hint = "start it with `ollama serve`"\nFETCH = "ollama pull {model}"\nVAR = "OPENAI_BASE_URL"', []),
    ('said = "cannot reach Ollama at the URL"\nkind = "OpenAI-compatible"', []),
    ('def f():\n    """Ask ollama, then openai."""', []),
])
def test_the_provider_name_check_finds_names_and_only_names(source, lines):
    assert provider_names_in(source) == lines


def test_provider_names_are_written_only_in_the_provider_record():
    naming = sorted(f"{name}:{line}" for name, path in modules().items() if name != "ayder_cli.llm.providers"
                    for line in provider_names_in(parsed(path)))
    assert naming == []


def test_only_storage_builds_a_path_under_dot_ayder():
    """A path into .ayder/ is built in storage/ (its Layout); elsewhere .ayder is only named in prose."""
    builders = []
    for name, path in modules().items():
        if area(name) == "storage":
            continue
        for node in ast.walk(parsed(path)):
            parts = []
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                parts = [node.left, node.right]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "Path", "joinpath", "open"):
                parts = node.args
            if any(isinstance(part, ast.Constant) and isinstance(part.value, str)
                   and part.value.startswith(".ayder") for part in parts):
                builders.append(f"{name}:{node.lineno}")
    assert builders == []


# Words the README's glossary retired, each for the name that says what it holds.
RETIRED = {
    "AssistantTurn": "Reply",
    "IterationController": "MessageBudget",
    "TurnBudget": "MessageBudget",
    "MemoryManager": "CheckpointStore",
    "cut_off": "stream_cut (the stream broke) or hit_max_tokens (the reply reached max_tokens)",
    "Window": "ScanBuffer",
    "Outcome": "Verdict or EntryOutcome",
    "Invocation": "Environment",
    "Budget": "MessageBudget (a message's round trips) or WindowShare (a window's prompt and reply)",
    "Services": "Session",
    "build_services": "build_session",
}


def names_in(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
    return found


def test_retired_words_are_not_back_in_the_code():
    back = sorted(f"{name}: {word} (now {RETIRED[word]})" for name, path in modules().items()
                  for word in names_in(parsed(path)) & RETIRED.keys())
    assert back == []


def packages() -> list[Path]:
    return sorted(path.parent for path in PACKAGE.rglob("__init__.py") if path.parent != PACKAGE)


def may_import(package: Path) -> set[str]:
    """The parts a package's docstring says it may import ("May import: the leaves, llm, storage.")."""
    doc = ast.get_docstring(parsed(package / "__init__.py")) or ""
    said = re.search(r"^May import: (.*?)\.?\n(?:\n|\(The layers)", doc, re.M | re.S)
    assert said, f"{package.relative_to(PACKAGE)}/__init__.py has no 'May import:' line"
    return {"leaves" if part == "the leaves" else part for part in " ".join(said.group(1).split()).split(", ")}


@pytest.mark.parametrize("package", packages(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_each_package_says_what_it_holds(package):
    """The map lives with the code: each package's __init__ names every module and folder in it."""
    doc = ast.get_docstring(parsed(package / "__init__.py")) or ""
    held = [path.name for path in package.glob("*.py") if path.name != "__init__.py"]
    held += [f"{path.name}/" for path in package.iterdir() if (path / "__init__.py").exists()]
    assert sorted(name for name in held if not re.search(rf"^\s+{re.escape(name)}(\s|$)", doc, re.M)) == []


@pytest.mark.parametrize("package", [path for path in packages() if path.parent == PACKAGE],
                         ids=lambda path: path.name)
def test_each_package_says_what_it_may_import_and_it_is_below_it(package):
    said = may_import(package)
    below = {part for part in LAYER_OF if LAYER_OF[part] < LAYER_OF[package.name]}
    assert said - below == set(), f"{package.name} says it may import a part not below it"
    imported = {kind(target) for source, targets in graph().items() if kind(source) == package.name
                for target in targets} - {package.name}
    assert imported - said == set(), f"{package.name}/__init__.py does not say it imports these"
