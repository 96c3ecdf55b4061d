"""Solver prompts: zero-shot and four-shot system prompts, the problem message, and the
fixed feedback messages. Answer-format examples are placeholders (``<an integer n>``), never
values: a model that copies the example must not copy a gold answer (protocol 1.2).
Everything the solver reads comes from here, and :func:`prompt_hash` fingerprints it for the
run manifest.

The four-shot examples are complete dialogues built from instances of the dedicated seed set
``fewshot-v1`` (checked disjoint from every evaluation split at run time); their responder
turns show the canonical fact itself, and one of them starts with a vague request that is
declined.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Iterable, List, Optional, Sequence, Set

from mira_math.game.protocol import DECLINE_TEXT, PROTOCOL_VERSION
from mira_math.game.messages import Conversation
from mira_math.generators import registry
from mira_math.generators.build import latent_key, make_instance, view_key
from mira_math.generators.schema import Instance
from mira_math.generators.seeds import SeedSet, instance_seed

FEWSHOT_SEED_SET = SeedSet.named("fewshot-v1")
# (family, difficulty, vague first request?) for the four example dialogues
_FEWSHOT_PLAN = (
    ("bayes_missing_prior", 1, False),
    ("circuit_missing_resistance", 1, True),
    ("recurrence_missing_init", 1, False),
    ("linear_system_missing_coeff", 1, False),
)
VAGUE_REQUEST = "Can you tell me the missing information?"

# The lines both system prompts share: how to act, and the budget and answer rules.
_HOW_TO_ACT = """\
How to work:
- End every message with exactly one action line, either
  REQUEST: <a request to the information holder>
  or
  ANSWER: <your final answer>
  You may reason before the action line; only the last action line counts.
"""
_BUDGET_AND_ANSWER = """\
- You have a budget of requests. A message without an action line counts as a request. When \
the budget is spent you get one last turn, in which only ANSWER counts.
- You may answer at any time, and may keep asking after a reply while requests remain.
- Give the exact value: an integer or a reduced fraction p/q, never a decimal.
- Write only your own turn: never write the information holder's reply or the next user \
message."""

SYSTEM_TEMPLATE = """\
You are solving a math problem in which exactly one fact you need is missing from what you \
are given. An information holder has that fact among its private constraints.

""" + _HOW_TO_ACT + """\
- The information holder sees only your current request: not the problem, not this \
conversation. If your request names exactly one of its constraints, it replies with that \
constraint verbatim; otherwise it replies "{decline}" Name the missing quantity precisely, in \
the problem's notation.
""" + _BUDGET_AND_ANSWER

# The prompt of an instance whose view lacks k >= 2 facts (the multi_hint part,
# docs/decisions/data.md): it says that facts are missing without saying how many, that one request gets at
# most one constraint, and that a request naming several gets the decline. The k = 1 prompt
# above is unchanged, byte for byte.
MULTI_SYSTEM_TEMPLATE = """\
You are solving a math problem in which some facts you need are missing from what you are \
given. An information holder has the missing facts among its private constraints.

""" + _HOW_TO_ACT + """\
- The information holder sees only your current request: not the problem, not this \
conversation, not your earlier requests. If your request names exactly one of its \
constraints, it replies with that constraint verbatim; otherwise, including a request that \
names several quantities at once, it replies "{decline}" Ask for one missing quantity per \
request, named precisely in the problem's notation.
""" + _BUDGET_AND_ANSWER

# The prompt of a blind-tier instance (docs/decisions/data-blind-tier.md): it never says whether a
# fact is missing or how many, and it says what an unnecessary request costs.
BLIND_SYSTEM_TEMPLATE = """\
You are solving a math problem. What you are given may be complete, or some facts the answer \
needs may be missing from it. An information holder may have facts the problem lacks, \
among its private constraints.

""" + _HOW_TO_ACT + """\
- The information holder sees only your current request: not the problem, not this \
conversation, not your earlier requests. If your request names exactly one of its \
constraints, it replies with that constraint verbatim; otherwise, including a request that \
names several quantities at once, it replies "{decline}" Ask for one quantity per request, \
named precisely in the problem's notation.
- Ask only for what the answer needs. A request on a problem that is already determined, or \
for a quantity whose value does not change the answer, is an unnecessary request: an answer \
counts as minimal only if it is correct and you made no unnecessary request. If what you are \
given determines the answer, answer at once.
""" + _BUDGET_AND_ANSWER

_PROBLEM = """\
{context}

What you know:
{facts}

{domain}

Question: {question}

Answer format: {answer_format}
"""
USER_TEMPLATE = _PROBLEM + "You have {budget} request(s)."
ORACLE_TEMPLATE = _PROBLEM + 'No requests are available: reply with your final answer as "ANSWER: ..." now.'

REPLY_TEMPLATE = "Information holder: {shown}"
FORMAT_ERROR_TEMPLATE = (
    "Your message had no action line. End each message with exactly one line "
    "\"REQUEST: ...\" or \"ANSWER: ...\". This counted as a request.")
LEFT_TEMPLATE = "{left} request(s) left."
FINAL_TEMPLATE = "You have no requests left: reply with your final answer as \"ANSWER: ...\"."


def answer_format(inst: Instance) -> str:
    """How to write the answer, per answer type."""
    kind = inst.answer.type
    if kind == "tuple":
        names = ", ".join(inst.answer.components)
        return (f"ANSWER: ({names}) = (...), exact values in that order, "
                f"e.g. ANSWER: ({names}) = ({', '.join(['...'] * len(inst.answer.components))})")
    if kind == "cell":
        return "ANSWER: <0 or 1>"
    if kind == "int":
        return "ANSWER: <an integer n>"
    return "ANSWER: <an exact reduced fraction p/q, or an integer>"


def problem_message(inst: Instance, oracle_hint: bool = False) -> str:
    facts = list(inst.view.facts)
    if oracle_hint:   # one canonical fact of each group (k = 1: the first hint, as before)
        facts += [group[0].constraint for group in inst.groups()] if inst.k > 1 \
            else [h.constraint for h in inst.hints[:1]]
    fields = dict(context=inst.view.context, facts="\n".join(f"- {f}" for f in facts),
                  domain=inst.view.domain, question=inst.view.question,
                  answer_format=answer_format(inst), budget=inst.budget)
    return (ORACLE_TEMPLATE if oracle_hint else USER_TEMPLATE).format(**fields)


def reply_message(shown: Optional[str], left: int, final: bool) -> str:
    """Feedback after a turn: the responder's reply (or the format reminder) and the budget."""
    head = FORMAT_ERROR_TEMPLATE if shown is None else REPLY_TEMPLATE.format(shown=shown)
    tail = FINAL_TEMPLATE if final else LEFT_TEMPLATE.format(left=left)
    return f"{head}\n{tail}"


# ------------------------------------------------------------------ four-shot examples

@functools.lru_cache(maxsize=1)
def fewshot_instances() -> List[Instance]:
    out = []
    for index, (family, d, _) in enumerate(_FEWSHOT_PLAN):
        seed = instance_seed(FEWSHOT_SEED_SET, family, d, index)
        out.append(make_instance(registry.get(family), d, seed, id=f"fewshot-{index}",
                                 seed_set=FEWSHOT_SEED_SET.name))
    return out


def fewshot_keys() -> Set[str]:
    return {k for inst in fewshot_instances() for k in (latent_key(inst), view_key(inst))}


def check_fewshot_disjoint(instances: Iterable[Instance]) -> None:
    """Refuse an evaluation split that shares a state or a view with the examples."""
    keys = fewshot_keys()
    for inst in instances:
        if latent_key(inst) in keys or view_key(inst) in keys:
            raise ValueError(f"instance {inst.id} repeats a four-shot example; use another split")


def _example(number: int, inst: Instance, vague: bool) -> str:
    hint = inst.hints[0]
    lines = [f"Example {number}", "", "Problem:", problem_message(inst), ""]
    left = inst.budget
    if vague:
        left -= 1
        lines += [f"Solver: REQUEST: {VAGUE_REQUEST}",
                  reply_message(DECLINE_TEXT, left, left == 0), ""]
    left -= 1
    lines += [f"Solver: I need the value of {hint.slot}.\nREQUEST: What is {hint.slot}?",
              reply_message(hint.constraint, left, left == 0), "",
              f"Solver: ANSWER: {_written_answer(inst)}"]
    return "\n".join(lines)


def _written_answer(inst: Instance) -> str:
    if inst.answer.type == "tuple":
        return f"({', '.join(inst.answer.components)}) = {inst.answer.value}"
    return inst.answer.value


@functools.lru_cache(maxsize=1)
def _fewshot_block() -> str:
    examples = [_example(i + 1, inst, vague)
                for i, (inst, (_, _, vague)) in enumerate(zip(fewshot_instances(), _FEWSHOT_PLAN))]
    return "Here are four complete example dialogues.\n\n" + "\n\n".join(examples)


def system_prompt(regime: str, k: int = 1, blind: bool = False) -> str:
    """The system prompt of a regime; ``k`` >= 2 (several facts missing) takes the multi-fact
    text, whose four-shot examples are the same one-fact dialogues; ``blind`` (a blind-tier
    instance, whatever its k) the blind text, zero-shot only: the four-shot dialogues all ask,
    which would tell the solver that something is missing."""
    if blind:
        if regime != "zs":
            raise ValueError(f"the blind tier is zero-shot only (regime {regime!r}): its four-shot "
                             "examples would show that a fact is missing")
        return BLIND_SYSTEM_TEMPLATE.format(decline=DECLINE_TEXT)
    base = (SYSTEM_TEMPLATE if k == 1 else MULTI_SYSTEM_TEMPLATE).format(decline=DECLINE_TEXT)
    if regime == "zs":
        return base
    if regime == "4s":
        return base + "\n\n" + _fewshot_block()
    raise ValueError(f"unknown regime {regime!r}: use zs or 4s")


def initial_conversation(inst: Instance, regime: str, oracle_hint: bool = False) -> Conversation:
    return [{"role": "system", "content": system_prompt(regime, inst.k, inst.blind)},
            {"role": "user", "content": problem_message(inst, oracle_hint)}]


def prompt_hash(regime: str, k: int = 1, blind: bool = False) -> str:
    """sha256 of everything a solver can be shown, for this regime and protocol version (and,
    for instances with k >= 2 missing facts, the multi-fact system prompt; for the blind tier,
    the blind one; k = 1 unchanged)."""
    parts: Sequence[str] = (PROTOCOL_VERSION, system_prompt(regime, k, blind), USER_TEMPLATE, ORACLE_TEMPLATE,
                            REPLY_TEMPLATE, FORMAT_ERROR_TEMPLATE, LEFT_TEMPLATE, FINAL_TEMPLATE,
                            DECLINE_TEXT)
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()
