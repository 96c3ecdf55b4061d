"""inspect's ``mockllm/model`` replaying a scripted solver (``reference``, ``noask``): each
generate() call finds its instance by the opening messages and answers as the solver would."""

from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

from mira_math.eval.solvers import make_solver
from mira_math.game.messages import SolverCall
from mira_math.game.prompts import initial_conversation
from mira_math.generators.schema import Instance


def replaying(spec: str, instances: Sequence[Instance], regime: str = "zs") -> Any:
    """A ``custom_outputs`` callable for mockllm: the scripted solver ``spec``'s reply."""
    from inspect_ai.model import ModelOutput, ModelUsage

    solver = make_solver(spec)
    opening: Dict[Tuple[str, ...], Instance] = {}
    for inst in instances:
        key = tuple(m["content"] for m in initial_conversation(inst, regime))
        assert key not in opening, f"two instances open alike: {inst.id}"
        opening[key] = inst

    def output(messages: list, tools: Any, tool_choice: Any, config: Any) -> Any:
        conversation = [{"role": m.role, "content": m.text} for m in messages]
        inst = opening[tuple(m["content"] for m in conversation[:2])]
        (completion,) = solver.generate([SolverCall(inst, conversation, config.seed or 0)])
        out = ModelOutput.from_content(model="mockllm", content=completion.text)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return out

    return output


VOLATILE = ("wall_s", "solver", "meta")    # timing, the solver's label, backend call records


def plain(value: Any) -> Any:
    """A transcript without what differs between harnesses by design (``VOLATILE``)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
