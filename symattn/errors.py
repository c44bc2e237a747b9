"""The one exception family of symattn: every error a user can cause is a SymattnError.

The CLI prints ``str(error)`` as one line and exits with code 2; nothing else of an error
reaches the user.
"""

from __future__ import annotations


class SymattnError(Exception):
    """Base class; ``where`` (file:line) is prefixed to the message when known."""

    def __init__(self, message: str, *, where: str | None = None, hint: str | None = None):
        self.message = message
        self.where = where
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = self.message
        if self.hint:
            text = f"{text}; {self.hint}"
        return f"{self.where}: {text}" if self.where else text

    def located(self, where: str) -> "SymattnError":
        """The same error with a location, unless it already has one."""
        if self.where is None:
            self.where = where
            self.args = (str(self),)
        return self


class InputError(SymattnError):
    """A value that is not an exact number, or a malformed number."""


class ShapeError(SymattnError):
    """Operands whose shapes do not fit the operation."""


class MaskError(SymattnError):
    """A mask that leaves nothing to attend to, or −∞ where it cannot go."""


class DomainError(SymattnError):
    """A value outside an operation's domain (T <= 0, eps = 0 with a constant row, log 0)."""


class ParseError(SymattnError):
    """Text (an expression, a printed number, LaTeX) that the whitelist parser refuses."""


class SpecError(SymattnError):
    """A spec file that cannot be used as it is."""


class LimitError(SymattnError):
    """A resource guard: matrix size, expression depth, digits, time."""


class CertificationError(SymattnError):
    """Digits that could not be certified within the precision limit."""
