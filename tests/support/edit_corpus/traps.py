"""Cases of the corpus written one by one: the traps (a block that stands twice, lookalikes that
make two places equal, indentation changed inside a block) and forgiving cases the generator
does not write (a file with curly quotes, a piece of one line, tabs and spaces mixed)."""

from __future__ import annotations

from support.edit_corpus.cases import Case


def _case(name: str, text: str, old: str, new: str, expected: str | None, file_name: str = "x") -> Case:
    category = "trap: " + name.split(":")[0] if expected is None else "written: " + name.split(":")[0]
    return Case(name, category, file_name, text, old, new, expected)


TWICE = '''class Reader:
    def close(self, handle):
        if handle:
            handle.close()
        self.handle = None


def close(handle):
    if handle:
        handle.close()
'''

NESTED_TWICE = '''def outer():
    for item in items:
        if item.ready:
            send(item)
    if item.ready:
        send(item)
'''

SPACED_TWICE = '''total = price * count
if total > limit:
    warn(total)
for order in orders:
    total = price * count
    if total > limit:
        warn(total)
'''

QUOTES_TWICE = '''say("it's done")
say("it\u2019s done")
'''

PROSE = '''# Notes

The \u201cfast\u201d path isn\u2019t always faster \u2013 measure first.
Keep the \u2018slow\u2019 path for old servers\u2026
Prices\u00a0in\u00a0EUR.
'''

GO_FILE = '''func run() {
\tfor _, job := range jobs {
\t\tif job.Done {
\t\t\tcontinue
\t\t}
\t\tjob.Start()
\t}
}
'''

YAML_TWICE = '''build:
  steps:
    - run: make
test:
  steps:
    - run: make
'''

JS_RELATIVE = '''function check(value) {
  if (value) {
    return true;
  }
  return false;
}
'''

RETYPED_BLOCK = '''def area(width, height):
    result = width * height
    return result
'''

JOINED = '''total = price * count
totalprice = 0
print(total, totalprice)
'''

TRAPS = [
    # --- a block that stands twice: never pick one
    _case("ambiguous: the same lines at two indentations, the model's at a third", TWICE,
          "  if handle:\n      handle.close()\n", "  if handle:\n      handle.close(force=True)\n", None),
    _case("ambiguous: a block in a method and in a function, dedented", TWICE,
          "if handle:\nhandle.close()\n", "x\n", None),
    _case("lands: the same lines at two indentations, the model's exactly one of them", NESTED_TWICE,
          "    if item.ready:\n        send(item)\n", "    if item.ready:\n        queue(item)\n",
          NESTED_TWICE.replace("    if item.ready:\n        send(item)\n", "    if item.ready:\n        queue(item)\n")),
    _case("ambiguous: the same lines at two depths, shifted to neither", NESTED_TWICE,
          "  if item.ready:\n      send(item)\n", "  if item.ready:\n      queue(item)\n", None),
    _case("ambiguous: runs of spaces make two places equal", SPACED_TWICE,
          "total = price  *  count\nif total > limit:\n", "total = price * count * 2\nif total > limit:\n", None),
    _case("ambiguous: a lookalike apostrophe makes two lines equal", QUOTES_TWICE,
          'say(\u201cit\u2019s done\u201d)', 'say("done")', None),
    _case("ambiguous: YAML steps under two jobs, indented wrongly", YAML_TWICE,
          "  steps:\n  - run: make\n", "  steps:\n  - run: make all\n", None),
    _case("ambiguous: a single line that stands twice, indented wrongly", SPACED_TWICE,
          "          warn(total)", "          alert(total)", None),
    _case("lands: of the same lines at two indentations, the model's has trailing spaces", NESTED_TWICE,
          "    if item.ready:  \n        send(item)  \n", "    if item.ready:\n        queue(item)\n",
          NESTED_TWICE.replace("    if item.ready:\n        send(item)\n", "    if item.ready:\n        queue(item)\n")),
    # --- whitespace is forgiven where it was, never where it was not
    _case("whitespace between words: ignoring it would land on another line", JOINED,
          "total price = 0\n", "total_price = 0\n", None),
    _case("whitespace between words: a space taken out", JOINED, "total=price * count\n", "x\n", None),
    _case("lands: whitespace between words, a run of spaces where the file has one", JOINED,
          "total  =  price * count\n", "total = price * count * 2\n",
          JOINED.replace("total = price * count\n", "total = price * count * 2\n")),
    # --- indentation changed inside the block: not a shift of the whole, not forgiven
    _case("relative indentation changed: the body at the if's depth", JS_RELATIVE,
          "  if (value) {\n  return true;\n  }\n", "  if (value) {\n  return 1;\n  }\n", None),
    _case("relative indentation changed: tabs and a wrong depth", GO_FILE,
          "\tif job.Done {\n\tcontinue\n\t}\n", "\tif job.Done {\n\treturn\n\t}\n", None),
    # --- retyped words are never close enough, whatever else is forgiven
    _case("retyped: a renamed variable with blank lines added", RETYPED_BLOCK,
          "\nresult = width * heigth\n\nreturn result\n", "x\n", None),
    _case("retyped: a renamed argument, escaped twice", RETYPED_BLOCK,
          "def area(w, height):\\n    result = w * height\\n", "x", None),
    _case("retyped: an operator changed", RETYPED_BLOCK, "    result = width + height\n", "x\n", None),
    _case("retyped: a plain word for a lookalike that is not one", PROSE, "The \"quick\" path", "The path", None),
    _case("retyped: a space where the file has none", RETYPED_BLOCK, "    result = width * height()\n", "x\n", None),
    # --- forgiving cases written by hand
    _case("lookalikes: the file has curly quotes, the model straight ones", PROSE,
          'The "fast" path isn\'t always faster - measure first.\n',
          'The "fast" path isn\'t always the faster - measure first.\n',
          PROSE.replace("always faster", "always the faster")),
    _case("lookalikes: the model's new text gets the file's quotes", PROSE,
          'The "fast" path isn\'t always faster - measure first.\n',
          'The "quick" path isn\'t always faster - measure first.\n',
          PROSE.replace("\u201cfast\u201d", "\u201cquick\u201d")),
    _case("lookalikes: three dots for an ellipsis", PROSE,
          "Keep the 'slow' path for old servers...\n", "Keep the 'slow' path for old servers and proxies...\n",
          PROSE.replace("old servers\u2026", "old servers and proxies\u2026")),
    _case("lookalikes: plain spaces for non-breaking ones", PROSE, "Prices in EUR.", "Prices in CHF.",
          PROSE.replace("Prices\u00a0in\u00a0EUR.", "Prices in CHF.")),
    _case("runs of spaces: a piece of one line", RETYPED_BLOCK, "width  *  height", "width * height * 2",
          RETYPED_BLOCK.replace("width * height", "width * height * 2")),
    _case("indentation: spaces for tabs, two levels deep", GO_FILE,
          "        if job.Done {\n            continue\n        }\n",
          "        if job.Done || job.Failed {\n            continue\n        }\n",
          GO_FILE.replace("\t\tif job.Done {", "\t\tif job.Done || job.Failed {")),
    _case("indentation: a new line deeper than any old one", JS_RELATIVE,
          "if (value) {\n  return true;\n}\n", "if (value) {\n  if (strict) {\n    return 1;\n  }\n  return true;\n}\n",
          JS_RELATIVE.replace("    return true;\n", "    if (strict) {\n      return 1;\n    }\n    return true;\n")),
    _case("line numbers: copied with the tab turned to spaces", RETYPED_BLOCK,
          "     2      result = width * height\n     3      return result\n",
          "    result = width * height / 2\n    return result\n",
          RETYPED_BLOCK.replace("width * height", "width * height / 2")),
    _case("line numbers and indentation: dedented lines copied with their numbers", RETYPED_BLOCK,
          "     2\tresult = width * height\n     3\treturn result\n", "result = abs(width * height)\nreturn result\n",
          RETYPED_BLOCK.replace("width * height", "abs(width * height)")),
    _case("escaped twice: a one-line string with quotes", PROSE.replace("\u201c", '"').replace("\u201d", '"'),
          'The \\"fast\\" path', 'The \\"quick\\" path',
          PROSE.replace("\u201cfast\u201d", '"quick"')),
]
