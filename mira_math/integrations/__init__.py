"""Adapters to the harnesses researchers already run: an inspect_ai task
(:mod:`mira_math.integrations.inspect_task`, extra ``.[inspect]``) and a verifiers environment
(:mod:`mira_math.integrations.verifiers_env`, extra ``.[rl]``). Importing this package imports
neither inspect_ai nor verifiers; each adapter module does, on import. Both drive the
harness's own :class:`mira_math.game.episode.Episode` and score with :mod:`mira_math.eval.scoring`."""
