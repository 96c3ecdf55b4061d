"""One module per blind-tier family, each with a ``FAMILY`` object (registry.BLIND lists them)."""
