"""Shell words: a command line split the way a POSIX shell would split it, for the deny list to judge.

It reads single and double quotes, bash's `$'...'`, backslash escapes and line
continuations, comments, the operators that separate commands (`;` `&` `&&` `||` `|`
`|&` newline `(` `)` and case's `;;`), redirections with their targets (here-documents
and here-strings too), and the commands inside `$(...)`, `` `...` ``, `<(...)` and
`>(...)`, which it parses in turn. Reserved words that only lead into a command
(`if`, `then`, `do`, `{`, `!`, `function NAME`, `coproc`, ...) are dropped from its front.

It expands nothing: `$HOME`, `~`, `*` and `$(...)` stay in a word as written, for the
judge to read. It never rejects odd input: an unterminated quote or substitution runs
to the end of the text, as a shell reading on would take it. Only nesting deeper than
MAX_DEPTH raises TooDeep, so no command can exhaust the stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Union

MAX_DEPTH = 24  # substitutions, eval and sh -c inside each other; real commands stay far below

REDIRECTIONS = frozenset({"<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<-", "<<<"})
_SEPARATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")")
_OPERATOR = re.compile("|".join(re.escape(op) for op in sorted({*REDIRECTIONS, *_SEPARATORS}, key=len, reverse=True)))
_IO_NUMBER = re.compile(r"\d+(?=[<>])")  # the 2 of 2>file
_PLAIN_RUN = re.compile(r"[^ \t\n;&|()<>\\'\"$`]+")  # characters that mean only themselves outside quotes
_DOUBLE_QUOTED_RUN = re.compile(r"[^\\\"$`]+")
_LEADING_WORDS = frozenset({"{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"})
_C_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_C_LETTERS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
              "v": "\v"}


class TooDeep(ValueError):
    """Commands nested deeper than MAX_DEPTH."""


@dataclass
class Word:
    text: str  # quotes and backslashes removed; $NAME, ${...}, $(...), ~ and globs kept as written
    plain: bool = True  # nothing in it was quoted or escaped: only a plain word can be a reserved word
    scripts: list[list[SimpleCommand]] = field(default_factory=list)  # the commands of its $(...), `...`, <(...)
    heredoc: str | None = None  # the body of the here-document this word (after <<) delimits


@dataclass
class Redirect:
    op: str  # one of REDIRECTIONS; a file descriptor number before it is dropped
    target: Word


@dataclass
class SimpleCommand:
    """A simple command: its words and redirections, and the operator that came before it."""

    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    after: str = ""  # "|" or "|&" in a pipeline; ";", "&&", "\n", "(" ... otherwise; "" for the first

    @property
    def argv(self) -> list[str]:
        return [word.text for word in self.words]

    def inner_scripts(self) -> Iterator[list[SimpleCommand]]:
        """The commands its substitutions and unquoted here-documents run, before it runs."""
        for word in [*self.words, *(redirect.target for redirect in self.redirects)]:
            yield from word.scripts


Token = Union[Word, str]  # a word, or an operator


def parse(text: str, depth: int = 0) -> list[SimpleCommand]:
    """The simple commands of a command line, in the order they appear."""
    return _Lexer(text, depth).commands()


class _Lexer:
    """Reads one command line; a $(...) inside it is read by the same lexer, one level deeper."""

    def __init__(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise TooDeep(f"commands nested more than {MAX_DEPTH} deep")
        self.text, self.pos, self.depth = text, 0, depth
        self.heredocs: list[tuple[Word, bool]] = []  # delimiters whose bodies start after the next newline

    def commands(self, closing: str | None = None) -> list[SimpleCommand]:
        return _commands(self._tokens(closing))

    def _next(self, offset: int = 1) -> str:
        return self.text[self.pos + offset: self.pos + offset + 1]

    def _tokens(self, closing: str | None) -> list[Token]:
        """Tokens up to the end, or up to the `)` that closes a $( when `closing` is given."""
        tokens: list[Token] = []
        open_parens = 0
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in " \t":
                self.pos += 1
            elif char == "\\" and self._next() == "\n":
                self.pos += 2
            elif char == "#":
                self._skip_comment()
            elif char == "\n":
                self.pos += 1
                tokens.append("\n")
                self._read_heredocs()
            elif char in "<>" and self._next() == "(":
                tokens.append(self._word())  # <(...) and >(...) are words that run commands
            elif char in ";&|()<>" or _IO_NUMBER.match(self.text, self.pos):
                operator = self._operator()
                if operator == ")" and closing and open_parens == 0:
                    return tokens
                open_parens += {"(": 1, ")": -1}.get(operator, 0)
                tokens.append(operator)
            else:
                word = self._word()
                if tokens and tokens[-1] in ("<<", "<<-"):
                    self.heredocs.append((word, tokens[-1] == "<<-"))
                tokens.append(word)
        return tokens

    def _operator(self) -> str:
        number = _IO_NUMBER.match(self.text, self.pos)
        if number:
            self.pos = number.end()
        operator = _OPERATOR.match(self.text, self.pos)
        assert operator is not None  # the caller saw one of its first characters here
        self.pos = operator.end()
        return operator.group()

    def _skip_comment(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end

    def _word(self) -> Word:
        word, parts = Word(""), []
        while self.pos < len(self.text):
            plain = _PLAIN_RUN.match(self.text, self.pos)
            if plain:
                parts.append(plain.group())
                self.pos = plain.end()
                continue
            char = self.text[self.pos]
            if char in "<>" and self._next() == "(":
                self._substitution(parts, word)
            elif char in " \t\n;&|()<>":
                break
            elif char == "\\":
                self._backslash(parts, word)
            elif char == "'":
                self._single_quoted(parts, word)
            elif char == '"':
                self.pos += 1
                word.plain = False
                self._double_quoted(parts, word, '"')
            elif char == "$":
                self._dollar(parts, word)
            else:  # a backquote
                self._backquoted(parts, word)
        word.text = "".join(parts)
        return word

    def _backslash(self, parts: list[str], word: Word) -> None:
        escaped = self._next()
        self.pos += 1 + len(escaped)
        if escaped != "\n":  # a backslash before a newline joins the lines
            parts.append(escaped)
            word.plain = False

    def _single_quoted(self, parts: list[str], word: Word) -> None:
        end = self.text.find("'", self.pos + 1)
        end = len(self.text) if end < 0 else end
        parts.append(self.text[self.pos + 1:end])
        self.pos = end + 1
        word.plain = False

    def _double_quoted(self, parts: list[str], word: Word, closing: str | None) -> None:
        """From just after the opening quote to the closing one (or, for a here-document, to the end)."""
        escapable = '$`"\\\n' if closing else "$`\\\n"
        while self.pos < len(self.text):
            run = _DOUBLE_QUOTED_RUN.match(self.text, self.pos)
            if run:
                parts.append(run.group())
                self.pos = run.end()
                continue
            char = self.text[self.pos]
            if char == closing:
                self.pos += 1
                return
            if char == "\\":
                escaped = self._next()
                if escaped and escaped in escapable:
                    parts.append("" if escaped == "\n" else escaped)
                    self.pos += 2
                else:
                    parts.append("\\")
                    self.pos += 1
            elif char == "$":
                self._dollar(parts, word)
            elif char == "`":
                self._backquoted(parts, word)
            else:  # a double quote inside a here-document
                parts.append(char)
                self.pos += 1

    def _dollar(self, parts: list[str], word: Word) -> None:
        follower = self._next()
        if follower == "(":
            self._substitution(parts, word)
        elif follower == "{":
            self._braced(parts, word)
        elif follower == "'":
            self.pos += 2
            parts.append(self._c_string())
            word.plain = False
        elif follower == '"':  # $"..." is a double-quoted string to translate
            self.pos += 1
        else:
            parts.append("$")
            self.pos += 1

    def _substitution(self, parts: list[str], word: Word) -> None:
        """$(...), $((...)), <(...) or >(...): its commands are parsed one level deeper."""
        start = self.pos
        self.pos += 2
        if self.depth >= MAX_DEPTH:
            raise TooDeep(f"commands nested more than {MAX_DEPTH} deep")
        self.depth += 1
        try:
            word.scripts.append(self.commands(closing=")"))
        finally:
            self.depth -= 1
        parts.append(self.text[start:self.pos])

    def _braced(self, parts: list[str], word: Word) -> None:
        """${...}, kept as written; substitutions inside it (${x:-$(cmd)}) are parsed."""
        start, depth = self.pos, 0
        while self.pos < len(self.text):
            char, follower = self.text[self.pos], self._next()
            if char == "$" and follower == "(":
                self._substitution([], word)
            elif char == "$" and follower == "{":
                depth += 1
                self.pos += 2
            elif char == "`":
                self._backquoted([], word)
            elif char == "}":
                depth -= 1
                self.pos += 1
                if depth == 0:
                    break
            else:
                self.pos += 2 if char == "\\" else 1
        parts.append(self.text[start:self.pos])

    def _backquoted(self, parts: list[str], word: Word) -> None:
        start = self.pos
        self.pos += 1
        inner = []
        while self.pos < len(self.text) and self.text[self.pos] != "`":
            escaped = self._next()
            if self.text[self.pos] == "\\" and escaped and escaped in "$`\\":
                inner.append(escaped)
                self.pos += 2
            else:
                inner.append(self.text[self.pos])
                self.pos += 1
        self.pos += 1
        word.scripts.append(_Lexer("".join(inner), self.depth + 1).commands())
        parts.append(self.text[start:self.pos])

    def _c_string(self) -> str:
        """The rest of a $'...' string, its escapes decoded."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] != "'":
            self.pos += 2 if self.text[self.pos] == "\\" else 1
        raw = self.text[start:self.pos]
        self.pos += 1
        return _C_ESCAPE.sub(_c_escape, raw)

    def _read_heredocs(self) -> None:
        """The bodies of the here-documents opened on the line just ended."""
        for delimiter, strip_tabs in self.heredocs:
            lines = []
            while self.pos < len(self.text):
                end = self.text.find("\n", self.pos)
                end = len(self.text) if end < 0 else end
                line, self.pos = self.text[self.pos:end], end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter.text:
                    break
                lines.append(line)
            delimiter.heredoc = "\n".join(lines)
            if delimiter.plain:  # an unquoted delimiter: $(...) in the body runs
                _Lexer(delimiter.heredoc, self.depth + 1)._double_quoted([], delimiter, None)
        self.pos = min(self.pos, len(self.text))
        self.heredocs.clear()


def _c_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    if len(code) == 1:  # \n, \t, ... or a letter that means itself (\x with no digits after it)
        return _C_LETTERS.get(code, code)
    if code[0] in "xuU":
        return chr(min(int(code[1:], 16), 0x10FFFF))
    return chr(ord(code[1]) & 0x1F)  # \cX: a control character


def _commands(tokens: list[Token]) -> list[SimpleCommand]:
    commands: list[SimpleCommand] = []
    current = SimpleCommand()
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if isinstance(token, Word):
            current.words.append(token)
        elif token in REDIRECTIONS:
            target = tokens[at + 1] if at + 1 < len(tokens) else None
            if isinstance(target, Word):
                at += 1
            current.redirects.append(Redirect(token, target if isinstance(target, Word) else Word("")))
        else:
            _finish(current, commands)
            current = SimpleCommand(after=token)
        at += 1
    _finish(current, commands)
    return commands


def _finish(command: SimpleCommand, commands: list[SimpleCommand]) -> None:
    _drop_leading_reserved_words(command.words)
    if command.words or command.redirects:
        commands.append(command)


def _drop_leading_reserved_words(words: list[Word]) -> None:
    """`if`, `then`, `{`, `!`, `function NAME`, `coproc`...: what follows them is the command."""
    while words and words[0].plain and not words[0].scripts:
        if words[0].text in _LEADING_WORDS:
            del words[0]
        elif words[0].text == "function" and len(words) > 1:
            del words[:2]
        elif words[0].text == "coproc":  # coproc CMD, coproc NAME { CMD; }: CMD runs
            named = len(words) > 2 and words[2].plain and words[2].text == "{"
            del words[:3 if named else 1]
        else:
            return
