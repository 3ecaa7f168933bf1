"""checktestdata (`.ctd`) input validators by the `checktestdata` package from PyPI, run as a
contained script that imports nothing from the pipeline (`-P`: its folder would shadow the
package): `python -P checktestdata.py [-w] [--check] PROGRAM.ctd [arguments...] < input`.

Exit 42 accepts, 43 rejects, 2 is a fault of the program; messages name the `.ctd` line and the
input's line and character. What is patched and why: docs/packages.md, "checktestdata".
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from checktestdata import lib
from checktestdata.parser import Operator, Parser, ParserException
from checktestdata.parser import parse as parse_tokens
from checktestdata.tokenizer import (
    EOFException,
    Token,
    TokenStream,
    TokenType,
    UnexpectedTokenException,
    UnknownTokenException,
    tokenize,
)

ACCEPT, REJECT, PROGRAM_ERROR = 42, 43, 2
GENERATED = "<checktestdata program>"  # the file name of the generated code in tracebacks
NEWLINE = b"\n"
BLANKS = re.compile(rb"[ \t\r\v\f]*")  # what --whitespace-ok skips (never a newline)
NUMBER_AT_END = re.compile(rb"[-+.eE0-9]*")  # a FLOAT's text that may run to the end of input
POSIX_CLASSES = {b"alpha": b"a-zA-Z", b"digit": b"0-9", b"alnum": b"a-zA-Z0-9",
                 b"upper": b"A-Z", b"lower": b"a-z", b"space": b" \t\n\r\f\v",
                 b"blank": b" \t", b"punct": b"!-/:-@\\[-`{-~", b"xdigit": b"0-9A-Fa-f",
                 b"cntrl": b"\x00-\x1f\x7f", b"print": b" -~", b"graph": b"!-~"}
POSIX_CLASS = re.compile(rb"\[:([a-z]+):\]")

# The original's grammar: `&&` and `||` of one precedence, left-associative, and below it `!`
# (the package parses the operand of `!` at precedence 3, so at 3 `!` takes them all in).
for _op, _python, _function in ((b"&&", " and ", lambda x, y: x and y),
                                (b"||", " or ", lambda x, y: x or y)):
    Parser.BINARY_OPERATORS[_op] = Operator(_op.decode(), _python, _function, 3,
                                            lib.Boolean, lib.Boolean)


class ProgramError(Exception):
    """The checktestdata program is wrong (its syntax, found before any input is read)."""


@dataclass(frozen=True)
class Compiled:
    """A parsed program: its generated Python code and the names that code runs with."""

    parser: Parser
    code: Any  # a code object
    source: str


def parse(text: str | bytes) -> Compiled:
    """The compiled program; ProgramError, naming the line, when it is not checktestdata."""
    raw = text.encode("latin-1") if isinstance(text, str) else text
    tokens = parser = None
    try:
        tokens = tokenize(raw)
        parser = parse_tokens(tokens)
        source = parser.python_code()
        return Compiled(parser, compile(source, GENERATED, "exec"), source)
    except (ParserException, UnexpectedTokenException, UnknownTokenException) as error:
        raise ProgramError(f"line {error.token.line}: {error}") from None
    except EOFException:
        raise ProgramError(_unclosed(raw)) from None
    except (RecursionError, SyntaxError):  # Python's bounds: on recursion, on nested blocks
        line = parser.debug_info[-1][1][0].line if parser and parser.debug_info else \
            _last_line(tokens)
        raise ProgramError(f"line {line}: the program is nested too deeply") from None
    except (TypeError, ValueError) as error:  # found while folding constants
        raise ProgramError(f"line {_last_line(tokens)}: {error}") from None


def _unclosed(raw: bytes) -> str:
    """The innermost '(' or block a program that ends too early leaves open, and its line."""
    opened: list[Token] = []
    stream = tokenize(raw)  # holds its first token apart
    for token in ([stream.next] if stream.next else []) + list(stream.generator):
        if token.type in (TokenType.OPENPAR, TokenType.CONTROLFLOW):
            opened.append(token)
        elif token.type in (TokenType.CLOSEPAR, TokenType.END) and opened:
            opened.pop()
    if not opened:
        return f"line {raw.count(NEWLINE) + 1}: the program ends inside a command"
    token = opened[-1]
    if token.type == TokenType.OPENPAR:
        return f"line {token.line}: '(' at character {token.column} is not closed by a ')'"
    return f"line {token.line}: {token} is not closed by an END"


def _last_line(tokens: TokenStream | None) -> int:
    buffered = tokens.get_buffered() if tokens else []
    return buffered[-1].line if buffered else 1


# -- --whitespace-ok: SPACE and NEWLINE as the original reads them with that option ------------

def _skip_blanks() -> None:
    reader = lib._reader
    blanks = BLANKS.match(reader.raw, reader.pos)
    assert blanks is not None  # BLANKS matches the empty string too
    reader.pos = blanks.end()


def _space_whitespace_ok() -> None:
    reader = lib._reader
    got = reader.peek_char()
    if not got or got not in b" \t\r\v\f":
        token = lib._InputToken(reader.raw, reader.pos, len(got))
        raise lib.ValidationError(f"got: {lib._format_token(got)}, but expected whitespace",
                                  token)
    _skip_blanks()


def _newline_whitespace_ok() -> None:
    _skip_blanks()
    lib.NEWLINE()
    _skip_blanks()


# -- commands the package reads otherwise than the original ---------------------------------

def _regex(pattern: lib.String) -> lib.String:
    """REGEX with POSIX classes (`[[:digit:]]`) translated to ranges."""
    if isinstance(pattern, lib.String) and b"[:" in pattern.value:
        pattern = lib.String(POSIX_CLASS.sub(
            lambda m: POSIX_CLASSES.get(m.group(1), m.group(0)), pattern.value))
    return lib.REGEX(pattern)


def _float_reader(command: Callable[..., lib.Number]) -> Callable[..., lib.Number]:
    """`command` (FLOAT or FLOATP) that also reads a number ending the input, takes `-0.0` as
    zero, and rejects a number whose exponent is too large to read."""
    def run(*args: Any) -> lib.Number:
        reader = lib._reader
        raw, start = reader.raw, reader.pos
        if NUMBER_AT_END.fullmatch(raw, start) is not None:
            reader.raw = raw + b"\n"  # only for the input's last token: copied once
        try:
            return command(*args)
        except lib.ValidationError as error:
            if error.msg.endswith("should have no sign"):  # checked last: the rest held
                return lib.Number(Fraction(0))
            if error.token is not None:
                error.token.raw = raw  # shown without the newline added
            raise
        except ArithmeticError:  # Decimal's: an exponent past its bounds
            raise lib.ValidationError("number too large to read",
                                      lib._InputToken(raw, start, 1)) from None
        finally:
            reader.raw = raw
    return run


def _defined(array: lib.VarType) -> None:
    if array.data is None and not array.entries:
        raise NameError(f"variable {array.name} undefined")


def _shown(value: lib.Value) -> str:
    if isinstance(value, lib.String):
        return '"' + value.value.decode("latin-1") + '"'
    return str(value.value if isinstance(value.value, int) else float(value.value))


def _unique(*arrays: lib.VarType) -> lib.Boolean:
    """UNIQUE, or the input rejected at the first repeated tuple (by the order of setting)."""
    for array in arrays:
        _defined(array)
    if lib.UNIQUE(*arrays):
        return lib.Boolean.TRUE
    first = arrays[0]
    seen = set()
    for key in ([None] if first.data is not None else []) + list(first.entries):
        row = tuple(array[key] for array in arrays)
        kept = tuple((isinstance(v, lib.String), v.value) for v in row)
        if kept in seen:
            index = ",".join(str(part.value) for part in key or ())
            reader = lib._reader
            raise lib.ValidationError(f"non-unique tuple ({','.join(map(_shown, row))}) found "
                                      f"at index [{index}]",
                                      lib._InputToken(reader.raw, reader.pos, 0))
        seen.add(kept)
    return lib.Boolean.FALSE


def _inarray(value: lib.Value, array: lib.VarType) -> lib.Boolean:
    _defined(array)
    return lib.INARRAY(value, array)


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


def _namespace(program: Compiled, data: bytes, whitespace_ok: bool) -> dict[str, Any]:
    """The generated code's globals: the package's commands reading `data`."""
    def start() -> None:
        lib._reader = lib._Reader(data)
        lib._constraints = lib._Constraints(None)
        if whitespace_ok:
            _skip_blanks()

    names = program.parser.python_globals()
    names.update(init_lib=start, finalize_lib=lambda: None, REGEX=_regex, UNIQUE=_unique,
                 INARRAY=_inarray, FLOAT=_float_reader(lib.FLOAT),
                 FLOATP=_float_reader(lib.FLOATP))
    if whitespace_ok:
        names.update(SPACE=_space_whitespace_ok, NEWLINE=_newline_whitespace_ok)
    return names


def _where(program: Compiled, error: BaseException) -> tuple[int, str]:
    """The `.ctd` line and text of the command the error happened in."""
    import traceback  # only on a failure: a process that accepts starts without it

    lines = program.source.splitlines()
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename != GENERATED or frame.lineno is None:
            continue
        if lines[frame.lineno - 1] == "EOF()" and lines[frame.lineno] == "finalize_lib()":
            tokens = program.parser.debug_info[-1][1] if program.parser.debug_info else []
            return (tokens[-1].line if tokens else 1), "EOF (implicit, at the end)"
        tokens = program.parser.guess_line(program.source, frame.lineno)
        if tokens:
            return tokens[0].line, "".join(map(str, tokens))
    return 1, "the program"


def check(program_text: str | bytes, data: bytes, *, whitespace_ok: bool = False,
          program_name: str = "the program") -> Outcome:
    """Judge `data` by the checktestdata program `program_text`."""
    try:
        program = parse(program_text)
    except ProgramError as error:
        return Outcome(False, True, f"{program_name}: syntax error: {error}")
    try:
        exec(program.code, _namespace(program, data, whitespace_ok))
    except lib.ValidationError as error:
        line, command = _where(program, error)
        token = error.token
        where = (f"line {token.line} character {token.column} of the input, " if token
                 else "")
        shown = f"\n{token.format()}" if token else ""
        return Outcome(False, False, f"{where}{program_name} line {line}: {error.msg} "
                                     f"({command}){shown}")
    except MemoryError:
        raise  # told by run_as_command: nothing more can be done in this process
    except Exception as error:  # a type error, an undefined variable, a bad regex...
        line, command = _where(program, error)
        return Outcome(False, True, f"{program_name} line {line}: error in {command}: "
                                    f"{error}")
    return Outcome(True, False, "testdata ok!")


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
            text = handle.read()
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
    except MemoryError:
        print("checktestdata: the program ran out of memory (the validator's memory limit)",
              file=sys.stderr)
        return PROGRAM_ERROR
    except Exception as error:  # a fault of the package, not a verdict on the input
        print(f"checktestdata: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return PROGRAM_ERROR


if __name__ == "__main__":
    sys.exit(run_as_command())
