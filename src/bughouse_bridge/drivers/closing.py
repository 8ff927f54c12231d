"""``with`` support for the drivers that own a file or a database: leaving the block closes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from types import TracebackType


class ClosesOnExit:
    """Mixin: ``with Driver(...) as driver:`` calls ``driver.close()`` however the block ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
