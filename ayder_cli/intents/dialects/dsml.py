"""DeepSeek V4 / V4.1 DSML: the V4.1 wrapper, and what is left of DSML markup outside a call.

    <｜DSML｜ calls>
    <｜DSML｜ invoke name="read_file">
    <｜DSML｜ parameter name="file_path" string="true">a.py</｜DSML｜ parameter>
    </｜DSML｜ invoke>
    </｜DSML｜ calls>

V4.1 writes a space after the prefix in every tag and wraps its calls in
`calls`; the invoke reader (invoke.py, the tags in common/xml_tags.py) reads
the tags with any prefix, the doubled bars of leaked replies (<｜｜DSML｜｜invoke>),
a self-closing invoke and V4's short closer </｜DSML｜inv>. Any other DSML
tag standing alone in the text (a closer cut short, </｜DSML｜tool>; an
opener with no call after it) is markup, never prose: it is hidden.
"""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.common.dialect_parts import MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.xml_calls import in_wrapper
from ayder_cli.intents.dialects.common.xml_tags import PREFIXES, dsml_only

_TAG_END = re.compile(r"[>\n<]")


class Fragment(Block):
    """A DSML tag on its own: to its '>' on the same line (or the end of the reply, where it was cut off).

    A closer is never prose; an opener is, in the middle of a sentence ("a <｜DSML｜ calls> block")."""

    def read(self, buf: str, final: bool) -> Verdict:
        found = self.context.skip_run(buf, len(self.opener), _TAG_END)
        if found - len(self.opener) > MAX_TAG:
            return NOT_MINE
        if found == len(buf):
            return Ends(len(buf)) if final else NEED_MORE
        if buf[found] != ">" or not (self.opener.startswith("</") or self._stands_alone()):
            return NOT_MINE
        return Ends(found + 1)

    def _stands_alone(self) -> bool:
        """Only spaces before it on its line, or the end of a sentence."""
        visible = self.context.before.rstrip(" \t")
        return self.context.line_start or bool(visible) and visible[-1] in ".!?:;"

    def finish(self, text: str) -> None:
        pass


DIALECTS = [
    Dialect("dsml-calls", in_wrapper, openers=dsml_only("<calls>")),
    Dialect("dsml-fragments", Fragment, openers=tuple(f"<{p}" for p in PREFIXES) + tuple(f"</{p}" for p in PREFIXES)),
]
