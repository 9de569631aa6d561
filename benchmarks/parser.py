"""Parser benchmark: is the intent parser fast, and linear in the reply, on real and hostile text?

Run:  python benchmarks/parser.py [--repeats N] [--delta N] [--held-kb N] [--only SECTION] [--strict]

1. Throughput of parse(text, tools) on a 1 MB reply holding 1,000 tool calls
   (the [CALL], Qwen3 XML, Hermes JSON and ```tool formats with prose between
   them) and on 1 MB of markdown-ish prose with no call. The floor is one
   re.finditer pass over the same text with a pattern that stops on line
   breaks, backticks, '<' and '[' ("[\\n`<\\[]"), counting matches, in the same run.
2. Hostile shapes at 0.25, 0.5 and 1 MB: unclosed tags, broken calls, one huge
   value, long runs of markup characters. Linear work means time(1 MB) /
   time(0.25 MB) is about 4; above 6 is flagged NOT LINEAR.
3. StreamFilter fed a 1 MB reply in tiny deltas (4 characters): the time per
   delta over the first 64 KB and over the last 64 KB before 1 MB. It must
   not grow with the length of the reply; a ratio above 2 is flagged GROWING.
   Then the hostile runs the filter holds while it waits (whitespace after a
   tag, a line of backticks), streamed the same way, 64 KB long (--held-kb).
4. Per dialect: a 1 MB reply written in each dialect the parser reads (the
   renderers of tests/support/dialect_renderers.py), prose paragraphs between the
   calls (replies that must be nothing but calls, a JSON or Python list, are
   one long list). parse(text, tools) against the same floor, flagged SLOW
   above 10x it or when the call count is off; then the same replies streamed
   in 4-character deltas, first and last 64 KB, flagged GROWING above 2.

Nothing is asserted; the script prints tables. Exit status is 0 whatever the
result, unless --strict is given (then 1 if anything is flagged or a count is off).
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import sys
import time
from pathlib import Path

MB = 1 << 20
KB = 1 << 10
SIZES = (0.25, 0.5, 1.0)
LINEAR_LIMIT = 6.0  # time(1 MB) / time(0.25 MB); 4 is linear, 16 quadratic
SLOW_LIMIT = 10.0  # parse time / floor time on a reply written in one dialect
GROWTH_LIMIT = 2.0  # per-delta time late in the reply / early in it
WINDOW = 64 * KB
# The floor stops on the characters a scanner of markdown-ish replies must look at: line breaks,
# backticks, '<' and '['. (The scanner itself no longer stops on line breaks; the floor is kept the
# same so figures compare across versions.)
FLOOR_PATTERN = re.compile(r"[\n`<\[]")


def _schema(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required}}}


TOOLS = [
    _schema("read_file", "Read a text file, optionally a range of lines.", {
        "file_path": {"type": "string", "description": "Path relative to the project root."},
        "start_line": {"type": "integer", "description": "First line, 1-based."},
        "end_line": {"type": "integer", "description": "Last line, inclusive."},
    }, ["file_path"]),
    _schema("write_file", "Create or overwrite a file with the given content.", {
        "file_path": {"type": "string", "description": "Path relative to the project root."},
        "content": {"type": "string", "description": "The whole new content of the file."},
    }, ["file_path", "content"]),
    _schema("list_files", "List the files under a directory.", {
        "path": {"type": "string", "description": "Directory, relative to the project root."},
        "recursive": {"type": "boolean", "description": "Descend into subdirectories."},
    }, ["path"]),
    _schema("run_shell", "Run a shell command in the project directory.", {
        "command": {"type": "string", "description": "The command line."},
        "timeout": {"type": "number", "description": "Seconds before the command is stopped."},
    }, ["command"]),
    _schema("search_code", "Search the project for a regular expression.", {
        "pattern": {"type": "string", "description": "A Python regular expression."},
        "path": {"type": "string", "description": "Where to search."},
        "max_results": {"type": "integer", "description": "At most this many matches."},
    }, ["pattern"]),
]


# --------------------------------------------------------------------------- text makers

WORDS = ("the parser reads each reply once and keeps only what it still needs while the "
         "model writes so a long answer costs no more per token than a short one when "
         "tests pass we move on otherwise we read the failing case again and fix the "
         "function that handles it before touching anything else").split()


def sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(6, 16))
    extra = rng.random()
    if extra < 0.25:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(WORDS)}()`")
    elif extra < 0.4:
        words.insert(rng.randrange(len(words)), f"a < b{rng.randint(0, 9)}")
    elif extra < 0.5:
        words.insert(rng.randrange(len(words)), f"[{rng.choice(WORDS)}](https://example.com/{rng.randint(1, 99)})")
    elif extra < 0.55:
        words.insert(rng.randrange(len(words)), "x<y>z")
    return " ".join(words).capitalize() + "."


def prose_block(rng: random.Random) -> str:
    """A paragraph, a list, a heading or a closed code fence, ending with a newline."""
    kind = rng.random()
    if kind < 0.45:
        return " ".join(sentence(rng) for _ in range(rng.randint(2, 5))) + "\n\n"
    if kind < 0.7:
        return "".join(f"- {sentence(rng)}\n" for _ in range(rng.randint(2, 4))) + "\n"
    if kind < 0.8:
        return f"## Step {rng.randint(1, 40)}: {rng.choice(WORDS)} `{rng.choice(WORDS)}`\n\n"
    if kind < 0.85:
        return f"[note] {sentence(rng)}\n<br> {sentence(rng)}\n\n"
    lines = [f"def {rng.choice(WORDS)}_{n}(items: list[int]) -> bool:\n"
             f"    return len(items) < {rng.randint(2, 90)} and items[0] > 0  # `ok`\n"
             for n in range(rng.randint(1, 3))]
    return "```python\n" + "".join(lines) + "```\n\n"


def prose(rng: random.Random, size: int) -> str:
    parts, total = [], 0
    while total < size:
        block = prose_block(rng)
        parts.append(block)
        total += len(block)
    return "".join(parts)


def call_text(rng: random.Random, index: int) -> str:
    """One call, in one of the formats, on lines of its own."""
    n = rng.randint(1, 999)
    kind = index % 5
    if kind == 0:
        return f'[CALL] read_file {{"file_path": "src/mod_{n}.py", "start_line": {n}, "end_line": {n + 40}}}\n'
    if kind == 1:
        body = "".join(f"    if a < b and [a] != [b]:  # case {k}\n        return \"<ok>\"\n" for k in range(3))
        return (f"<tool_call>\n<function=write_file>\n<parameter=file_path>\nsrc/gen_{n}.py\n</parameter>\n"
                f"<parameter=content>\ndef f_{n}(a, b):\n{body}    return a\n</parameter>\n"
                f"</function>\n</tool_call>\n")
    if kind == 2:
        return ('<tool_call>\n{"name": "search_code", "arguments": {"pattern": "def \\\\w+\\\\(", '
                f'"path": "src/pkg_{n}", "max_results": {n}}}}}\n</tool_call>\n')
    if kind == 3:
        return (f"<function=run_shell>\n<parameter=command>\npytest -q tests/test_{n}.py -k \"not slow\"\n"
                f"</parameter>\n<parameter=timeout>\n{n}.5\n</parameter>\n</function>\n")
    return (f'```tool\n{{"name": "list_files", "arguments": {{"path": "pkg_{n}/sub", "recursive": true}}}}\n'
            "```\n")


def reply_with_calls(size: int, calls: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    call_parts = [call_text(rng, i) for i in range(calls)]
    per_gap = max(0, (size - sum(map(len, call_parts))) // (calls + 1))
    parts = []
    for call in call_parts:
        parts += [prose(rng, per_gap), call, "\n"]
    parts.append(prose(rng, per_gap))
    return "".join(parts)


def code_lines(size: int) -> str:
    """Code-like text with '<', '[', quotes and newlines, about `size` characters."""
    line = 'for (i = 0; i < n; i++) { if (a[i] <= b[i]) out.push("<" + a[i] + ">"); }\n'
    return (line * (size // len(line) + 1))[:size]


def scaled(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


XML_HEAD = "<function=write_file>\n<parameter=file_path>\nbig.txt\n</parameter>\n<parameter=content>\n"
XML_TAIL = "\n</parameter>\n</function>\n"


def hermes_body(size: int) -> str:
    unit = 'say \\"hi\\" to <b> \\\\ path\\\\to\\\\x \\n [ok] {\\"k\\": 1}\\n'
    inner = scaled(unit, size)
    return ('<tool_call>\n{"name": "write_file", "arguments": {"file_path": "q.txt", "content": "'
            + inner + '"}}\n</tool_call>\n')


def thoughts(size: int, seed: int = 3) -> str:
    return prose(random.Random(seed), size)


# Each hostile shape: (label, text of about `size` characters).
ADVERSARIAL = [
    ("unclosed '<function=x' lines", lambda n: scaled("<function=x\n", n)),
    ("[CALL] lines with broken JSON", lambda n: scaled('[CALL] read_file {"file_path": "a\n', n)),
    ("one huge <parameter> value", lambda n: XML_HEAD + code_lines(n) + XML_TAIL),
    ("a run of '<'", lambda n: "<" * n),
    ("a run of '[' on one line", lambda n: "x" + "[" * n),
    ("'[' at the start of every line", lambda n: scaled("[\n", n)),
    ("a line of backticks", lambda n: "`" * n),
    ("inline backticks on one line", lambda n: scaled("`x", n)),
    ("huge Hermes JSON body, escapes", hermes_body),
    ("1 MB think block", lambda n: "<think>\n" + thoughts(n) + "</think>\nDone.\n"),
    ("unclosed think block", lambda n: "<think>\n" + thoughts(n)),
    ("text, then a lone </think>", lambda n: thoughts(n) + "</think>\nDone.\n"),
    ("'<tool_call>' mentioned in prose", lambda n: scaled("see <tool_call> here\n", n)),
    ("'<function=x>' mentioned in prose", lambda n: scaled("use <function=x> tags\n", n)),
    ("'[CALL]' mentioned in prose", lambda n: scaled("[CALL] is how we call\n", n)),
    ("fake closers inside one value", lambda n: XML_HEAD + scaled("a </parameter> b\n", n) + XML_TAIL),
    ("mid-line <parameter= in one value", lambda n: XML_HEAD + scaled("x <parameter=x> y\n", n) + XML_TAIL),
    ("unclosed ```tool fence", lambda n: "```tool\n" + scaled("x ``` y\n", n)),
    ("whole reply '[{' that is no JSON", lambda n: "[{" + scaled("a < b\n", n)),
    ("SEARCH/REPLACE blocks one after another", lambda n: scaled("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n"
                                                                  ">>>>>>> REPLACE\n", n)),
    ("one huge SEARCH part, never closed", lambda n: "a.py\n<<<<<<< SEARCH\n" + code_lines(n)),
    ("path lines over small fences", lambda n: scaled("a.py\n```\nx\n```\n", n)),
    # Runs a scanner may hold while it waits to see what comes after them:
    ("``` and a huge info line", lambda n: "```" + "x" * n),
    ("a line of backticks in a fence", lambda n: "```\n" + "`" * n),
    ("a fence's huge first line", lambda n: "```\n" + "x" * n),
    ("'[' then newlines (reply start)", lambda n: "[" + "\n" * n),
    ("<tool_call> then newlines", lambda n: "<tool_call>" + "\n" * n),
    ("<function=x> then newlines", lambda n: "<function=x>" + "\n" * n),
    ("<function_calls> then newlines", lambda n: "<function_calls>" + "\n" * n),
    ("</parameter> then newlines", lambda n: XML_HEAD + "v\n</parameter>" + "\n" * n),
    ("</function> then newlines", lambda n: XML_HEAD + "v\n</parameter>\n</function>" + "\n" * n),
]


# Hostile shapes that are also streamed (section 3, second table): the filter holds them.
HELD_STREAMED = (
    "a line of backticks", "a line of backticks in a fence", "``` and a huge info line", "a fence's huge first line",
    "one huge SEARCH part, never closed",
    "'[' then newlines (reply start)", "<tool_call> then newlines", "<function=x> then newlines",
    "<function_calls> then newlines", "</parameter> then newlines", "</function> then newlines",
)


def streamed_cases(size: int) -> list[tuple[str, str, dict]]:
    """(label, reply, StreamFilter options) for the streaming table."""
    return [
        ("prose with a few calls", reply_with_calls(size, 8, seed=5), {"think_open": False}),
        ("one big tool call (XML value)", XML_HEAD + code_lines(size) + XML_TAIL, {"think_open": False}),
        ("one big tool call (Hermes JSON)", hermes_body(size), {"think_open": False}),
        ("a 1 MB think block", "<think>\n" + thoughts(size) + "</think>\nDone.\n", {"think_open": False}),
        ("prose, think_open=None (held)", reply_with_calls(size, 8, seed=6), {"think_open": None}),
    ]


# --------------------------------------------------------------------------- replies in every dialect


def dialect_renderers():
    """tests/support/dialect_renderers.py: how each model family writes its calls (shared with the property tests)."""
    tests_dir = str(Path(__file__).resolve().parent.parent / "tests")
    if tests_dir not in sys.path:
        sys.path.insert(0, tests_dir)
    from support import dialect_renderers

    return dialect_renderers


def code_value(rng: random.Random, n: int) -> str:
    """A few lines of code, as a write_file call carries them: quotes, brackets, '<', no edge whitespace."""
    body = "".join(f"    if a < b{k} and [a] != [\"x\"]:  # case {k}\n        return {{'ok': \"<b>\"}}\n"
                   for k in range(rng.randint(1, 4)))
    return f"def f_{n}(a, b):\n{body}    return a"


def realistic_call(rng: random.Random, index: int) -> tuple[str, dict]:
    """One call to one of TOOLS, with values every dialect can carry under TOOLS' schemas."""
    n = rng.randint(1, 999)
    kind = index % 5
    if kind == 0:
        return "read_file", {"file_path": f"src/mod_{n}.py", "start_line": n, "end_line": n + 40}
    if kind == 1:
        return "write_file", {"file_path": f"src/gen_{n}.py", "content": code_value(rng, n)}
    if kind == 2:
        return "search_code", {"pattern": "def \\w+\\(", "path": f"src/pkg_{n}", "max_results": n}
    if kind == 3:
        return "run_shell", {"command": f'pytest -q tests/test_{n}.py -k "not slow"', "timeout": n + 0.5}
    return "list_files", {"path": f"pkg_{n}/sub", "recursive": True}


def dialect_reply(dialect: str, size: int, seed: int = 11) -> tuple[str, int]:
    """About `size` characters of reply in `dialect`, and how many calls it holds.

    Calls come in groups of one to three (one block, or one section, per group),
    a group about every 1.5 KB, with prose between them; a dialect whose calls
    must be the whole reply (or its end) gets one list of as many calls as fill `size`.
    """
    renderers = dialect_renderers()
    render, _ = renderers.RENDERERS[dialect]
    end_token = renderers.END_TOKEN.get(dialect, "")
    rng = random.Random(seed)
    if dialect in renderers.WHOLE_REPLY or dialect in renderers.LAST_IN_REPLY:
        calls, total = [], 0
        while total < size:
            calls.append(realistic_call(rng, len(calls)))
            total += len(render(calls[-1:])) + 2
        before = prose(rng, 1500) + "\n" if dialect in renderers.LAST_IN_REPLY else ""  # prose may only come first
        return before + render(calls), len(calls)
    groups, index = [], 0
    for _ in range(size // 1500):
        group = [realistic_call(rng, index + k) for k in range(rng.randint(1, 3))]
        index += len(group)
        groups.append(render(group) + end_token)
    per_gap = max(0, (size - sum(map(len, groups))) // (len(groups) + 1))
    parts = []
    for group in groups:
        parts += [prose(rng, per_gap), group, "\n"]
    parts.append(prose(rng, per_gap))
    return "".join(parts), index


# --------------------------------------------------------------------------- timing


def best_time(run, repeats: int, budget_s: float = 3.0) -> tuple[float, object]:
    """Best wall time of up to `repeats` runs (fewer once `budget_s` is spent), and the last result."""
    best, spent, result = float("inf"), 0.0, None
    for _ in range(repeats):
        started = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - started
        best, spent = min(best, elapsed), spent + elapsed
        if spent > budget_s:
            break
    return best, result


def floor_count(text: str) -> int:
    return sum(1 for _ in FLOOR_PATTERN.finditer(text))


def stream_windows(text: str, delta: int, options: dict,
                   window: int = WINDOW) -> tuple[float, float, float, list, object]:
    """Feed `text` in `delta`-character pieces; seconds per delta early and late, total, output, filter."""
    from ayder_cli.intents import StreamFilter

    size = len(text)
    late_from = max(window, size - window)
    cuts = list(range(0, size, delta))
    flt = StreamFilter(TOOLS, **options)
    feed = flt.feed
    gc.collect()  # a full collection of what earlier cases left would land in one window by chance
    gc.disable()  # as timeit does: the windows compare the filter's own work
    out: list = []
    early = late = 0.0
    early_n = late_n = 0
    started = time.perf_counter()
    for at in cuts:
        piece = text[at : at + delta]
        before = time.perf_counter()
        out += feed(piece)
        spent = time.perf_counter() - before
        if at < window:
            early, early_n = early + spent, early_n + 1
        elif at >= late_from:
            late, late_n = late + spent, late_n + 1
    out += flt.finish()
    total = time.perf_counter() - started
    gc.enable()
    return early / max(early_n, 1), late / max(late_n, 1), total, out, flt


# --------------------------------------------------------------------------- the report


def throughput(options: argparse.Namespace) -> bool:
    from ayder_cli.intents import parse

    size = int(options.size_mb * MB)
    cases = [
        (f"{options.size_mb:g} MB reply, 1,000 calls", reply_with_calls(size, 1000), 1000),
        (f"{options.size_mb:g} MB of prose", prose(random.Random(2), size), 0),
    ]
    print(f"1. Throughput: parse(text, tools) vs one re.finditer pass over the same text "
          f"(best of up to {options.repeats})")
    header = (f"{'input':<26} {'size MB':>7} {'floor MB/s':>10} {'parse MB/s':>10} {'parse/floor':>11}  "
              f"{'calls':>12}  {'errors':>6}")
    print(header)
    print("-" * len(header))
    bad = False
    for label, text, expected in cases:
        floor_s, matches = best_time(lambda: floor_count(text), options.repeats)
        parse_s, reply = best_time(lambda: parse(text, TOOLS), options.repeats)
        megabytes = len(text.encode()) / MB
        found = len(reply.calls)
        ok = found == expected and not reply.errors
        bad |= not ok
        calls = f"{found}/{expected} {'ok' if found == expected else 'OFF'}"
        print(f"{label:<26} {megabytes:7.2f} {megabytes / floor_s:10.1f} {megabytes / parse_s:10.2f} "
              f"{parse_s / floor_s:10.0f}x  {calls:>12}  {len(reply.errors):>6}")
        if reply.errors:
            print(f"    first error: {reply.errors[0][:120]}")
        print(f"    ({matches:,} floor matches; parse {parse_s * 1000:.0f} ms, floor {floor_s * 1000:.1f} ms)")
    return bad


def linearity(options: argparse.Namespace) -> bool:
    from ayder_cli.intents import parse

    print(f"\n2. Hostile inputs: parse(text, tools) time at each size (best of up to {options.repeats}); "
          f"time(1 MB)/time(0.25 MB) is 4 if linear, flagged above {LINEAR_LIMIT:g}")
    sizes = "".join(f"{f'{s:g} MB ms':>11}" for s in SIZES)
    header = f"{'input':<36}{sizes} {'ratio':>6} {'vs floor':>9}  result"
    print(header)
    print("-" * len(header))
    bad = False
    for label, make in ADVERSARIAL:
        times = []
        for fraction in SIZES:
            text = make(int(fraction * MB))
            elapsed, _ = best_time(lambda: parse(text, TOOLS), options.repeats)
            times.append(elapsed)
        floor_s, _ = best_time(lambda: floor_count(text), options.repeats)
        ratio = times[-1] / times[0]
        flagged = ratio > LINEAR_LIMIT
        bad |= flagged
        cells = "".join(f"{t * 1000:11.1f}" for t in times)
        print(f"{label:<36}{cells} {ratio:6.1f} {times[-1] / floor_s:8.0f}x  "
              f"{'NOT LINEAR' if flagged else 'linear'}", flush=True)
    return bad


def streaming(options: argparse.Namespace) -> bool:
    size = int(options.size_mb * MB)
    print(f"\n3. StreamFilter, a {options.size_mb:g} MB reply fed in {options.delta}-character deltas: "
          f"µs per delta over the first {WINDOW // KB} KB and the last {WINDOW // KB} KB; "
          f"flagged above {GROWTH_LIMIT:g}x")
    bad = stream_table(streamed_cases(size), options.delta, WINDOW)
    held = options.held_kb * KB
    window = held // 8
    print(f"\n   Runs the filter holds while it waits to see what follows them, streamed the same way but "
          f"only {options.held_kb} KB long\n   (first and last {window // KB} KB; --held-kb):")
    cases = [(label, make(held), {"think_open": False}) for label, make in ADVERSARIAL
             if label in HELD_STREAMED]
    return stream_table(cases, options.delta, window) or bad


def stream_table(cases: list[tuple[str, str, dict]], delta: int, window: int) -> bool:
    from ayder_cli.intents import parse

    header = (f"{'reply':<32} {'first µs':>9} {'last µs':>9} {'ratio':>6} {'total s':>8}  "
              f"{'= parse()':>9}  result")
    print(header)
    print("-" * len(header))
    bad = False
    for label, text, flt_options in cases:
        early, late, total, out, flt = stream_windows(text, delta, flt_options, window)
        shown = "".join(piece for kind, piece in out if kind == "text")
        whole = parse(text, TOOLS, **flt_options)
        same = shown == whole.display and [c.name for c in flt.found.calls] == [c.name for c in whole.calls]
        ratio = late / early
        flagged = ratio > GROWTH_LIMIT
        bad |= flagged or not same
        print(f"{label:<32} {early * 1e6:9.2f} {late * 1e6:9.2f} {ratio:6.1f} {total:8.2f}  "
              f"{'yes' if same else 'NO':>9}  {'GROWING' if flagged else 'flat'}", flush=True)
    return bad


def dialects(options: argparse.Namespace) -> bool:
    from ayder_cli.intents import parse

    size = int(options.size_mb * MB)
    names = list(dialect_renderers().RENDERERS)
    replies = {name: dialect_reply(name, size) for name in names}
    repeats = min(options.repeats, 3)  # twenty dialects: keep the section well under a minute
    print(f"\n4. Per dialect: a {options.size_mb:g} MB reply, parse(text, tools) vs one re.finditer pass over the "
          f"same text (best of up to {repeats}); flagged SLOW above {SLOW_LIMIT:g}x or when the count is off")
    header = (f"{'dialect':<18} {'size MB':>7} {'floor ms':>9} {'parse ms':>9} {'ratio':>6}  {'calls':>15}  "
              f"{'errors':>6}  result")
    print(header)
    print("-" * len(header))
    bad = False
    for name in names:
        text, expected = replies[name]
        floor_s, _ = best_time(lambda: floor_count(text), repeats)
        parse_s, reply = best_time(lambda: parse(text, TOOLS), repeats)
        found = len(reply.calls)
        ratio = parse_s / floor_s
        flags = (["SLOW"] if ratio > SLOW_LIMIT else []) + (["COUNT OFF"] if found != expected else [])
        bad |= bool(flags)
        calls = f"{found}/{expected} {'ok' if found == expected else 'OFF'}"
        print(f"{name:<18} {len(text.encode()) / MB:7.2f} {floor_s * 1000:9.1f} {parse_s * 1000:9.1f} "
              f"{ratio:5.0f}x  {calls:>15}  {len(reply.errors):>6}  {' '.join(flags) or 'ok'}", flush=True)
        if reply.errors:
            print(f"    first error: {reply.errors[0][:120]}")

    print(f"\n   The same replies streamed through StreamFilter in {options.delta}-character deltas: µs per delta "
          f"over the first {WINDOW // KB} KB and the last {WINDOW // KB} KB; flagged above {GROWTH_LIMIT:g}x")
    cases = [(name, replies[name][0], {"think_open": False}) for name in names]
    return stream_table(cases, options.delta, WINDOW) or bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per case, best kept (default 5)")
    parser.add_argument("--delta", type=int, default=4, help="characters per streamed delta (default 4)")
    parser.add_argument("--held-kb", type=int, default=64,
                        help="length of the streamed runs the filter holds (default 64)")
    parser.add_argument("--size-mb", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=("throughput", "hostile", "streaming", "dialects"),
                        help="run one section only")
    parser.add_argument("--strict", action="store_true", help="exit 1 if anything is flagged")
    options = parser.parse_args()

    import ayder_cli

    print(f"python {sys.version.split()[0]}, ayder_cli from {ayder_cli.__file__}\n")
    bad = False
    for name, section in (("throughput", throughput), ("hostile", linearity), ("streaming", streaming),
                          ("dialects", dialects)):
        if options.only in (None, name):
            bad |= section(options)
    if bad:
        print("\nsomething is flagged or a count is off"
              + ("" if options.strict else " (exit 0; use --strict to fail)"))
    return 1 if bad and options.strict else 0


if __name__ == "__main__":
    sys.exit(main())
