"""Utilities every layer may use (errors a user can act on, atomic writes, optional
dependencies, number formatting): the bottom of the stack, importing nothing of the package
but itself."""
