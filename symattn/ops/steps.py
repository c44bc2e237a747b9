"""Named intermediates (:class:`symattn.steps.Steps`), as the operations return them."""

from ..steps import Steps

__all__ = ["Steps"]
