"""The ``mira-math`` command line: the one place that imports both the data layer
(``generators``, ``verifiers``) and the evaluation layer (``eval``)."""
