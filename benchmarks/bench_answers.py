"""Answer reading under real model outputs: corpora acceptance per form, worst-case times, and
HuggingFace ``math-verify`` on the same corpora.

Usage: python benchmarks/bench_answers.py [--per-family N] [--mv-sample N] [--repeat R]
                                          [--reader-only] [--quick]
(``--quick``: every section on a small slice of its corpus, one repeat: a smoke run. Exit
status 1 when a wrong answer of the corpora is accepted.)

1. The corpora of ``tests/verifiers/corpus.py`` (built from the committed release's answers):
   realistic correct answers through the whole message path (raw solver message ->
   ``parse_action`` -> ``verify``), with the acceptance rate per documented form and per
   message style; wrong answers (hedges, chains, boxes in expressions, corrections, relations,
   approximations, two boxes, doubled signs, ...) with the acceptance rate per attack.
2. Worst case of ``verify`` on adversarial 2,000-character inputs and of ``parse_action`` on
   adversarial 100,000-character messages (best of ``--repeat`` runs per input, the maximum over
   inputs; target <= 10 ms each).
3. Reasoning models and gaming: the corpora of ``tests/eval/reasoning_corpus.py``
   over all 2,310 release instances (think drafts that agree or disagree with the visible
   answer, unclosed think blocks, reasoning-only replies; conditional final answers, a dash
   before the value, text after the answer line, second values in words, hedges, copied format
   examples, a solver that plays both parts), through ``read_message`` -> ``verify``: per form,
   how many cases, how many credited, how many judged wrongly.
4. If ``math_verify`` is importable (install it in a throwaway environment, never in the
   project's: ``python -m venv /tmp/mv && /tmp/mv/bin/pip install math-verify``, then run this
   script with that interpreter and ``PYTHONPATH=.``), its accept rates on a sample of the same
   corpora and its time per answer against ours; else a one-line skip message.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "verifiers"))

import corpus  # noqa: E402
from mira_math.game.reading import parse_action  # noqa: E402
from mira_math.verifiers import verify  # noqa: E402


def _ours(case) -> bool:
    action = parse_action(case.message)
    return action.kind == "answer" and verify(case.instance, action.text).correct


def corpora(per_family: int) -> tuple:
    correct = corpus.correct_cases(per_family)
    wrong = corpus.wrong_cases(max(1, per_family // 3))
    by_form, by_style = Counter(), Counter()
    ok_form, ok_style = Counter(), Counter()
    t0 = time.perf_counter()
    for case in correct:
        ok = _ours(case)
        by_form[case.form] += 1
        by_style[case.style] += 1
        ok_form[case.form] += ok
        ok_style[case.style] += ok
    t_correct = time.perf_counter() - t0
    print(f"realistic correct answers (raw message -> parse_action -> verify): "
          f"{sum(ok_form.values())} of {len(correct)} accepted "
          f"({100 * sum(ok_form.values()) / len(correct):.2f}%), {1e6 * t_correct / len(correct):.0f} us each")
    print(f"  {'form':42} {'accepted':>9}")
    for form in sorted(by_form):
        print(f"  {form:42} {ok_form[form]:>5}/{by_form[form]:<5} {100 * ok_form[form] / by_form[form]:6.1f}%")
    print(f"  {'message style':42}")
    for style in sorted(by_style):
        print(f"  {style:42} {ok_style[style]:>5}/{by_style[style]:<5} {100 * ok_style[style] / by_style[style]:6.1f}%")
    by_attack, acc_attack = Counter(), Counter()
    t0 = time.perf_counter()
    for case in wrong:
        by_attack[case.form] += 1
        acc_attack[case.form] += verify(case.instance, case.message).correct
    t_wrong = time.perf_counter() - t0
    print(f"\nwrong answers (hedged, chained, boxed in expressions, relations, ...): "
          f"{sum(acc_attack.values())} of {len(wrong)} accepted, {len(by_attack)} attacks, "
          f"{1e6 * t_wrong / len(wrong):.0f} us each")
    shown = [a for a in sorted(by_attack) if acc_attack[a]] or sorted(by_attack)[:12]
    for attack in shown:
        print(f"  {attack:42} {acc_attack[attack]:>5}/{by_attack[attack]:<5}")
    if not any(acc_attack.values()):
        print(f"  (every attack 0 accepted; first 12 listed; all: {', '.join(sorted(by_attack))})")
    return correct, wrong, sum(acc_attack.values())


def _adversarial_answers(n: int = 2000) -> dict:
    unit = {
        "spaces": " ", "digits": "1", "digit space": "1 ", "open braces": "{", "boxes": "\\boxed{",
        "equals": "=", "label chain": "x=", "parentheses": "(", "commas": "1,", "named": "q0=1,",
        "fracs": "\\frac{", "dots": ".", "minus": "-", "letters": "a", "is": " is ", "colons": ":",
        "ohms": "1 ohms ", "mod": "(mod 3)", "begin": "\\begin{pmatrix}", "backslashes": "\\",
        "and": " and ", "brackets index": "a[1]", "dollars": "$", "stars": "**", "dashes": "\u2010",
        "Greek": "\\pi_", "superscripts": "\u00b2", "unicode letters": "\u00e9", "pmatrix rows": "1 \\\\ ",
        "mixed": "x = \\frac{1}{2} ",
    }
    out = {name: (s * (n // len(s) + 1))[:n] for name, s in unit.items()}
    out["long number"] = "1" * (n - 2) + "/3"
    out["long decimal"] = "0." + "1" * (n - 2)
    out["deep box"] = ("\\boxed{" * 200 + "1" + "}" * 200)[:n]
    for o, c in ("()", "[]", "{}"):
        out[f"nested {o}{c}"] = o * (n // 2 - 1) + "1" + c * (n // 2 - 1)
    out["nested pairs"] = ("((1))," * n)[:n]
    out["label tuples"] = ("(q0,q1,q2)=" * n)[:n]
    out["box then spaces"] = ("\\boxed{1}" + " " * n)[:n]
    out["sentence then digits"] = ("The answer is " + "1 " * n)[:n]
    return out


def _adversarial_messages(n: int = 100_000) -> dict:
    unit = {
        "one line of spaces": " ", "newlines": "\n", "answer markers": "ANSWER:", "marker lines": "ANSWER: 1\n",
        "open display": "ANSWER: $$\n", "open braces": "{", "boxes": "\\boxed{", "final answer": "final answer",
        "final answer lines": "Final Answer:\n", "colons": ":", "bullets": "- > ** ", "request lines": "REQUEST:\n",
        "dollars": "$", "backslash brackets": "\\[", "begin": "\\begin{x}", "digits": "1",
        "mixed prose": "So 1 + 1 = 2. ",
        # the rules for reasoning tags, speakers, template tokens, values and hedges
        "think tags": "<think>", "closing think tags": "</think>", "think in inline code": "`<think>` ",
        "bracket THINK": "[THINK]a", "template tokens": "<|im_start|>", "header openers": "<|start|>",
        "speaker labels": "**User**:\n", "Unicode numerals": "\u00be", "number words": "twelfth ",
        "hedge adverbs": "ANSWER: 1 tentatively\n", "one long word": "a",
    }
    out = {name: (s * (n // len(s) + 1))[:n] for name, s in unit.items()}
    out["box never closed"] = "\\boxed{" + "{" * (n - 7)
    out["spaces then marker"] = " " * (n - 10) + "ANSWER: 1"
    out["marker then spaces"] = "ANSWER:" + " " * (n - 7)
    out["final answer then spaces"] = "Final answer" + " " * (n - 12)
    return out


def _worst(fn, inputs: dict, repeat: int) -> tuple:
    worst, worst_name, times = 0.0, "", {}
    for name, text in inputs.items():
        best = min(_timed(fn, text) for _ in range(repeat))
        times[name] = best
        if best > worst:
            worst, worst_name = best, name
    return worst, worst_name, times


def _timed(fn, text) -> float:
    t0 = time.perf_counter()
    fn(text)
    return time.perf_counter() - t0


def worst_cases(instances, repeat: int) -> None:
    answers = _adversarial_answers()
    worst_v, name_v = 0.0, ""
    for inst in instances:
        w, name, _ = _worst(lambda t, i=inst: verify(i, t), answers, repeat)
        if w > worst_v:
            worst_v, name_v = w, f"{name} ({inst.answer.type}, {inst.family})"
    messages = _adversarial_messages()
    worst_p, name_p, times = _worst(parse_action, messages, repeat)
    print(f"\nworst case of verify on {len(answers)} adversarial 2,000-character inputs x "
          f"{len(instances)} answer types/contexts: {1000 * worst_v:.2f} ms ({name_v})")
    print(f"worst case of parse_action on {len(messages)} adversarial 100,000-character messages: "
          f"{1000 * worst_p:.2f} ms ({name_p}); median {1000 * sorted(times.values())[len(times) // 2]:.2f} ms")


def math_verify_comparison(correct, wrong, sample: int) -> None:
    try:
        from math_verify import parse as mv_parse
        from math_verify import verify as mv_verify
    except ImportError:
        print("\nmath-verify: not installed here, comparison skipped (see the docstring to run it)")
        return
    rnd = random.Random(1234)
    sc = rnd.sample(correct, min(sample, len(correct)))
    sw = rnd.sample(wrong, min(sample, len(wrong)))

    def gold(inst):
        return mv_parse("$" + inst.answer.value + "$")

    def theirs(case, text) -> bool:
        try:
            return bool(mv_verify(gold(case.instance), mv_parse(text)))
        except Exception:  # noqa: BLE001 - counted as a rejection
            return False

    t0 = time.perf_counter()
    mv_c = Counter()
    for case in sc:
        mv_c[case.form] += theirs(case, case.message)
    t_mv = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours_ok = sum(_ours(case) for case in sc)
    t_ours = time.perf_counter() - t0
    mv_w, by_w = Counter(), Counter()
    for case in sw:
        by_w[case.form] += 1
        mv_w[case.form] += theirs(case, case.message)
    n_c, n_w = sum(mv_c.values()), sum(mv_w.values())
    print(f"\nmath-verify (parse + verify, same messages; {len(sc)} correct, {len(sw)} wrong sampled):")
    print(f"  correct accepted: math-verify {n_c}/{len(sc)} ({100 * n_c / len(sc):.1f}%), ours {ours_ok}/{len(sc)}")
    print(f"  wrong accepted:   math-verify {n_w}/{len(sw)} ({100 * n_w / len(sw):.1f}%), ours 0/{len(sw)}")
    print(f"  time per correct message: math-verify {1000 * t_mv / len(sc):.2f} ms, "
          f"ours {1000 * t_ours / len(sc):.3f} ms "
          f"({t_mv / max(t_ours, 1e-9):.0f}x)")
    by_c = Counter(c.form for c in sc)
    worst = sorted(by_c, key=lambda f: mv_c[f] / by_c[f])[:10]
    print("  forms math-verify rejects most: " + ", ".join(f"{f} {mv_c[f]}/{by_c[f]}" for f in worst))
    top = sorted((a for a in by_w if mv_w[a]), key=lambda a: -mv_w[a] / by_w[a])[:12]
    print("  attacks math-verify accepts: " + ", ".join(f"{a} {mv_w[a]}/{by_w[a]}" for a in top))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-family", type=int, default=30, help="distinct answers per family in the corpora")
    parser.add_argument("--mv-sample", type=int, default=1500, help="corpus cases per side given to math-verify")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reader-only", action="store_true",
                        help="only the reader's time per message (section 5), e.g. to compare two checkouts")
    parser.add_argument("--quick", action="store_true", help="small slices, one repeat (smoke run)")
    args = parser.parse_args()
    stride = 1
    if args.quick:
        args.per_family, args.mv_sample, args.repeat, stride = 2, 20, 1, 25
    print(f"python {platform.python_version()} on {platform.machine()}")
    if args.reader_only:
        reader_time(args.repeat, stride)
        return 0
    correct, wrong, accepted_wrong = corpora(args.per_family)
    contexts = {}
    for inst in corpus.release_instances(1):
        contexts.setdefault((inst.answer.type, inst.family), inst)
    worst_cases(list(contexts.values())[::stride], args.repeat)
    reasoning_rates(stride)
    math_verify_comparison(correct, wrong, args.mv_sample)
    reader_time(args.repeat, stride)
    return 1 if accepted_wrong else 0


def reader_time(repeat: int, stride: int = 1) -> None:
    """5. The reader's time per message (``read_message``: reasoning, speaker cut, action): each
    message of the reasoning, over-credit and reader corpora timed alone, best of ``repeat``
    calls, and the MEDIAN over the corpus (robust to the few long adversarial messages and to a
    shared machine's spikes; the mean is printed beside it). The corpus is fixed (every fifth
    release instance), so two checkouts compare: copy ``tests/eval/reader_corpus.py`` into an
    older one and run its copy of this script with ``--reader-only`` for a before/after figure."""
    sys.path.insert(0, str(ROOT))
    from mira_math.game.reading import read_message
    from tests.eval import reader_corpus, reasoning_corpus as rc

    instances = rc.all_instances()[::5]
    cases = rc.reasoning_cases(instances) + rc.overcredit_cases(instances)
    cases += reader_corpus.cases(reader_corpus.sample_instances())
    cases = cases[::stride]
    clock = time.perf_counter_ns
    read_ns, verify_ns = [], []
    for case in cases:
        best_r = best_v = float("inf")
        for _ in range(repeat):
            t0 = clock()
            action = read_message(case.message, case.reasoning).action
            t1 = clock()
            if action.kind == "answer":
                verify(case.instance, action.text)
            t2 = clock()
            best_r, best_v = min(best_r, t1 - t0), min(best_v, t2 - t0)
        read_ns.append(best_r)
        verify_ns.append(best_v)
    print(f"\nreader time per message over {len(cases)} messages (each best of {repeat} calls): "
          f"read_message MEDIAN {statistics.median(read_ns) / 1e3:.2f} us "
          f"(mean {statistics.fmean(read_ns) / 1e3:.2f} us, max {max(read_ns) / 1e3:.0f} us); "
          f"read_message + verify median {statistics.median(verify_ns) / 1e3:.2f} us")


def reasoning_rates(stride: int = 1) -> None:
    """Per-form rates of the reasoning and over-credit corpora (all release instances, or every
    ``stride``-th)."""
    sys.path.insert(0, str(ROOT))
    from tests.eval import reasoning_corpus as rc

    instances = rc.all_instances()[::stride]
    cases = rc.reasoning_cases(instances) + rc.overcredit_cases(instances)
    t0 = time.perf_counter()
    table = rc.rates(cases)
    spent = time.perf_counter() - t0
    print(f"reasoning and over-credit corpora: {len(cases)} messages over {len(instances)} instances, "
          f"{1e6 * spent / len(cases):.0f} us each (read_message -> verify)")
    print(f"  {'corpus: form':78} {'n':>6} {'credited':>9} {'wrong':>6}")
    for key, row in table.items():
        print(f"  {key[:78]:78} {row['n']:6d} {row['credited']:9d} {row['wrong']:6d}")
    print(f"  total judged wrongly: {sum(row['wrong'] for row in table.values())}")


if __name__ == "__main__":
    raise SystemExit(main())
