"""MIRA-Math as a TRL environment: ``GRPOTrainer(environment_factory=MiraToolEnv, ...)`` (TRL's
experimental API, 1.16; extra ``.[trl]``). TRL builds one instance per rollout, calls ``reset``
with the example's fields, offers every public method as a tool and scores the rollout with
``get_reward``. This module imports neither TRL nor torch: the environment is plain Python.

This is a **tool-call protocol**, not the paper's text protocol: the policy asks with the
``ask`` tool and answers with the ``answer`` tool instead of writing ``REQUEST:``/``ANSWER:``
lines, and sees the problem without the paper's system prompt. Its records carry
``protocol: tool-call-v1`` and are never written as a run directory, so they cannot reach
``mira-math score``/``report`` or any paper-comparable table (docs/decisions/integrations.md).

The rules of the game are still the harness's own :class:`~mira_math.game.episode.Episode`:
each tool call is handed to it as the one-line action it stands for, so the budget, the
responder (rules by default, or eval's LLM responder), the final turn and the exact verifier
are the ones ``mira-math eval`` uses.

GRPO compares the rewards of one group: the ``num_generations`` rollouts of one prompt. TRL's
sampler repeats each dataset row ``num_generations`` times and calls every rollout's ``reset``
with its row's fields, so the problem comes from the row: :func:`grpo_dataset` gives one row per
problem (its release line in the ``record`` column), and every rollout of a group plays that
problem. ``reset()`` without a ``record`` (TRL's placeholder rows when no dataset is given) is
refused: drawing a problem per rollout would make each group compare rewards across problems."""

from __future__ import annotations

import itertools
import json
from typing import Any, Dict, Iterator, Optional

from mira_math.game.episode import Episode
from mira_math.game.messages import Completion
from mira_math.game.protocol import DECLINE_TEXT
from mira_math.game.prompts import problem_message
from mira_math.integrations.common import RewardOptions, make_responder, record_instance, record_text
from mira_math.integrations.sources import instances

PROTOCOL = "tool-call-v1"

INSTRUCTIONS = """\
Exactly one fact you need is missing from this problem; an information holder has it. Call the \
tool `ask` with one precise request naming the missing quantity (the holder answers only an exact \
match, with the fact verbatim; each call spends one request of your budget), then call the tool \
`answer` with your exact final answer. Only your first `answer` call counts."""

# Several facts missing (k >= 2): as the paper's multi-fact prompt, it does not say how many.
MULTI_INSTRUCTIONS = """\
Some facts you need are missing from this problem; an information holder has them. Call the tool \
`ask` with one precise request naming one missing quantity (the holder answers only a request that \
names exactly one of its facts, with that fact verbatim; a request naming several gets a decline; \
each call spends one request of your budget); ask once for each missing quantity, then call the \
tool `answer` with your exact final answer. Only your first `answer` call counts."""


# The blind tier: it never says whether a fact is missing, and says what an unnecessary call costs.
BLIND_INSTRUCTIONS = """\
This problem may be complete, or facts you need may be missing from it; an information holder may \
have facts the problem lacks. If what you are given determines the answer, call the tool `answer` at \
once. Otherwise call the tool `ask` with one precise request naming one quantity (the holder answers \
only a request that names exactly one of its facts, with that fact verbatim; each call spends one \
request of your budget), asking only for what the answer needs: a call on a problem that is already \
determined, or for a quantity whose value does not change the answer, costs the answer its minimal \
credit. Then call the tool `answer` with your exact final answer. Only your first `answer` call counts."""


def instructions(k: int, blind: bool = False) -> str:
    """The tool protocol's instructions for an instance with ``k`` missing facts (``blind``: a
    blind-tier row, whatever its k)."""
    if blind:
        return BLIND_INSTRUCTIONS
    return INSTRUCTIONS if k == 1 else MULTI_INSTRUCTIONS


class MiraToolEnv:
    """One rollout's MIRA episode behind two tools. ``reset(record=LINE)`` plays that release
    row (a :func:`grpo_dataset` row)."""

    def __init__(self, responder: str = "rules", reward: Optional[RewardOptions] = None) -> None:
        self._responder_spec = responder
        self._responder = make_responder(responder)
        self._reward = reward or RewardOptions()
        self._episode: Optional[Episode] = None
        self.refused = 0

    def reset(self, **example: Any) -> str:
        """Start an episode on the example's ``record`` (a release line); returns the problem
        and the protocol's instructions (TRL appends them to the last user message)."""
        record = example.get("record")
        if not record:
            raise ValueError("MiraToolEnv.reset() got no `record`: give GRPOTrainer "
                             "train_dataset=grpo_dataset(...) (one row per problem, which TRL repeats "
                             "for each generation), so that every rollout of a group plays one problem")
        inst = record_instance(record)
        self._episode = Episode(inst, solver="trl", responder=self._responder_spec, regime="zs")
        self.refused = 0
        return f"{problem_message(inst)}\n\n{instructions(inst.k, inst.blind)}"

    @property
    def episode(self) -> Episode:
        if self._episode is None:
            raise RuntimeError("reset() starts an episode first")
        return self._episode

    def ask(self, request: str) -> str:
        """Ask the information holder for one missing fact.

        Args:
            request: One precise request naming one missing quantity, in the problem's notation.

        Returns:
            The holder's reply (the fact verbatim, or a decline) and the requests left.
        """
        episode = self.episode
        if episode.done:
            self.refused += 1
            return "The episode is over: your answer is in."
        if episode.state.final_turn or episode.state.requests_left <= 0:
            self.refused += 1
            return "No requests left: call `answer` with your final answer."
        call = episode.on_solver(Completion(text=f"REQUEST: {_one_line(request)}", finish_reason="stop"))
        if call is not None:
            episode.on_responder(self._responder.respond([call])[0])
        turn = episode.transcript.turns[-1]
        shown = turn.shown if getattr(turn, "role", "") == "responder" else DECLINE_TEXT
        left = episode.state.requests_left
        tail = f"{left} request(s) left." if left else "No requests left: call `answer` with your final answer."
        return f"Information holder: {shown}\n{tail}"

    def answer(self, value: str) -> str:
        """Give your final answer; only the first call counts.

        Args:
            value: The exact answer, e.g. an integer or a reduced fraction such as 3/7.

        Returns:
            Whether the answer was recorded.
        """
        episode = self.episode
        if episode.done:
            self.refused += 1
            return "The episode is over: your answer is in."
        episode.on_solver(Completion(text=f"ANSWER: {_one_line(str(value))}", finish_reason="stop"))
        return "Answer recorded."

    def get_reward(self) -> float:
        """The exact verifier's verdict on the answer, shaped only as :class:`RewardOptions`
        says; 0 for a rollout that never called ``answer`` (no answer is a wrong answer)."""
        episode = self.episode
        return self._reward(episode) if episode.done else 0.0

    def record(self) -> Dict[str, Any]:
        """The rollout as a record: the protocol tag, the transcript (as ``transcripts.jsonl``
        stores it; no verdict when the policy never answered), the refused tool calls and the
        reward."""
        episode = self.episode
        return {"protocol": PROTOCOL, "transcript": json.loads(episode.transcript.to_json_line()),
                "answered": episode.done, "refused_calls": self.refused, "reward": self.get_reward()}


def _one_line(text: str) -> str:
    """A tool argument as one action line (the reader takes the last action line of a message)."""
    return " ".join(str(text).split())


def grpo_rows(source: str = "train", n: Optional[int] = None, **selection: Any) -> Iterator[Dict[str, Any]]:
    """The rows of :func:`grpo_dataset`: an empty user prompt (``reset`` supplies the problem)
    and the instance's release line."""
    chosen = instances(source, **selection)
    for inst in chosen if n is None else itertools.islice(chosen, n):
        yield {"prompt": [{"role": "user", "content": ""}], "record": record_text(inst)}


def grpo_dataset(source: str = "train", n: Optional[int] = None, **selection: Any) -> Any:
    """A TRL training dataset with one row per problem, which TRL repeats once per generation,
    so each GRPO group plays one problem. ``source`` and ``selection`` (``family``, ``type``,
    ``data``, ``config``, ``seed_set``, ``parts``, ``held_out``; ``config="blind"`` with
    ``source="release"``: the blind tier) are those of
    :func:`mira_math.integrations.sources.instances`: ``release`` gives a ``datasets.Dataset`` of
    its rows; an endless stream (``train``, ``stream``) the first ``n`` problems as a
    ``Dataset``, or with ``n=None`` an ``IterableDataset`` (TRL then needs ``max_steps``)."""
    from datasets import Dataset, IterableDataset

    if selection.get("config") is not None and source != "release":   # refused now, not on iteration
        raise ValueError(f"config {selection['config']!r} selects release rows: use source='release'")
    if source == "release" or n is not None:
        rows = list(grpo_rows(source, n, **selection))
        return Dataset.from_dict({"prompt": [r["prompt"] for r in rows], "record": [r["record"] for r in rows]})
    # datasets shards a list-valued generator argument across workers: pass lists as tuples
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in selection.items()}
    return IterableDataset.from_generator(grpo_rows, gen_kwargs={"source": source, **kwargs})
