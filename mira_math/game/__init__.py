"""The rules of the game, between the data and the harness: how a solver message is read
(``protocol``), what the solver sees (``prompts``), what passes between an episode and a model
(``messages``), the episode state machine (``episode``) and its record (``transcript``), and
the deterministic information holder (``responders``, with its notation in ``slots``).

Imports only the data layer (``mira_math.generators``, ``mira_math.verifiers``); the harness
(``mira_math.eval``) drives it with real models."""
