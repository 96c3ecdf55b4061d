"""The evaluation harness: solvers (scripted, vLLM, transformers, OpenAI-compatible APIs) and the
LLM responder behind typed seams (:mod:`.seams`), assembled by :mod:`.assemble`; the runner's
schedulers driving the game's episodes; the run directory (:mod:`.rundir`); and scoring, tables,
audit, comparison, reports and the viewer computed from transcripts alone (docs/benchmark.md
§6-§8).

The data layer (``generators``, ``verifiers``) and the rules of the game (``game``) never import
this package; ``mira_math.cli`` and ``mira_math.integrations`` do."""
