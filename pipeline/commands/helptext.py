"""How `pipeline --help` and each command's help show arguments, options and examples.

Values are shown by their metavar (`SQL`, `N`, `FILE`) rather than by type (`<str>`,
`{sql}`); flags show nothing; every command's epilog is its examples, one command line each.
"""

from __future__ import annotations

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


class Argument(TyperArgument):
    """An argument shown by its metavar alone: `SQL`, `[PATH]...`, never `{sql}` or `<str>`."""

    def display_type_rich(self, ctx):
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


class Option(TyperOption):
    """An option shown with its metavar (`--top N`), flags with nothing, never `<bool>`."""

    def display_type_rich(self, ctx):
        if self.is_flag or self.count:
            return None
        return self.metavar or (self.name or "value").upper()

    def _get_number_range_help_str(self):
        return None


def readable(params: list) -> list:
    for param in params:
        if type(param) is TyperArgument:
            param.__class__ = Argument
        elif type(param) is TyperOption:
            param.__class__ = Option
    return params


class Command(TyperCommand):
    def get_params(self, ctx):
        return readable(super().get_params(ctx))


class Group(TyperGroup):
    def get_params(self, ctx):
        return readable(super().get_params(ctx))


def examples(*lines: str) -> str:
    """An epilog of example command lines (Markdown: one line each, as written)."""
    return "**Examples**\n\n" + "  \n".join(f"`{line}`" for line in lines)
