"""The static HTML transcript viewer (``mira-math view``); see :mod:`mira_math.eval.view.build`."""

from mira_math.eval.view.build import DEFAULT_PAGE_SIZE, ViewError, ViewResult, build_view

__all__ = ["DEFAULT_PAGE_SIZE", "ViewError", "ViewResult", "build_view"]
