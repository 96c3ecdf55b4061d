"""One GRPO step with TRL's ``GRPOTrainer(environment_factory=...)`` on CPU, on a tiny randomly
initialised Qwen2 model and a byte-level tokenizer built here (nothing downloaded), on the
one-fact part (release rows) and the two-fact part (the train stream): the dataset is
:func:`grpo_dataset`, one row per problem, which TRL repeats once per generation. The policy is
the random model steered by a logits processor that spells out tool calls: in each group one
rollout plays the reference solver (``ask`` for each missing slot, then ``answer`` exactly), the
other asks vaguely, is declined and answers 0. So every group holds one problem (checked from the
environments' resets), its rewards differ (the step trains), and the reward TRL logs equals the
exact verifier's verdicts on the answers the environments recorded."""

from __future__ import annotations

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
from mira_math.game.prompts import problem_message  # noqa: E402
from mira_math.integrations.common import record_instance  # noqa: E402
from mira_math.integrations.trl_env import PROTOCOL, MiraToolEnv, grpo_dataset, instructions  # noqa: E402
from mira_math.verifiers import verify  # noqa: E402

GENERATIONS = 2
ROLLOUTS = 4                     # two groups of two
VAGUE = "Tell me everything you know."


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


def call(name: str, **args) -> str:
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": args})}\n</tool_call><|im_end|>'


def desired_turn(inst, text: str, reference: bool) -> str:
    """The next tool call, given the rollout's text so far: the reference solver's (its
    requests, then its exact answer) or, for the other rollout, a vague request and then 0."""
    replies = [part.partition("</tool_response>")[0] for part in text.split("<tool_response>")[1:]]
    if any("Answer recorded." in r or "episode is over" in r for r in replies):
        return ""                                      # answered: end the rollout
    if not reference:
        return call("answer", value="0") if replies else call("ask", request=VAGUE)
    reply = ReferenceSolver()._reply(SolverCall(inst, [{"role": "user", "content": r} for r in replies], 0))
    if reply.startswith("REQUEST: "):
        return call("ask", request=reply[len("REQUEST: "):])
    return call("answer", value=reply.rpartition("ANSWER: ")[2])


class Script(LogitsProcessor):
    """Forces each row's next token to follow :func:`desired_turn` for the instance its prompt
    holds. Which rollout of a group plays the reference solver is fixed on the first turn, where
    the batch is whole and in TRL's order (row ``2g`` and ``2g + 1``: group ``g``), by the row's
    parity; later turns follow from the tool responses the text holds."""

    def __init__(self, tok, chosen):
        self.tok, self.chosen = tok, [(problem_message(i), i) for i in chosen]
        self.marker = tok.encode("<|im_start|>assistant\n")
        self.asked: dict = {}

    def __call__(self, input_ids, scores):
        forced = torch.full_like(scores, float("-inf"))
        for row, ids in enumerate(input_ids.tolist()):
            text = self.tok.decode(ids)
            (inst,) = [i for problem, i in self.chosen if problem in text]
            if "<tool_response>" in text:
                reference = VAGUE not in text
            else:
                reference = row % GENERATIONS == 0
            start = max(p for p in range(len(ids)) if ids[p:p + len(self.marker)] == self.marker) + len(self.marker)
            target = self.tok.encode(desired_turn(inst, text, reference))
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


class Logged(MiraToolEnv):
    """Records which instance each reset started, in TRL's order."""

    resets: list = []
    shown: list = []

    def reset(self, **example):
        observation = super().reset(**example)
        Logged.resets.append((self, self.episode.inst.id))
        Logged.shown.append(observation)
        return observation


@pytest.mark.parametrize("k", [1, 2])
def test_one_grpo_step_groups_one_problem_and_rewards_are_the_verifier(tmp_path, k):
    torch.manual_seed(0)
    tok = byte_tokenizer()
    dataset = (grpo_dataset("release", family="bayes_missing_prior") if k == 1
               else grpo_dataset("train", n=ROLLOUTS, family="bayes_missing_prior", parts=[2]))
    chosen = [record_instance(r) for r in dataset["record"]]
    assert {i.k for i in chosen} == {k} and len({i.id for i in chosen}) == len(chosen)
    config = Qwen2Config(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=8192,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    model = ScriptedQwen2(config)
    model.script = Script(tok, chosen)
    Logged.resets, Logged.shown = [], []
    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=ROLLOUTS, num_generations=GENERATIONS,
                      max_steps=1, max_completion_length=768, learning_rate=1e-3, logging_steps=1,
                      report_to="none", use_cpu=True, bf16=False, save_strategy="no", seed=0,
                      max_tool_calling_iterations=k + 2)
    trainer = GRPOTrainer(model=model, args=args, processing_class=tok, environment_factory=Logged,
                          train_dataset=dataset)
    before = [p.detach().clone() for p in model.parameters()]
    trainer.train()

    assert len(Logged.resets) == ROLLOUTS
    groups = [Logged.resets[g:g + GENERATIONS] for g in range(0, ROLLOUTS, GENERATIONS)]
    assert all(len({inst_id for _, inst_id in group}) == 1 for group in groups)      # one problem a group
    assert len({group[0][1] for group in groups}) == len(groups)                     # a problem per group
    verdicts = []
    for env, inst_id in Logged.resets:
        record = env.record()
        t = record["transcript"]
        assert record["protocol"] == PROTOCOL and record["answered"] and t["id"] == inst_id, t["turns"]
        verdicts.append(1.0 if verify(env.episode.inst, t["final_answer"]).correct else 0.0)
        assert record["reward"] == verdicts[-1]
    for g in range(len(groups)):         # the reference rollout right, the vague one wrong
        assert verdicts[g * GENERATIONS:(g + 1) * GENERATIONS] == [1.0, 0.0]
    reference = Logged.resets[0][0].record()["transcript"]
    assert [turn["role"] for turn in reference["turns"]] == ["solver", "responder"] * k + ["solver"]
    logged = trainer.state.log_history[0]
    assert logged["rewards/Logged/mean"] == pytest.approx(sum(verdicts) / ROLLOUTS)
    assert logged["reward"] == pytest.approx(sum(verdicts) / ROLLOUTS)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))   # the step trained
    assert all(instructions(k) in shown for shown in Logged.shown)
    assert all(("Exactly one fact" in shown) == (k == 1) for shown in Logged.shown)
