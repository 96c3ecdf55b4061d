"""Rebuild the third-party answer corpora (``*.jsonl`` beside this file) from the sources' own
test data, so every stored case can be traced to a repository, a path, a commit and a line.

Only DATA is carried over (model outputs, gold answers, the source's verdict); no code of the
sources is used or copied. Each source is read from a local git directory of its repository
(any clone or mirror), at the commit pinned below::

    python tests/verifiers/third_party/build_corpora.py \\
        --math-verify GITDIR --lm-eval GITDIR --reasoning-gym GITDIR --qwen-math GITDIR

A case is kept only where the gold is one exact integer, rational or tuple of them; every
other case is counted in ``skipped.json`` with the reason. The build is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent

COMMITS = {
    "math_verify": ("huggingface/Math-Verify", "5d148cfaaf99214c2e4ffb4bc497ab042c592a7a"),
    "lm_eval": ("EleutherAI/lm-evaluation-harness", "4e7e0d47f33bc71070c1d38394bafbb52b117163"),
    "reasoning_gym": ("open-thought/reasoning-gym", "49b07130b3fcd12f2d064bba7c43869543a0e7e7"),
    "qwen25_math": ("QwenLM/Qwen2.5-Math", "a45202bd16f1ec06f433442dc1152d0074773465"),
}

Gold = Tuple[str, str, List[str]]  # answer_type, canonical value, component names


def git_show(gitdir: str, commit: str, path: str) -> str:
    out = subprocess.run(["git", "-C", gitdir, "show", f"{commit}:{path}"], check=True,
                         capture_output=True)
    return out.stdout.decode("utf-8")


def git_ls(gitdir: str, commit: str, under: str) -> List[str]:
    out = subprocess.run(["git", "-C", gitdir, "ls-tree", "-r", "--name-only", commit, under],
                         check=True, capture_output=True, text=True)
    return sorted(out.stdout.split())


# ---------------------------------------------------------------- gold answers

_INT = re.compile(r"^[-\u2212]?\d+$")
_DEC = re.compile(r"^[-\u2212]?\d*\.\d+$")
_SLASH = re.compile(r"^([-\u2212]?\d+)\s*/\s*(\d+)$")
_FRAC = re.compile(r"^([-\u2212]?)\\[dt]?frac\{([-\u2212]?\d+)\}\{(\d+)\}$")
_THOUSANDS = re.compile(r"^[-\u2212]?[1-9]\d{0,2}((,|\{,\})\d{3})+$")  # 3,250 and 10{,}000
_MIXED = re.compile(r"^(\d+)\\[dt]?frac\{(\d+)\}\{(\d+)\}$")


def _unwrap(s: str) -> str:
    s = s.strip()
    changed = True
    while changed:
        changed = False
        for a, b in (("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
            if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
                s, changed = s[len(a):len(s) - len(b)].strip(), True
        for cmd in ("\\boxed{", "\\text{", "\\mathrm{"):
            if s.startswith(cmd) and s.endswith("}") and _balanced(s[len(cmd):-1]):
                s, changed = s[len(cmd):-1].strip(), True
    return s


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def scalar(s: str) -> Optional[Tuple[Fraction, str]]:
    """An exact scalar and how it was written (``int``, ``decimal``, ``fraction``, ``mixed``)."""
    s = _unwrap(s).replace("\u2212", "-")
    if _INT.match(s):
        return Fraction(int(s)), "int"
    if _DEC.match(s):
        return Fraction(s), "decimal"
    if _THOUSANDS.match(s):
        return Fraction(int(s.replace("{,}", "").replace(",", ""))), "int"
    m = _SLASH.match(s)
    if m and int(m.group(2)) != 0:
        return Fraction(int(m.group(1)), int(m.group(2))), "fraction"
    m = _FRAC.match(s)
    if m and int(m.group(3)) != 0:
        sign = -1 if m.group(1) else 1
        return sign * Fraction(int(m.group(2)), int(m.group(3))), "fraction"
    m = _MIXED.match(s)
    if m and int(m.group(3)) != 0:
        return Fraction(int(m.group(1))) + Fraction(int(m.group(2)), int(m.group(3))), "mixed"
    return None


def _fmt(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def gold_of(text: str) -> Tuple[Optional[Gold], str]:
    """The gold as (type, canonical, components), or None and why it is skipped."""
    s = _unwrap(text)
    one = scalar(s)
    if one is not None:
        kind = "int" if one[0].denominator == 1 and one[1] == "int" else "fraction"
        return (kind, _fmt(one[0]), []), one[1]
    if len(s) > 2 and s[0] == "(" and s[-1] == ")":
        parts = [scalar(p) for p in s[1:-1].split(",")]
        if len(parts) > 1 and all(p is not None for p in parts):
            names = ["x", "y", "z"] if len(parts) <= 3 else [f"x{i + 1}" for i in range(len(parts))]
            vals = [_fmt(p[0]) for p in parts if p is not None]
            return ("tuple", "(" + ", ".join(vals) + ")", names[:len(parts)]), "tuple"
    return None, skip_reason(s)


def skip_reason(s: str) -> str:
    if not s.strip():
        return "gold: empty"
    if any(t in s for t in ("\\cup", "\\cap", "\\{", "\\infty", "[", "]", "\\in ")) or \
            (s[:1] in "([" and s[-1:] in ")]" and s.count(",") == 1 and s[:1] != s[-1:]):
        return "gold: set or interval"
    if "," in s and not re.search(r"[A-Za-z\\]", s):
        return "gold: list, thousands separator or decimal comma"
    if any(t in s for t in ("%", "\\%", "^\\circ", "\\text", "\\mbox", "\\mathrm", "dollars", "cm")):
        return "gold: unit, percent or degrees"
    if re.search(r"[<>=]|\\le|\\ge|\\neq", s):
        return "gold: equation or inequality"
    if "i" in re.sub(r"\\[a-z]+", "", s) and re.search(r"\d\s*i\b|\bi\b", s):
        return "gold: complex number"
    if re.search(r"\de[-+]?\d", s):
        return "gold: scientific notation"
    if re.search(r"[A-Za-z]|\\", s):
        return "gold: symbolic (letters, roots, pi, functions, matrices)"
    return "gold: other non-exact form"


def is_whole_response(pred: str) -> bool:
    """A model output that is a response rather than a value: a box or an answer phrase."""
    low = pred.lower()
    return "\\boxed" in pred or "answer is" in low or "final answer" in low


def case(source: str, path: str, case_id: str, message: str, gold: Gold, verdict: bool,
         note: str) -> Dict[str, Any]:
    row: Dict[str, Any] = {
        "source": COMMITS[source][0], "source_path": path, "source_commit": COMMITS[source][1],
        "case_id": case_id, "message": message, "gold_answer": gold[1], "answer_type": gold[0],
        "source_verdict": verdict, "note": note}
    if gold[0] == "tuple":
        row["components"] = gold[2]
    return row


class Skips:
    def __init__(self) -> None:
        self.by_source: Dict[str, Counter] = {}

    def add(self, source: str, reason: str, n: int = 1) -> None:
        self.by_source.setdefault(source, Counter())[reason] += n


# ---------------------------------------------------------------- Math-Verify


def _parametrize_rows(tree: ast.AST) -> Iterator[Tuple[str, int, Dict[str, Any]]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and getattr(dec.func, "attr", "") == "parametrize"):
                continue
            names = [n.strip() for n in ast.literal_eval(dec.args[0]).split(",")]
            if not isinstance(dec.args[1], (ast.List, ast.Tuple)):
                continue
            for elt in dec.args[1].elts:
                try:
                    values = ast.literal_eval(elt)
                except ValueError:
                    continue
                if isinstance(values, tuple) and len(values) == len(names):
                    yield node.name, elt.lineno, dict(zip(names, values))


def build_math_verify(gitdir: str, skips: Skips) -> List[Dict[str, Any]]:
    commit = COMMITS["math_verify"][1]
    rows: List[Dict[str, Any]] = []
    for path in git_ls(gitdir, commit, "tests"):
        if not path.endswith(".py"):
            continue
        tree = ast.parse(git_show(gitdir, commit, path))
        for func, line, params in _parametrize_rows(tree):
            verdict = params.get("expected", params.get("result"))
            if "gold" not in params or "pred" not in params or not isinstance(verdict, (int, bool)):
                skips.add("math_verify", "no gold/pred/verdict triple (extraction-config test)")
                continue
            gold_text, pred = params["gold"], params["pred"]
            if not isinstance(gold_text, str) or not isinstance(pred, str):
                skips.add("math_verify", "non-string gold or prediction")
                continue
            gold, how = gold_of(gold_text)
            if gold is None and "\\boxed" in gold_text:
                box = gold_text.rfind("\\boxed{")
                inner = gold_text[box + 7:]
                depth, end = 1, -1
                for k, ch in enumerate(inner):
                    depth += {"{": 1, "}": -1}.get(ch, 0)
                    if depth == 0:
                        end = k
                        break
                if end >= 0:
                    gold, how = gold_of(inner[:end])
                    how = "gold read from the last \\boxed of a response; " + how
            if gold is None:
                skips.add("math_verify", how)
                continue
            if gold[0] == "tuple" and re.search(r"\\in\b|interval|inequality", pred):
                skips.add("math_verify", "gold: set or interval (the output states x \\in an interval)")
                continue
            opts = {k: v for k, v in params.items() if k not in ("gold", "pred", "expected", "result")}
            note = f"{func}; gold written {how}" + (f"; source options {opts}" if opts else "")
            base = f"math_verify:{path.split('/')[-1]}:{line}"
            rows.append(case("math_verify", path, base + ":answer", "ANSWER: " + pred, gold,
                             bool(verdict), note))
            if is_whole_response(pred):
                rows.append(case("math_verify", path, base + ":whole", pred, gold, bool(verdict),
                                 note + "; the whole output as a message (fallback)"))
    return rows


# ---------------------------------------------------------------- lm-evaluation-harness

_LM_ANSWER = re.compile(r"The (?:final )?answer is \$?(-?[0-9.,]+)")


def build_lm_eval(gitdir: str, skips: Skips) -> List[Dict[str, Any]]:
    import yaml  # PyYAML: only this builder needs it, never the tests

    commit = COMMITS["lm_eval"][1]
    rows: List[Dict[str, Any]] = []
    for path in ("lm_eval/tasks/gsm8k/gsm8k-cot.yaml", "lm_eval/tasks/gsm8k/gsm8k-cot-llama.yaml"):
        doc = yaml.safe_load(git_show(gitdir, commit, path))
        for i, sample in enumerate(doc["fewshot_config"]["samples"]):
            target = sample["target"]
            found = _LM_ANSWER.findall(target)
            if len(found) != 1:
                skips.add("lm_eval", "few-shot target without one stated answer")
                continue
            extracted = found[0].rstrip(".")
            gold, _ = gold_of(extracted.replace(",", ""))
            if gold is None:
                skips.add("lm_eval", "gold: not an exact value")
                continue
            note = (f"few-shot exemplar {i} (a reference output, its own answer is the gold: "
                    "the source's strict-match reads it as correct)")
            base = f"lm_eval:{path.split('/')[-1]}:sample{i}"
            rows.append(case("lm_eval", path, base + ":whole", target, gold, True,
                             note + "; the whole output as a message (fallback)"))
            rows.append(case("lm_eval", path, base + ":answer", "ANSWER: " + extracted, gold, True,
                             note + "; the value the source's regex extracts, as an action line"))
    for path in ("lm_eval/tasks/minerva_math/utils.py", "lm_eval/tasks/leaderboard/math/utils.py"):
        tree = ast.parse(git_show(gitdir, commit, path))
        samples: List[Dict[str, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "list_fewshot_samples":
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Return) and sub.value is not None:
                        samples = ast.literal_eval(sub.value)
        if path.startswith("lm_eval/tasks/leaderboard") and samples:
            skips.add("lm_eval", f"duplicate of minerva_math few-shot samples ({len(samples)})")
            continue
        for i, sample in enumerate(samples):
            sol = sample["solution"]
            m = re.search(r"The final answer is (.*?)\. I hope it is correct\.", sol)
            gold, how = gold_of(m.group(1)) if m else (None, "no final-answer sentence")
            if gold is None or m is None:
                skips.add("lm_eval", how)
                continue
            note = (f"minerva few-shot solution {i} (a reference output; its boxed value is the "
                    "dataset's gold and its 'Final Answer' line ends 'I hope it is correct.')")
            base = f"lm_eval:minerva_math/utils.py:sample{i}"
            rows.append(case("lm_eval", path, base + ":whole", sol, gold, True,
                             note + "; the whole output as a message (fallback)"))
            rows.append(case("lm_eval", path, base + ":answer", "ANSWER: " + m.group(1), gold, True,
                             note + "; the final-answer value as an action line"))
    return rows


# ---------------------------------------------------------------- reasoning-gym
# Literal cases of the test files, transcribed as data: (path, line, model answer, gold, score,
# what the scorer is). Cases that need a generated dataset item are not literal and not kept.

_RG_CASES: Sequence[Tuple[str, int, Optional[str], str, float, str]] = (
    ("tests/test_decimal_chain_sum.py", 236, "1.200", "1.2", 1.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 237, "1.20", "1.200", 1.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 238, "-0.5", "-0.500", 1.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 241, "0.1", "0.100", 1.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 242, "0.3", "0.300", 1.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 245, "1.200000001", "1.200", 0.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 246, "1.199999999", "1.200", 0.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 249, None, "1.200", 0.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 250, "", "1.200", 0.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 251, "invalid", "1.200", 0.0, "decimal_chain_sum score_answer"),
    ("tests/test_decimal_chain_sum.py", 252, "1.2.3", "1.200", 0.0, "decimal_chain_sum score_answer"),
    ("tests/test_power_function.py", 100, "1.000e+00", "1.0", 1.0, "power_function score_answer"),
    ("tests/test_power_function.py", 107, "1.00", "0.9999", 1.0,
     "power_function score_answer (significant-figure rounding)"),
    ("tests/test_power_function.py", 114, "-8.00", "-8.000000", 1.0, "power_function score_answer"),
    ("tests/test_power_function.py", 121, "1.00e-6", "0.000001", 1.0, "power_function score_answer"),
    ("tests/test_power_function.py", 128, "999.0", "1000.0", 0.01, "power_function score_answer"),
    ("tests/test_number_format.py", 106, "54245.32", "54245.32", 1.0, "number_format score_answer"),
    ("tests/test_number_format.py", 110, "54,245.32", "54245.32", 1.0, "number_format score_answer"),
    ("tests/test_number_format.py", 113, "5.424532e+04", "54245.32", 1.0, "number_format score_answer"),
    ("tests/test_number_format.py", 117, "54245.9", "54245.32", 0.0, "number_format score_answer"),
    ("tests/test_number_format.py", 121, None, "54245.32", 0.0, "number_format score_answer"),
    ("tests/test_number_format.py", 125, "test", "54245.32", 0.0, "number_format score_answer"),
    ("tests/test_calendar_arithmetic.py", 126, "10", "10", 1.0, "calendar_arithmetic score_answer"),
    ("tests/test_calendar_arithmetic.py", 127, "15", "10", 0.0821, "calendar_arithmetic score_answer"),
    ("tests/test_calendar_arithmetic.py", 128, "no number", "10", 0.0, "calendar_arithmetic score_answer"),
    ("tests/test_calendar_arithmetic.py", 129, None, "10", 0.0, "calendar_arithmetic score_answer"),
    ("tests/test_utils.py", 36, "42", "42", 1.0, "compute_decimal_reward"),
    ("tests/test_utils.py", 37, "3.14", "3.14", 1.0, "compute_decimal_reward"),
    ("tests/test_utils.py", 40, "1,000", "1000", 1.0, "compute_decimal_reward"),
    ("tests/test_utils.py", 44, "+0001,000.00", "1000", 1.0, "compute_decimal_reward"),
    ("tests/test_utils.py", 47, "The answer is 42", "42", 0.5,
     "compute_decimal_reward (partial credit: 0.01 < score < 1)"),
    ("tests/test_utils.py", 51, None, "42", 0.0, "compute_decimal_reward"),
    ("tests/test_utils.py", 52, "", "42", 0.0, "compute_decimal_reward"),
    ("tests/test_utils.py", 53, "not a number", "42", 0.0, "compute_decimal_reward"),
    ("tests/test_scoring.py", 51, "42", "42", 1.0, "string_match"),
    ("tests/test_scoring.py", 58, "  42  ", "42", 1.0, "string_match"),
    ("tests/test_scoring.py", 61, "42", "43", 0.0, "string_match"),
    ("tests/test_scoring.py", 77, "3.14", "3.14", 1.0, "float_match"),
    ("tests/test_scoring.py", 80, "100", "100.5", 1.0, "float_match (relative tolerance)"),
    ("tests/test_scoring.py", 83, "100", "102", 0.0, "float_match"),
    ("tests/test_scoring.py", 86, "0", "0.005", 1.0, "float_match (absolute tolerance)"),
    ("tests/test_scoring.py", 89, "-5.0", "-5.0", 1.0, "float_match"),
    ("tests/test_scoring.py", 90, "-5.0", "5.0", 0.0, "float_match"),
    ("tests/test_scoring.py", 93, "abc", "42", 0.0, "float_match"),
    ("tests/test_scoring.py", 94, "42", "abc", 0.0, "float_match"),
    ("tests/test_scoring.py", 157, "42", "42", 1.0, "cascade_score"),
    ("tests/test_scoring.py", 163, "\\text{42}", "42", 1.0, "cascade_score"),
    ("tests/test_scoring.py", 166, "100.05", "100", 1.0, "cascade_score (numeric tolerance)"),
    ("tests/test_scoring.py", 169, "42", "99", 0.0, "cascade_score"),
    ("tests/test_scoring.py", 172, "", "42", 0.0, "cascade_score"),
    ("tests/test_scoring.py", 14, "\\(42\\)", "42", 1.0, "strip_latex reads it as 42"),
)
# Whole messages the source's tag extractor reads (gold, message, extracted value).
_RG_TAGGED: Sequence[Tuple[str, int, str, str, str]] = (
    ("tests/test_utils.py", 7, "1234", "This is a text. <final_answer>1234</final_answer>",
     "extract_answer(tag_name='final_answer')"),
    ("tests/test_utils.py", 10, "1234", "This is a text. <answer>\n1234 </answer>",
     "extract_answer(tag_name='answer', strip=True)"),
)


def build_reasoning_gym(gitdir: str, skips: Skips) -> List[Dict[str, Any]]:
    commit = COMMITS["reasoning_gym"][1]
    rows: List[Dict[str, Any]] = []
    texts: Dict[str, List[str]] = {}
    for path, line, answer, gold_text, score, what in _RG_CASES:
        lines = texts.setdefault(path, git_show(gitdir, commit, path).splitlines())
        src = "\n".join(lines[max(0, line - 4):line])  # the case's line and the three before it
        shown = "None" if answer is None else answer.strip()
        if shown not in src:
            raise SystemExit(f"{path}:{line}: the transcribed case {answer!r} is not at that line")
        if answer is None:
            skips.add("reasoning_gym", "answer is None (not a message)")
            continue
        gold, how = gold_of(gold_text)
        if gold is None:
            skips.add("reasoning_gym", how)
            continue
        note = f"{what}; score {score} (1.0 is equal, anything less is not); gold written {how}"
        rows.append(case("reasoning_gym", path, f"reasoning_gym:{path.split('/')[-1]}:{line}:answer",
                         "ANSWER: " + answer, gold, score == 1.0, note))
    for path, line, gold_text, message, what in _RG_TAGGED:
        gold, how = gold_of(gold_text)
        assert gold is not None
        rows.append(case("reasoning_gym", path, f"reasoning_gym:{path.split('/')[-1]}:{line}:whole",
                         message, gold, True, f"{what} reads {gold_text}; the whole output as a message"))
    complex_path = "tests/test_complex_arithmetic.py"
    for src in git_show(gitdir, commit, complex_path).splitlines():
        if "assert" in src and 'score_answer("' in src:
            skips.add("reasoning_gym", "gold: complex number (" + complex_path + ")")
    return rows


# ---------------------------------------------------------------- Qwen2.5-Math


def build_qwen(gitdir: str, skips: Skips) -> List[Dict[str, Any]]:
    """Real Qwen2.5-Math responses with the repository's own grader verdict (``score``): per
    question with an exact gold, the first response graded correct and the first graded wrong."""
    commit = COMMITS["qwen25_math"][1]
    path = "evaluation/data/eval_rm_maj_example/math_cot_100.jsonl"
    rows: List[Dict[str, Any]] = []
    for line in git_show(gitdir, commit, path).splitlines():
        rec = json.loads(line)
        gold, how = gold_of(rec["gt"])
        if gold is None:
            skips.add("qwen25_math", how, len(rec["code"]))  # every response of the question
            continue
        picked: Dict[bool, int] = {}
        for k, ok in enumerate(rec["score"]):
            picked.setdefault(bool(ok), k)
        for ok, k in sorted(picked.items(), key=lambda kv: kv[1]):
            response, pred = rec["code"][k], rec["pred"][k]
            note = (f"question idx {rec['idx']}, response {k} of {len(rec['code'])}; the source's "
                    f"grader says {'correct' if ok else 'wrong'}; its extracted pred {pred!r}; "
                    f"gold written {how}")
            base = f"qwen25_math:math_cot_100:{rec['idx']}:{k}"
            rows.append(case("qwen25_math", path, base + ":whole", response, gold, ok,
                             note + "; the whole response as a message (fallback)"))
            rows.append(case("qwen25_math", path, base + ":answer", "ANSWER: " + pred, gold, ok,
                             note + "; the source's extracted answer as an action line"))
        dropped = len(rec["code"]) - len(picked)
        if dropped:
            skips.add("qwen25_math", "responses beyond a question's first correct and first wrong "
                                     "(not kept, to keep the corpus small)", dropped)
    skips.add("qwen25_math", "grader.py _test_math_equal pairs: commented out, no stated verdict")
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--math-verify", required=True)
    ap.add_argument("--lm-eval", required=True)
    ap.add_argument("--reasoning-gym", required=True)
    ap.add_argument("--qwen-math", required=True)
    args = ap.parse_args(argv)
    skips = Skips()
    built = {
        "math_verify": build_math_verify(args.math_verify, skips),
        "lm_eval": build_lm_eval(args.lm_eval, skips),
        "reasoning_gym": build_reasoning_gym(args.reasoning_gym, skips),
        "qwen25_math": build_qwen(args.qwen_math, skips),
    }
    for name, rows in built.items():
        ids = [r["case_id"] for r in rows]
        if len(set(ids)) != len(ids):
            raise SystemExit(f"{name}: duplicate case ids")
        with open(HERE / f"{name}.jsonl", "w", encoding="utf-8", newline="\n") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"{name}: {len(rows)} cases, skipped {sum(skips.by_source.get(name, Counter()).values())}")
    summary = {name: dict(sorted(c.items())) for name, c in sorted(skips.by_source.items())}
    (HERE / "skipped.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n",
                                       encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
