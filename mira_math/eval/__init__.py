"""The evaluation harness: solvers (scripted, vLLM, transformers, OpenAI-compatible APIs),
responders (the deterministic ``rules`` responder and an LLM responder), the interaction
protocol and episode state machine, the run directory with its manifest and transcripts, and
scoring, audit and reports computed from transcripts alone (docs/benchmark.md §6-§8).

The data layer (``generators``, ``verifiers``) never imports this package; ``mira_math.cli`` and the
protocol functions of ``mira_math`` do."""
