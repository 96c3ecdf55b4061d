"""One module per family; each defines ``FAMILY``. The registry lists them."""
