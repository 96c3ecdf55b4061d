"""Responders: the constrained information holder. ``rules`` (deterministic, offline
default) and ``llm`` (any chat backend with structured outputs) share one interface."""
