"""How `pipeline --help` and each command's help show arguments, options and examples: values
by their metavar (`SQL`, `N`) rather than by type (`<str>`, `[x>=1]`), flags by nothing, and
every command's epilog as its examples, one command line each.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

from typer._click.types import ParamType, _NumberRangeBase
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


class Argument(TyperArgument):
    """An argument shown by its metavar alone: `SQL`, `[PATH]...`, never `{sql}` or `<str>`."""

    def make_metavar(self, ctx, *, usage: bool = False) -> str:
        name = self.metavar or (self.name or "").upper()
        if usage and not self.required:
            name = f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")


class Option(TyperOption):
    """An option shown with its metavar (`--top N`), flags with nothing, never `<bool>`."""


def readable(params: list) -> list:
    for param in params:
        if type(param) is TyperArgument:
            param.__class__ = Argument
        elif type(param) is TyperOption:
            param.__class__ = Option
    return params


@cache
def _shown_by_metavar(kind: type[ParamType]) -> type[ParamType]:
    """A subclass of the parameter type `kind` that help prints nothing of: no `<str>` beside
    an argument, no `[x>=1]` range beside an option (the metavar and the help say it)."""
    overrides: dict[str, Callable[..., str]] = {"get_metavar": lambda self, param, ctx: ""}
    if issubclass(kind, _NumberRangeBase):
        overrides["_describe_range"] = lambda self: ""
    return type(kind.__name__, (kind,), overrides)


@contextmanager
def types_unshown(params: list) -> Iterator[None]:
    """While help is written: each parameter's type is a copy that help prints nothing of
    (conversion and error messages, outside, keep the real type)."""
    kept = [(param, param.type) for param in params if param.type is not None]
    try:
        for param, kind in kept:
            shown = copy.copy(kind)
            # a class is hashable; mypy reads the instances' `__hash__ = None` of ParamType
            shown.__class__ = _shown_by_metavar(type(kind))  # type: ignore[arg-type]
            param.type = shown
        yield
    finally:
        for param, kind in kept:
            param.type = kind


class _Readable:
    """A command's or group's help with readable parameters, their types unshown."""

    def get_params(self, ctx):
        return readable(super().get_params(ctx))  # type: ignore[misc]

    def format_help(self, ctx, formatter) -> None:
        with types_unshown(self.get_params(ctx)):
            super().format_help(ctx, formatter)  # type: ignore[misc]


class Command(_Readable, TyperCommand):
    pass


class Group(_Readable, TyperGroup):
    pass


def examples(*lines: str) -> str:
    """An epilog of example command lines (Markdown: one line each, as written)."""
    return "**Examples**\n\n" + "  \n".join(f"`{line}`" for line in lines)
