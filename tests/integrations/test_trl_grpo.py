"""One GRPO step with TRL's ``GRPOTrainer(environment_factory=...)`` on CPU, on a tiny randomly
initialised Qwen2 model and a byte-level tokenizer built here (nothing downloaded). The policy is
the random model steered by a logits processor that spells out the reference solver's tool calls
(``ask`` for the canonical slot, then ``answer``: exactly on some instances, 0 on the others),
so the step runs TRL's whole tool loop: parsing the calls, the environment's tools, its reward.
The reward TRL logs equals the exact verifier's verdicts on the answers the environment recorded."""

from __future__ import annotations

import itertools
import json

import pytest

torch = pytest.importorskip("torch", reason="needs the trl extra (make test-integrations)")
pytest.importorskip("trl", reason="needs the trl extra (make test-integrations)")

from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import LogitsProcessor, LogitsProcessorList, PreTrainedTokenizerFast, Qwen2Config  # noqa: E402
from transformers import Qwen2ForCausalLM  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402
from trl.chat_template_utils import qwen2_5_chat_template  # noqa: E402

from mira_math.eval.solvers import ReferenceSolver  # noqa: E402
from mira_math.game.messages import SolverCall  # noqa: E402
from mira_math.integrations.common import release_instances  # noqa: E402
from mira_math.integrations.trl_env import PROTOCOL, MiraToolEnv  # noqa: E402
from mira_math.verifiers import verify  # noqa: E402

ROLLOUTS = 4


def byte_tokenizer() -> PreTrainedTokenizerFast:
    """Byte-level BPE without merges: every byte one token, plus the chat template's specials."""
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    core = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(sorted(alphabet))}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  additional_special_tokens=["<|im_start|>"])
    tok.chat_template = qwen2_5_chat_template
    tok.padding_side = "left"
    return tok


def desired_turn(inst, text: str, exact: bool) -> str:
    """The reference solver's next tool call, given the rollout's text so far."""
    if "<tool_response>" not in text:
        args = {"request": f"What is the value of {inst.hints[0].slot}?"}
        name = "ask"
    else:
        holder = text.rpartition("<tool_response>")[2].split("\n")
        reply = ReferenceSolver()._reply(SolverCall(inst, [{"role": "user", "content": "\n".join(holder)}], 0))
        value = reply.rpartition("ANSWER: ")[2] if reply.startswith("The holder") and exact else "0"
        args, name = {"value": value}, "answer"
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": args})}\n</tool_call><|im_end|>'


class Script(LogitsProcessor):
    """Forces each row's next token to follow :func:`desired_turn` for the instance its prompt
    holds; the model's own logits are kept for nothing else (the step still trains it)."""

    def __init__(self, tok, chosen):
        self.tok, self.chosen = tok, chosen
        self.marker = tok.encode("<|im_start|>assistant\n")

    def __call__(self, input_ids, scores):
        forced = torch.full_like(scores, float("-inf"))
        for row, ids in enumerate(input_ids.tolist()):
            text = self.tok.decode(ids)
            inst, exact = next((i, n % 2 == 0) for n, i in enumerate(self.chosen) if i.view.question in text)
            start = max(p for p in range(len(ids)) if ids[p:p + len(self.marker)] == self.marker) + len(self.marker)
            target = self.tok.encode(desired_turn(inst, text, exact))
            done = ids[start:]
            nxt = target[len(done)] if done == target[:len(done)] and len(done) < len(target) \
                else self.tok.eos_token_id
            forced[row, nxt] = 0.0
        return scores + forced


class ScriptedQwen2(Qwen2ForCausalLM):
    script: Script

    def generate(self, *args, **kwargs):
        kwargs["logits_processor"] = LogitsProcessorList([self.script])
        return super().generate(*args, **kwargs)


def test_one_grpo_step_rewards_are_the_verifier(tmp_path):
    torch.manual_seed(0)
    tok = byte_tokenizer()
    chosen = [i for i in release_instances(family="bayes_missing_prior")][:ROLLOUTS]
    config = Qwen2Config(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=8192,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    model = ScriptedQwen2(config)
    model.script = Script(tok, chosen)
    source = itertools.cycle(chosen)
    made = []

    def factory():
        env = MiraToolEnv(source=source)
        made.append(env)
        return env

    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=ROLLOUTS, num_generations=2,
                      max_steps=1, max_completion_length=384, learning_rate=1e-3, logging_steps=1,
                      report_to="none", use_cpu=True, bf16=False, save_strategy="no", seed=0,
                      max_tool_calling_iterations=3)
    trainer = GRPOTrainer(model=model, args=args, processing_class=tok, environment_factory=factory)
    before = [p.detach().clone() for p in model.parameters()]
    trainer.train()

    played = [env for env in made if env._episode is not None]
    assert len(played) == ROLLOUTS
    records = [env.record() for env in played]
    verdicts = []
    for record, env in zip(records, played):
        t = record["transcript"]
        assert record["protocol"] == PROTOCOL and record["answered"], t
        assert [turn["role"] for turn in t["turns"]] == ["solver", "responder", "solver"]
        verdicts.append(1.0 if verify(env.episode.inst, t["final_answer"]).correct else 0.0)
        assert record["reward"] == verdicts[-1]
    assert 0 < sum(verdicts) < ROLLOUTS                   # rights and wrongs both
    logged = trainer.state.log_history[0]
    assert logged["rewards/MiraToolEnv/mean"] == pytest.approx(sum(verdicts) / ROLLOUTS)
    assert logged["reward"] == pytest.approx(sum(verdicts) / ROLLOUTS)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))   # the step trained
