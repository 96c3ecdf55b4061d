"""The software's version: the package, the command line and the harness. The release's data
carries its own (``GENERATOR_VERSION``, ``release_info.json``); ``mira-math --version`` and
every run manifest show both (docs/decisions.md, "One version story")."""

__version__ = "2.0.0"
