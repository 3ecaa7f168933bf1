"""checktestdata, the input-checking language problemtools and DOMjudge run for `.ctd` validators.

A Python implementation of DOMjudge's checktestdata (github.com/DOMjudge/checktestdata,
`doc/format-spec.md`, with the semantics of its `libchecktestdata.cc`): a program is a list of
commands that read the input byte by byte, `SPACE NEWLINE EOF INT FLOAT FLOATP STRING REGEX`, with
`ASSERT SET UNSET`, loops `REP REPI WHILE WHILEI ... END` and `IF ... ELSE ... END`; expressions
over arbitrary-size integers, floats and strings (`+ - * / % ^`, integer division truncating as
C does, `STRLEN`), tests (`< > <= >= == !=`, `! && ||`, `ISEOF MATCH UNIQUE INARRAY`) and array
variables `x[i,j]`. An implicit `EOF` ends every program. `INT` takes `0|-?[1-9][0-9]*` only,
`FLOAT` `-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?(0|[1-9][0-9]*))?` (`FIXED`: no exponent,
`SCIENTIFIC`: exponent required), `FLOATP` also a number of decimals, and with one digit before
the dot in scientific notation. Floats are exact decimals (the original uses 256-bit GMP floats).

Run as a Kattis input validator, the input on stdin:

    python checktestdata.py [-w|--whitespace-ok] PROGRAM.ctd [validator arguments...] < input

exit 42 when the input matches, 43 when it does not (the first line on stderr names the line and
character of the input, the `.ctd` line, the reason and the command), 2 when the program itself
is wrong (a syntax error at build time; an undefined variable, a type error at run time). These are
problemtools' semantics for checktestdata (its wrapper turns the tool's 0 into 42). Validator
arguments are ignored: checktestdata has none. `--check PROGRAM.ctd` only parses the program
(exit 0 or 2), the "compile" step. `-w` lets any run of non-newline whitespace stand for one
`SPACE` and allows it around newlines, as the original's option does.

Regular expressions are POSIX extended ones in the original, matched leftmost-longest; here they
are Python's, matched leftmost-first: `REGEX("a|ab")` takes `a` of `ab` where checktestdata takes
`ab`. `[[:digit:]]`-style classes are translated. `.` matches a newline in both.

This file is run as a script by the validator runner, so it imports nothing from the pipeline.
"""

from __future__ import annotations

import decimal
import operator
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

ACCEPT, REJECT, PROGRAM_ERROR = 42, 43, 2
KEYWORDS = ("ISEOF", "MATCH", "UNIQUE", "INARRAY", "STRLEN", "SPACE", "NEWLINE", "EOF", "INT",
            "FLOAT", "FLOATP", "STRING", "REGEX", "ASSERT", "SET", "UNSET", "REP", "WHILE",
            "REPI", "WHILEI", "IF", "ELSE", "END", "FIXED", "SCIENTIFIC")
BLOCKS = ("REP", "REPI", "WHILE", "WHILEI", "IF")
CONTEXT_BEFORE, CONTEXT_AFTER = 65, 50
ULONG_MAX = 2 ** 64 - 1
FLOAT_CONTEXT = decimal.Context(prec=80, Emax=10 ** 15, Emin=-10 ** 15)


class ProgramError(Exception):
    """The checktestdata program is wrong (syntax, types, undefined variables)."""


class Mismatch(Exception):
    """The input does not match the program."""


# -- the scanner --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    kind: str       # a keyword, "VAR", "INTEGER", "FLOAT", "STRING", "CMP", "&&", "||" or a char
    text: str       # the token's text (a string constant's value, escapes applied)
    line: int       # 1-based line of the program
    start: int      # offsets in the program text
    end: int


_NUMBER = re.compile(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+")
_VARNAME = re.compile(r"[a-z][a-z0-9]*")
_SPACE = re.compile(r"[ \t\r\n]+")
_OCTAL = re.compile(r"[0-7]{1,3}")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\"}


def tokenize(text: str) -> list[Token]:
    """The program's tokens, as checktestdata's flexc++ scanner makes them."""
    tokens: list[Token] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        space = _SPACE.match(text, i)
        if space:
            line += space.group().count("\n")
            i = space.end()
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == '"':
            value, j, lines = _string_constant(text, i + 1, line)
            tokens.append(Token("STRING", value, line, i, j))
            line += lines
            i = j
            continue
        if "A" <= c <= "Z":
            word = max((k for k in KEYWORDS if text.startswith(k, i)), key=len, default=None)
            if word is None:
                unknown = re.match(r'[A-Z0-9_]+', text[i:])
                assert unknown is not None  # text[i] is a capital letter
                raise ProgramError(f"line {line}: unknown command or keyword "
                                   f"{unknown.group()!r}")
            tokens.append(Token(word, word, line, i, i + len(word)))
            i += len(word)
            continue
        match = _VARNAME.match(text, i) or _NUMBER.match(text, i)
        if match:
            word = match.group()
            kind = "VAR" if c.islower() else ("INTEGER" if word.isdigit() else "FLOAT")
            tokens.append(Token(kind, word, line, i, match.end()))
            i = match.end()
            continue
        two = text[i:i + 2]
        if two in ("&&", "||", "<=", ">=", "==", "!="):
            tokens.append(Token("CMP" if two not in ("&&", "||") else two, two, line, i, i + 2))
            i += 2
            continue
        kind = "CMP" if c in "<>" else c
        tokens.append(Token(kind, c, line, i, i + 1))
        i += 1
    return tokens


def _string_constant(text: str, i: int, line: int) -> tuple[str, int, int]:
    """(value, offset after the closing quote, newlines inside) of a string from offset i."""
    out: list[str] = []
    lines = 0
    while True:
        if i >= len(text):
            raise ProgramError(f"line {line}: string constant not closed")
        c = text[i]
        if c == '"':
            return "".join(out), i + 1, lines
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            octal = _OCTAL.match(text, i + 1)
            if octal:
                value = int(octal.group(), 8)
                if value >= 256:
                    raise ProgramError(f"line {line + lines}: bad escape sequence "
                                       f"'\\{octal.group()}'")
                out.append(chr(value))
                i = octal.end()
                continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            if nxt == "\n":  # line continuation
                lines += 1
                i += 2
                continue
            out.append("\\" + nxt)  # any other backslash is itself
            lines += nxt == "\n"
            i += 2
            continue
        if c == "\n":
            lines += 1
        out.append(c)
        i += 1


# -- values -------------------------------------------------------------------------------------

Value = int | Decimal | str


def brief(text: str, keep: int = 30) -> str:
    """`text` as a message shows it: a long one cut, with its length."""
    return text if len(text) <= keep else f"{text[:keep]}... ({len(text)} characters)"


def show(value: Value) -> str:
    if isinstance(value, str):
        return '"' + brief(value) + '"'
    if isinstance(value, Decimal):
        return brief(format(value.normalize(FLOAT_CONTEXT), "g"))
    return brief(str(value))


def _key(value: Value) -> tuple[int, Value]:
    """The value as checktestdata's arrays compare it: an integer never equals a float."""
    return (0 if isinstance(value, int) else 1 if isinstance(value, Decimal) else 2, value)


def _number(value: Value, what: str) -> int | Decimal:
    if isinstance(value, str):
        raise ProgramError(f"{what}: a number expected, got the string {show(value)}")
    return value


def _arith(op: str, a: Value, b: Value) -> Value:
    if isinstance(a, str) or isinstance(b, str):
        raise ProgramError(f"cannot compute {show(a)} {op} {show(b)}")
    if isinstance(a, int) and isinstance(b, int):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0:
            raise ProgramError(f"division by zero: {a} {op} {b}")
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncation
        return quotient if op == "/" else a - b * quotient
    if op == "%":
        raise ProgramError(f"can only use modulo on integers: {show(a)} % {show(b)}")
    x, y = Decimal(a), Decimal(b)
    if op == "+":
        return FLOAT_CONTEXT.add(x, y)
    if op == "-":
        return FLOAT_CONTEXT.subtract(x, y)
    if op == "*":
        return FLOAT_CONTEXT.multiply(x, y)
    if y == 0:
        raise ProgramError(f"division by zero: {show(a)} / {show(b)}")
    return FLOAT_CONTEXT.divide(x, y)


def _power(base: Value, exponent: Value) -> Value:
    if not isinstance(exponent, int):
        raise ProgramError(f"only integer exponents allowed: {show(base)} ^ {show(exponent)}")
    if not 0 <= exponent <= ULONG_MAX:
        raise ProgramError(f"integer exponent {exponent} does not fit in unsigned long")
    if isinstance(base, str):
        raise ProgramError("exponentiation base must be of arithmetic type")
    if isinstance(base, int):
        return base ** exponent
    return FLOAT_CONTEXT.power(base, exponent)


_COMPARISONS = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
                "==": operator.eq, "!=": operator.ne}


def _compare(op: str, a: Value, b: Value) -> bool:
    if isinstance(a, str) != isinstance(b, str):
        raise ProgramError(f"cannot compute {show(a)} {op} {show(b)}")
    return _COMPARISONS[op](a, b)


def _literal(token: Token) -> Value:
    text = token.text
    if token.kind == "FLOAT":
        return Decimal(text)
    if len(text) > 1 and text[0] == "0":  # GMP's base 0: a leading zero is octal
        try:
            return int(text, 8)
        except ValueError:
            return Decimal(text)
    return int(text)


# -- the program's state while it runs ----------------------------------------------------------

class State:
    """The input, the position in it, and the variables."""

    def __init__(self, data: str, whitespace_ok: bool) -> None:
        self.data = data
        self.pos = 0
        self.whitespace_ok = whitespace_ok
        self.values: dict[str, dict[tuple[int, ...], Value]] = {}
        self.counts: dict[str, dict[tuple[int, Value], int]] = {}  # value -> how many indices

    def get(self, name: str, index: tuple[int, ...]) -> Value:
        try:
            return self.values[name][index]
        except KeyError:
            shown = name + ("[" + ",".join(map(str, index)) + "]" if index else "")
            raise ProgramError(f"variable {shown} undefined") from None

    def set(self, name: str, index: tuple[int, ...], value: Value) -> None:
        values = self.values.setdefault(name, {})
        counts = self.counts.setdefault(name, {})
        if index in values:
            old = _key(values[index])
            counts[old] -= 1
            if not counts[old]:
                del counts[old]
        values[index] = value
        key = _key(value)
        counts[key] = counts.get(key, 0) + 1

    def unset(self, name: str) -> None:
        self.values.pop(name, None)
        self.counts.pop(name, None)

    def eof(self) -> bool:
        return self.pos >= len(self.data)

    def peek(self) -> str:
        return self.data[self.pos] if self.pos < len(self.data) else ""

    def skip_blanks(self) -> None:
        data, pos = self.data, self.pos
        while pos < len(data) and data[pos] in " \t\r\v\f":
            pos += 1
        self.pos = pos


# -- the parser: tokens to closures -------------------------------------------------------------

Expr = Callable[[State], Value]
Test = Callable[[State], bool]
Run = Callable[[State], None]
Target = Callable[[State], tuple[str, tuple[int, ...]]]  # a variable's name and index


@dataclass(frozen=True)
class Command:
    """One compiled command: what it does, and how to name it in a message."""

    run: Run | None  # None: END and ELSE, which only close a block
    source: str
    line: int


class _Fail(Exception):
    """A command did not match; carries the reason (a command's own words)."""


class Parser:
    """Recursive descent over checktestdata's grammar (its checktestdata.y)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0

    # token helpers
    def peek(self, ahead: int = 0) -> Token | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def kind(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return token.kind if token else "end of program"

    def take(self, kind: str) -> Token:
        token = self.peek()
        if token is None or token.kind != kind:
            found = "the end of the program" if token is None else repr(token.text)
            line = token.line if token else (self.tokens[-1].line if self.tokens else 1)
            raise ProgramError(f"line {line}: {kind!r} expected, found {found}")
        self.i += 1
        return token

    def accept(self, kind: str) -> bool:
        if self.kind() == kind:
            self.i += 1
            return True
        return False

    def error(self, what: str) -> ProgramError:
        token = self.peek()
        if token is None:
            line = self.tokens[-1].line if self.tokens else 1
            return ProgramError(f"line {line}: {what}, found the end of the program")
        return ProgramError(f"line {token.line}: {what}, found {token.text!r}")

    # the program
    def program(self) -> list[Command | tuple]:
        """The commands, blocks nested: ("block", head, body, else_body)."""
        flat = []
        while self.peek() is not None:
            flat.append(self.command())
        last_line = self.tokens[-1].line if self.tokens else 1
        flat.append(("EOF", Command(_eof_command, "EOF (implicit, at the end)", last_line)))
        return _nest(flat)

    def command(self) -> tuple:
        token = self.peek()
        if token is None:
            raise self.error("a command expected")
        start = token.start
        kind = token.kind
        self.i += 1
        if kind in ("SPACE", "NEWLINE", "EOF", "END", "ELSE"):
            run = {"SPACE": _space, "NEWLINE": _newline, "EOF": _eof_command}.get(kind)
            return kind, Command(run, kind, token.line)
        if kind not in ("INT", "FLOAT", "FLOATP", "STRING", "REGEX", "ASSERT", "SET", "UNSET",
                        "REP", "REPI", "WHILE", "WHILEI", "IF"):
            raise ProgramError(f"line {token.line}: a command expected, found {token.text!r}")
        self.take("(")
        extra = getattr(self, "_" + kind.lower())()
        self.take(")")
        source = " ".join(self.text[start:self.tokens[self.i - 1].end].split())
        if kind in BLOCKS:
            return kind, (extra, source, token.line)
        return kind, Command(extra, source, token.line)

    def separator(self) -> Command | None:
        if not self.accept(","):
            return None
        kind, command = self.command()
        if kind in BLOCKS or kind in ("END", "ELSE"):
            raise ProgramError(f"line {self.tokens[self.i - 1].line}: a loop's separator must be "
                               f"a simple command, not {kind}")
        return command

    # commands
    def _int(self) -> Run:
        low, high = self.expr(), self.comma_expr()
        target = self.comma_variable()
        return _int_command(low, high, target)

    def _float(self) -> Run:
        low, high = self.expr(), self.comma_expr()
        target = self.comma_variable()
        option = self.float_option() if target else None
        return _float_command(low, high, None, target, option)

    def _floatp(self) -> Run:
        low, high = self.expr(), self.comma_expr()
        decimals = (self.comma_expr(), self.comma_expr())
        target = self.comma_variable()
        option = self.float_option() if target else None
        return _float_command(low, high, decimals, target, option)

    def _string(self) -> Run:
        return _string_command(self.value())

    def _regex(self) -> Run:
        pattern = self.value()
        return _regex_command(pattern, self.comma_variable())

    def _assert(self) -> Run:
        test = self.test()

        def run(state: State) -> None:
            if not test(state):
                raise _Fail("assertion failed")
        return run

    def _set(self) -> Run:
        assignments = [self.assignment()]
        while self.accept(","):
            assignments.append(self.assignment())

        def run(state: State) -> None:
            for target, expr in assignments:
                value = expr(state)
                name, index = target(state)
                state.set(name, index, value)
        return run

    def _unset(self) -> Run:
        names = [self.take("VAR").text]
        while self.accept(","):
            names.append(self.take("VAR").text)

        def run(state: State) -> None:
            for name in names:
                state.unset(name)
        return run

    def _rep(self):
        return None, self.expr(), self.separator()

    def _repi(self):
        counter = self.variable()
        return counter, self.comma_expr(), self.separator()

    def _while(self):
        return None, self.test(), self.separator()

    def _whilei(self):
        counter = self.variable()
        self.take(",")
        return counter, self.test(), self.separator()

    def _if(self):
        return None, self.test(), None

    # pieces of commands
    def comma_expr(self) -> Expr:
        self.take(",")
        return self.expr()

    def comma_variable(self):
        if self.kind() == "," and self.kind(1) == "VAR":
            self.i += 1
            return self.variable()
        return None

    def float_option(self) -> str | None:
        if self.kind() == "," and self.kind(1) in ("FIXED", "SCIENTIFIC"):
            self.i += 2
            return self.tokens[self.i - 1].kind
        return None

    def assignment(self):
        target = self.variable()
        self.take("=")
        return target, self.expr()

    def variable(self) -> Callable[[State], tuple[str, tuple[int, ...]]]:
        name = self.take("VAR").text
        indices: list[Expr] = []
        if self.accept("["):
            indices.append(self.expr())
            while self.accept(","):
                indices.append(self.expr())
            self.take("]")

        def target(state: State) -> tuple[str, tuple[int, ...]]:
            index = []
            for expr in indices:
                value = expr(state)
                if not isinstance(value, int):
                    raise ProgramError(f"array index of {name} is not an integer: {show(value)}")
                index.append(value)
            return name, tuple(index)
        target.name = name  # type: ignore[attr-defined]
        return target

    # expressions
    def value(self) -> Expr:
        token = self.peek()
        kind = self.kind()
        if kind in ("INTEGER", "FLOAT"):
            assert token is not None  # a kind is a token's
            self.i += 1
            constant = _literal(token)
            return lambda state: constant
        if kind == "STRING":
            assert token is not None  # a kind is a token's
            self.i += 1
            text = token.text
            return lambda state: text
        if kind == "VAR":
            target = self.variable()

            def lookup(state: State) -> Value:
                return state.get(*target(state))
            return lookup
        if kind == "STRLEN":
            self.i += 1
            self.take("(")
            inner = self.value()
            self.take(")")

            def strlen(state: State) -> Value:
                text = inner(state)
                if not isinstance(text, str):
                    raise ProgramError(f"STRLEN of a non-string: {show(text)}")
                return len(text)
            return strlen
        raise self.error("a value expected")

    def expr(self) -> Expr:
        left = self.term()
        while self.kind() in ("+", "-"):
            op = self.take(self.kind()).kind
            left = _binary(op, left, self.term())
        return left

    def term(self) -> Expr:
        left = self.fact()
        while self.kind() in ("*", "/", "%"):
            op = self.take(self.kind()).kind
            left = _binary(op, left, self.fact())
        return left

    def fact(self) -> Expr:
        # bison's precedences: '-' binds looser than '^', and '^' associates to the left
        if self.accept("-"):
            inner = self.fact()
            return lambda state: _arith("-", 0, inner(state))
        left = self.primary()
        while self.accept("^"):
            if self.accept("-"):
                right = _negated(self.fact())
            else:
                right = self.primary()
            left = _binary("^", left, right)
        return left

    def primary(self) -> Expr:
        if self.accept("("):
            inner = self.expr()
            self.take(")")
            return inner
        return self.value()

    # tests
    def test(self) -> Test:
        left = self.test_unit()
        while self.kind() in ("&&", "||"):
            op = self.take(self.kind()).kind
            right = self.test_unit()
            left = _and(left, right) if op == "&&" else _or(left, right)
        return left

    def test_unit(self) -> Test:
        kind = self.kind()
        if kind == "!":
            self.i += 1
            inner = self.test()  # '!' has no precedence in the grammar: it takes all that follows
            return lambda state: not inner(state)
        if kind == "(":
            saved = self.i
            self.i += 1
            try:
                inner = self.test()
                self.take(")")
                if self.kind() not in ("CMP", "+", "-", "*", "/", "%", "^"):
                    return inner
            except ProgramError:
                pass
            self.i = saved
        if kind == "ISEOF":
            self.i += 1
            return State.eof
        if kind == "MATCH":
            self.i += 1
            self.take("(")
            chars = self.value()
            self.take(")")

            def match(state: State) -> bool:
                text = chars(state)
                if not isinstance(text, str):
                    raise ProgramError(f"MATCH of a non-string: {show(text)}")
                return not state.eof() and state.peek() in text
            return match
        if kind == "UNIQUE":
            self.i += 1
            self.take("(")
            names = [self.take("VAR").text]
            while self.accept(","):
                names.append(self.take("VAR").text)
            self.take(")")
            return lambda state: _unique(state, names)
        if kind == "INARRAY":
            self.i += 1
            self.take("(")
            needle = self.expr()
            self.take(",")
            name = self.variable().name  # type: ignore[attr-defined]
            self.take(")")

            def inarray(state: State) -> bool:
                value = needle(state)
                if name not in state.values:
                    raise ProgramError(f"variable {name} undefined")
                return _key(value) in state.counts.get(name, {})
            return inarray
        left = self.expr()
        if self.kind() != "CMP":
            raise self.error("a comparison expected")
        op = self.take("CMP").text
        right = self.expr()
        return lambda state: _compare(op, left(state), right(state))


def _binary(op: str, left: Expr, right: Expr) -> Expr:
    if op == "^":
        return lambda state: _power(left(state), right(state))
    return lambda state: _arith(op, left(state), right(state))


def _and(left: Test, right: Test) -> Test:
    return lambda state: left(state) and right(state)


def _or(left: Test, right: Test) -> Test:
    return lambda state: left(state) or right(state)


def _nest(flat: list[tuple]) -> list:
    """Blocks from the flat command list, checked as checktestdata's readprogram checks them."""
    stack: list[tuple[tuple, list, list | None]] = []
    top: list = []
    for kind, item in flat:
        if kind in BLOCKS:
            stack.append(((kind, item), top, None))
            top = []
        elif kind == "ELSE":
            if not stack or stack[-1][0][0] != "IF" or stack[-1][2] is not None:
                raise ProgramError(f"line {item.line}: ELSE without its IF")
            head, outer, _ = stack.pop()
            stack.append((head, outer, top))
            top = []
        elif kind == "END":
            if not stack:
                raise ProgramError(f"line {item.line}: END without a block to close")
            (block_kind, (extra, source, line)), outer, then_body = stack.pop()
            body, else_body = (then_body, top) if then_body is not None else (top, None)
            outer.append(_block(block_kind, extra, source, line, body, else_body))
            top = outer
        else:
            top.append(item)
    if stack:
        (_, (_, source, line)), _, _ = stack[-1]
        raise ProgramError(f"line {line}: {source} is not closed by an END")
    return top


def _negated(operand: Expr) -> Expr:
    return lambda state: _arith("-", 0, operand(state))


def _block(kind: str, extra, source: str, line: int, body: list, else_body: list | None):
    counter: Target | None
    counter, head, separator = extra

    def run_body(state: State) -> None:
        for command in body:
            _execute(command, state)
    if kind == "IF":
        def run_if(state: State) -> None:
            if head(state):
                run_body(state)
            elif else_body is not None:
                for command in else_body:
                    _execute(command, state)
        return Command(run_if, source, line)

    def loop(state: State) -> None:
        done = 0
        if counter is not None:
            name, index = counter(state)
            state.set(name, index, 0)
        if kind in ("REP", "REPI"):
            times = head(state)
            if not isinstance(times, int) or not 0 <= times <= ULONG_MAX:
                raise ProgramError(f"'{show(times)}' does not fit in an unsigned long")
            keep_going: Callable[[], bool] = lambda: done < times
        else:
            keep_going = lambda: head(state)
        while keep_going():
            if done > 0 and separator is not None:
                _execute(separator, state)
            run_body(state)
            done += 1
            if counter is not None:
                name, index = counter(state)
                state.set(name, index, done)
    return Command(loop, source, line)


class _At(Exception):
    """A failure with the command it happened in."""

    def __init__(self, error: Exception, command: Command) -> None:
        super().__init__(str(error))
        self.error = error
        self.command = command


def _execute(command: Command, state: State) -> None:
    assert command.run is not None  # END and ELSE close blocks and are never run
    try:
        command.run(state)
    except _At:
        raise
    except (_Fail, ProgramError) as error:
        raise _At(error, command) from None


# -- the reading commands -----------------------------------------------------------------------

def _space(state: State) -> None:
    if state.eof():
        raise _Fail("end of file")
    c = state.data[state.pos]
    if state.whitespace_ok:
        if c not in " \t\r\v\f":
            raise _Fail("")
        state.pos += 1
        state.skip_blanks()
        return
    if c != " ":
        raise _Fail("")
    state.pos += 1


def _newline(state: State) -> None:
    if state.whitespace_ok:
        state.skip_blanks()
    if state.eof():
        raise _Fail("end of file")
    if state.data[state.pos] != "\n":
        raise _Fail("")
    state.pos += 1
    if state.whitespace_ok:
        state.skip_blanks()


def _eof_command(state: State) -> None:
    if not state.eof():
        raise _Fail("")


_INT_TEXT = re.compile(r"-?[0-9]*")
_DIGITS = re.compile(r"[0-9]*")
_DIGIT_CHARS = "0123456789"


def _as_int(value: Value, what: str) -> int:
    if not isinstance(value, int):
        raise ProgramError(f"{what} must be an integer, got {show(value)}")
    return value


def _digits_end(data: str, pos: int) -> int:
    """Where the run of digits at `pos` ends (`pos` itself when there is none)."""
    match = _DIGITS.match(data, pos)
    assert match is not None  # the pattern matches the empty text too
    return match.end()


def _int_command(low: Expr, high: Expr, target: Target | None) -> Run:
    def run(state: State) -> None:
        match = _INT_TEXT.match(state.data, state.pos)
        assert match is not None  # the pattern matches the empty text too
        text = match.group()
        state.pos = match.end()
        lo, hi = _as_int(low(state), "INT's minimum"), _as_int(high(state), "INT's maximum")
        digits = text.lstrip("-")
        if not digits:
            raise _Fail("")
        if len(text) >= 2 and text[0] == "0":
            raise _Fail("prefix zero(s)")
        if text[0] == "-" and digits[0] == "0":
            raise _Fail("invalid minus sign (-0 not allowed)")
        value = int(text)
        if not lo <= value <= hi:
            raise _Fail(f"value out of range: {brief(text)} not in [{show(lo)},{show(hi)}]")
        if target is not None:
            state.set(*target(state), value)
    return run


def _float_command(low: Expr, high: Expr, decimals: tuple[Expr, Expr] | None,
                   target: Target | None,
                   option: str | None) -> Run:
    def run(state: State) -> None:
        data = state.data
        lo_dec = hi_dec = 0
        if decimals is not None:
            bounds = []
            for which, expr in zip(("min", "max"), decimals):
                count = expr(state)
                if not isinstance(count, int):
                    raise _Fail(f"{which}decimal is not an integer")
                if not 0 <= count < 2 ** 31 - 1:
                    raise _Fail(f"the value of {which}decimal is out of range")
                bounds.append(count)
            lo_dec, hi_dec = bounds
            if lo_dec > hi_dec:
                raise _Fail("invalid decimals range specified")
        start = state.pos
        if state.peek() == "-":
            state.pos += 1
        if not state.peek() or state.peek() not in _DIGIT_CHARS:
            raise _Fail("digit expected")
        digit_pos = state.pos
        first = data[digit_pos]
        state.pos = _digits_end(data, state.pos)
        leading = state.pos - digit_pos
        dot_pos = None
        if state.peek() == ".":
            dot_pos = state.pos
            state.pos = _digits_end(data, state.pos + 1)
        if first == "0" and leading > 1:
            raise _Fail("prefix zero(s)")
        if data[state.pos - 1] not in _DIGIT_CHARS:
            raise _Fail("digit expected")
        exp_pos = state.pos
        has_exp = False
        if option == "SCIENTIFIC" or (option is None and state.peek() in ("e", "E")):
            if state.peek() not in ("e", "E"):
                if state.pos < len(data):
                    state.pos += 1
                raise _Fail("exponent 'E' expected")
            state.pos += 1
            has_exp = True
            if state.peek() in ("-", "+"):
                state.pos += 1
            exp_start = state.pos
            state.pos = _digits_end(data, state.pos)
            if state.pos == exp_start:
                raise _Fail("digit expected")
            if data[exp_start] == "0" and state.pos - exp_start > 1:
                raise _Fail("prefix zero(s) in exponent")
        if decimals is not None:
            if has_exp and (first == "0" or dot_pos != digit_pos + 1):
                raise _Fail("exactly one non-zero before the decimal dot expected")
            count = 0 if dot_pos is None else exp_pos - dot_pos - 1
            if not lo_dec <= count <= hi_dec:
                raise _Fail(f"number of decimals not within specified range: "
                            f"{count} not in [{lo_dec},{hi_dec}]")
        value = Decimal(data[start:state.pos])
        lo = _number(low(state), "FLOAT's minimum")
        hi = _number(high(state), "FLOAT's maximum")
        if not lo <= value <= hi:
            raise _Fail(f"value out of range: {brief(data[start:state.pos])} not in "
                        f"[{show(lo)},{show(hi)}]")
        if target is not None:
            state.set(*target(state), value)
    return run


def _string_command(expected: Expr) -> Run:
    def run(state: State) -> None:
        text = expected(state)
        if not isinstance(text, str):
            raise ProgramError(f"STRING of a non-string: {show(text)}")
        for c in text:
            if state.eof():
                raise _Fail("premature end of file")
            state.pos += 1
            if state.data[state.pos - 1] != c:
                raise _Fail("")
    return run


_POSIX_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
                  "lower": "a-z", "space": " \\t\\n\\r\\f\\v", "blank": " \\t",
                  "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
                  "xdigit": "0-9A-Fa-f", "cntrl": "\\x00-\\x1f\\x7f", "print": " -~",
                  "graph": "!-~"}
_REGEX_CACHE: dict[str, re.Pattern] = {}


def compile_regex(pattern: str) -> re.Pattern:
    """A POSIX extended regular expression as a Python pattern (`.` matches newlines)."""
    compiled = _REGEX_CACHE.get(pattern)
    if compiled is None:
        translated = re.sub(r"\[:([a-z]+):\]",
                            lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), pattern)
        try:
            compiled = re.compile(translated, re.DOTALL)
        except re.error as error:
            raise ProgramError(f"invalid regular expression {show(pattern)}: {error}") from None
        _REGEX_CACHE[pattern] = compiled
    return compiled


def _regex_command(pattern: Expr, target: Target | None) -> Run:
    def run(state: State) -> None:
        text = pattern(state)
        if not isinstance(text, str):
            raise ProgramError(f"REGEX of a non-string: {show(text)}")
        match = compile_regex(text).match(state.data, state.pos)
        if match is None:
            raise _Fail("")
        state.pos = match.end()
        if target is not None:
            state.set(*target(state), match.group())
    return run


def _unique(state: State, names: list[str]) -> bool:
    for name in names:
        if name not in state.values:
            raise ProgramError(f"variable {name} undefined")
    arrays = [state.values[name] for name in names]
    for name, array in zip(names[1:], arrays[1:]):
        if len(array) != len(arrays[0]):
            raise _Fail(f"variables {names[0]} and {name} have different indices")
    seen: dict[tuple, tuple[int, ...]] = {}
    for index in sorted(arrays[0]):
        row = []
        for name, array in zip(names, arrays):
            if index not in array:
                raise _Fail(f"index [{','.join(map(str, index))}] not defined for variable "
                            f"{name}")
            row.append(array[index])
        key = tuple(_key(v) for v in row)
        if key in seen:
            raise _Fail(f"non-unique tuple ({','.join(show(v) for v in row)}) found at index "
                        f"[{','.join(map(str, index))}]")
        seen[key] = index
    return True


# -- running a program --------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """How a program judged an input: accepted, or the reason with where it happened."""

    accepted: bool
    program_error: bool
    message: str

    @property
    def exit_code(self) -> int:
        return ACCEPT if self.accepted else PROGRAM_ERROR if self.program_error else REJECT


def parse(text: str) -> list:
    """The program's compiled commands; ProgramError for a syntax error."""
    return Parser(text).program()


def check(program_text: str, data: bytes, *, whitespace_ok: bool = False,
          program_name: str = "the program") -> Outcome:
    """Judge `data` by the checktestdata program `program_text`."""
    try:
        commands = parse(program_text)
    except ProgramError as error:
        return Outcome(False, True, f"{program_name}: syntax error: {error}")
    state = State(data.decode("latin-1"), whitespace_ok)
    if whitespace_ok:
        state.skip_blanks()
    try:
        for command in commands:
            _execute(command, state)
    except _At as failure:
        where = f"{program_name} line {failure.command.line}"
        if isinstance(failure.error, ProgramError):
            return Outcome(False, True, f"{where}: error in {failure.command.source}: "
                                        f"{failure.error}")
        return Outcome(False, False, _mismatch_message(state, failure, where))
    except RecursionError:
        return Outcome(False, True, f"{program_name}: expression nested too deeply")
    return Outcome(True, False, "testdata ok!")


def _mismatch_message(state: State, failure: _At, where: str) -> str:
    data, pos = state.data, min(state.pos, len(state.data))
    line = data.count("\n", 0, pos) + 1
    column = pos - (data.rfind("\n", 0, pos) + 1) + 1
    reason = str(failure.error)
    # where first, then why, the command's text last: a message cut short loses the least
    head = f"line {line} character {column} of the input, {where}: " + (
        f"{reason} ({failure.command.source})" if reason
        else f"does not match {failure.command.source}")
    before = data[max(0, pos - CONTEXT_BEFORE):pos]
    after = data[pos:pos + CONTEXT_AFTER]
    shown_before = before[before.rfind("\n") + 1:]
    shown_after = after.split("\n", 1)[0]
    return f"{head}\n{shown_before}{shown_after}\n{' ' * len(shown_before)}^"


def main(argv: list[str]) -> int:
    whitespace_ok = syntax_only = False
    args = list(argv)
    while args and args[0].startswith("-") and args[0] != "-":
        option = args.pop(0)
        if option in ("-w", "--whitespace-ok"):
            whitespace_ok = True
        elif option == "--check":
            syntax_only = True
        elif option == "--":
            break
        else:
            print(f"checktestdata: unknown option {option!r}", file=sys.stderr)
            return PROGRAM_ERROR
    if not args:
        print("usage: checktestdata [-w] [--check] PROGRAM.ctd [args...] < input",
              file=sys.stderr)
        return PROGRAM_ERROR
    path = args[0]
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("latin-1")
    except OSError as error:
        print(f"checktestdata: cannot read {path}: {error.strerror}", file=sys.stderr)
        return PROGRAM_ERROR
    name = path.rsplit("/", 1)[-1]
    if syntax_only:
        try:
            parse(text)
        except ProgramError as error:
            print(f"{name}: syntax error: {error}", file=sys.stderr)
            return PROGRAM_ERROR
        return 0
    outcome = check(text, sys.stdin.buffer.read(), whitespace_ok=whitespace_ok,
                    program_name=name)
    print(outcome.message, file=sys.stdout if outcome.accepted else sys.stderr)
    return outcome.exit_code


def run_as_command() -> int:
    """`main` as a process: integers of any length, one line (never a traceback) on a fault."""
    sys.set_int_max_str_digits(0)
    sys.setrecursionlimit(10000)
    try:
        return main(sys.argv[1:])
    except Exception as error:  # a fault of this implementation, not a verdict on the input
        print(f"checktestdata: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return PROGRAM_ERROR


if __name__ == "__main__":
    sys.exit(run_as_command())
