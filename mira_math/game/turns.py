"""Whose text is this: reasoning blocks and other parties' turns inside one solver message
(docs/benchmark.md §6). Both are recognised by rule, not by a list of spellings:

- a reasoning block is any tag pair whose name is a form of *think*, *thought* or *reason*,
  in any of the conventions models use (``<think>``, ``<thinking>``, ``<seed:think>``,
  ``[THINK]``, ``<|begin_of_thought|>``, ``<|START_THINKING|>``, ``◁think▷``); blocks nest,
  a closing tag with no block open ends a block that began before everything kept so far,
  and a tag inside inline code or a fenced code block is text;
- another party speaks from a line, not the message's first, that starts (after markdown)
  with the name of a party other than the solver followed by ``:`` (``**Information
  holder**:``, ``> User:``, ``The information holder replies:``), from a line of the harness's
  own feedback, or from a leaked chat-template token that ends the
  solver's turn or opens a turn of another role (``<|im_start|>user``, ``<start_of_turn>user``,
  ``<|start_header_id|>user<|end_header_id|>``, ``<｜User｜>``, ``<|start|>user``,
  ``<|start_of_role|>user``, ``<|START_OF_TURN_TOKEN|><|USER_TOKEN|>``, ``[INST]``,
  ``<|im_end|>``, ``<|eot_id|>``, ...). Template tokens of the solver's own turn header
  (``<|im_start|>assistant``) become a line break.

Every scan is a regex without nested repetition or a single pass: linear in the message.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

# ---------------------------------------------------------------- reasoning blocks

_THINK = r"(?:think|thinking|thought|thoughts|reasoning)"
# One named group per kind, so ``m.lastgroup`` classifies a tag in one step.
_REASONING_TAG_RE = re.compile(
    r"(?P<close></(?:[a-z]+:)?" + _THINK + r">|\[/" + _THINK + r"\]|<\|end_?(?:of_)?" + _THINK
    + r"\|>|\u25c1/" + _THINK + r"\u25b7)"
    r"|(?P<open><(?:[a-z]+:)?" + _THINK + r">|\[" + _THINK + r"\]|<\|(?:begin|start)_?(?:of_)?" + _THINK
    + r"\|>|\u25c1" + _THINK + r"\u25b7|<\|channel\|>(?:analysis|commentary)<\|message\|>)"
    r"|(?P<hend><\|end\|>)", re.IGNORECASE)


# The same tags with code first: a fenced block or an inline code span is matched whole (and
# skipped), so a tag inside one is text; used only where the message holds a backtick.
_TAG_OR_CODE_RE = re.compile(r"(?P<code>```[\s\S]*?(?:```|\Z)|`[^`\n]*`)|" + _REASONING_TAG_RE.pattern,
                             re.IGNORECASE)


def split_reasoning(text: str) -> Tuple[str, Optional[str]]:
    """``(visible, reasoning)``: reasoning blocks removed from the text and joined (blank
    line between). Blocks nest; one left open runs to the end of the message; a closing tag
    with no block open (templates that open the block in the prompt) makes everything before
    it reasoning. gpt-oss's analysis channel (``<|channel|>analysis<|message|>`` ... ``<|end|>``)
    is a block too. A tag in inline code or a code fence is text. One scan."""
    low = text.lower()      # substring scans first: most messages name no reasoning tag
    if "think" not in low and "thought" not in low and "reason" not in low and "<|channel|>" not in low:
        return text, None
    first = _REASONING_TAG_RE.search(text)
    if first is None:
        return text, None
    visible: List[str] = []
    thoughts: List[str] = []
    tags = _TAG_OR_CODE_RE.finditer(text) if "`" in text else _REASONING_TAG_RE.finditer(text, first.start())
    depth, pos, block_start = 0, 0, 0
    harmony = False          # the open block is an analysis channel, closed by <|end|>
    found = False
    for m in tags:
        kind = m.lastgroup
        if kind == "code":
            continue
        if kind == "hend" and not harmony:
            continue            # an end of turn, not of reasoning: the speaker cut reads it
        found = True
        if kind != "open":
            if depth == 0:              # no block open: everything so far was reasoning
                thoughts.extend(visible)
                thoughts.append(text[pos:m.start()])
                visible = []
            elif depth == 1:
                thoughts.append(text[block_start:m.start()])
            depth = max(depth - 1, 0)
            harmony = harmony and depth > 0
        else:
            if depth == 0:
                visible.append(text[pos:m.start()])
                block_start = m.end()
                harmony = m.group(0)[:11].lower() == "<|channel|>"
            depth += 1
        pos = m.end()
    if not found:
        return text, None
    if depth > 0:
        thoughts.append(text[block_start:])
    else:
        visible.append(text[pos:])
    kept = [t.strip() for t in thoughts if t.strip()]
    return "".join(visible), "\n\n".join(kept) if kept else ""


# ---------------------------------------------------------------- other speakers

# Stop sequences sent with a solver's request where the backend takes them (vLLM, local
# OpenAI-compatible servers; not the official OpenAI endpoint, whose reasoning models refuse
# them): a model stops before it writes the other party's turn. The cut below applies anyway.
STOP_SEQUENCES = ("\nInformation holder:", "\nUser:", "\nYour message had no action line")

# The parties of a MIRA-Math dialogue other than the solver (and the generic chat roles).
# "System" is not among them: no system turn follows the solver's, and "System:" over a list of
# equations is a heading.
_OTHER_PARTIES = r"(?:the[ \t]+)?(?:information[ \t]+holder|holder|responder|user|human)"
# A speaker label: the party's name at the start of a line, in any markdown (bold, italic,
# quote, heading, list), an optional parenthesis and verb of speech, then ':'; or a line of
# the harness's own feedback. Searched from the second line on: a label opening the message is
# narrative. The leading run is taken whole (an atomic group), so a failed
# match never backtracks through it.
_LABEL_RE = re.compile(
    r"^(?=(?P<lead>[ \t>#*_\-\[]*))(?P=lead)(?:"
    + _OTHER_PARTIES + r"\]?(?=(?P<trail>[ \t*_]*))(?P=trail)(?:\([^)\n]{0,40}\)[ \t*_]*)?"
    r"(?:(?:replies|responds|says|answers|writes)[ \t]*)?(?::|\uff1a)"
    r"|your message had no action line|you have no requests left|[0-9]{1,3} request\(s\) left\.)",
    re.IGNORECASE | re.MULTILINE)
_LABEL_WORDS = ("holder", "responder", "user", "human", "your message had", "no requests left", "(s) left.")

# Chat-template special tokens, parsed by their grammar rather than listed model by model:
# ``<|name|>``, DeepSeek's ``<｜name｜>``, Gemma's ``<start_of_turn>``, Llama 2 / Mistral's ``[INST]``.
_OTHER = r"(?:user|human|system|tool|ipython|developer|environment|function)"
_NAME = r"[A-Za-z0-9_\u2581 .\-]"
# A header opener: the role of the turn it opens follows it (a word, or a role token).
_OPENER = r"(?:<\|(?:im_start|start|start_header_id|start_of_role|start_of_turn_token)\|>|<start_of_turn>)"
# Where the solver's turn ends: a token that ends a turn (end / eot / eos, optionally "of
# turn|text|sentence|message", "token" or "id"; never end_header_id or end_of_role, which close a
# header), a token naming another role (``<|user|>``, ``<｜User｜>``, ``<|USER_TOKEN|>`` with
# Command-R's opener before it, ``[INST]``), or an opener followed by another role's name. The
# patterns run on the lower-cased text, each from a literal prefix (the regex engine then skips
# to the candidates), so a message full of tokens costs little more than a plain one.
_CUT_PIPE_RE = re.compile(
    r"<\|(?:(?:im_)?(?:end|eot|eos)(?:_?of_?(?:turn|text|sentence|message))?(?:_token|_id)?\|>"
    r"|(?:return|endoftext)\|>|(?:start_of_turn_token\|><\|)?(?:[a-z]{1,20}_)?" + _OTHER
    + r"(?:_[a-z]{1,20})?\|>|(?:im_start|start|start_header_id|start_of_role)\|>[ \t]*" + _OTHER + r"\b)")
_CUT_WIDE_RE = re.compile(r"<\uff5c(?:(?:end|eos)(?:[\u2581_ ]?of[\u2581_ ]?(?:sentence|turn|text))?|" + _OTHER
                          + r")\uff5c>")
_CUT_GEMMA_RE = re.compile(r"<start_of_turn>[ \t]*" + _OTHER + r"\b")
_CUT_LITERALS = ("<end_of_turn>", "</s>", "[inst]")
_CUT_RE = re.compile("|".join(p.pattern for p in (_CUT_PIPE_RE, _CUT_WIDE_RE, _CUT_GEMMA_RE))
                     + "|" + "|".join(re.escape(x) for x in _CUT_LITERALS), re.IGNORECASE)   # any text


def _template_cut(text: str, low: str) -> Optional[int]:
    """Where a chat-template token ends the solver's turn or opens another role's (None if
    nowhere)."""
    if len(low) != len(text):            # lower-casing moved positions (rare letters): one scan
        m = _CUT_RE.search(text)
        return None if m is None else m.start()
    found = [low.find(x) for x in _CUT_LITERALS]
    for pattern, hint in ((_CUT_PIPE_RE, "<|"), (_CUT_WIDE_RE, "<\uff5c"), (_CUT_GEMMA_RE, "<start_of_turn>")):
        if hint in low:
            m = pattern.search(low)
            found.append(-1 if m is None else m.start())
    found = [at for at in found if at >= 0]
    return min(found) if found else None


# Tokens of the solver's own turn (its header, with the role word after an opener; channel and
# message markers; ``[/INST]``): they become a line break.
_OWN_RE = re.compile(r"(?:<\|" + _NAME + r"{1,40}\|>|<\uff5c[^\uff5c<>\n]{1,40}\uff5c>|<start_of_turn>|\[/INST\])"
                     r"(?:[ \t]*(?:assistant|model|bot|chatbot|gpt)\b)?", re.IGNORECASE)


def _second_line(text: str) -> int:
    """Where the line after the message's first non-empty line starts (``len(text)`` if none)."""
    i = 0
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


def cut_at_other_speaker(text: str) -> Tuple[str, Optional[Dict[str, object]]]:
    """The solver's own part of a message: everything before the first place where it
    speaks for another party (a speaker label at a line start, or a template token ending
    its turn or opening another role's), with its own template header tokens turned into
    line breaks. Returns the part and the cut (``line``, the 1-based line number;
    ``speaker``, that line's start; ``dropped``, the text removed), None if uncut."""
    start: Optional[int] = None
    low = text.lower()   # substring scans first: most messages hold no label and no token
    if any(word in low for word in _LABEL_WORDS):
        m = _LABEL_RE.search(text, _second_line(text))   # a label opening the first line is narrative
        start = m.start() if m is not None else None
    at = _template_cut(text, low) if "<" in text or "[" in text else None
    if at is not None and (start is None or at < start):
        start = at
    kept = text if start is None else text[:start]
    if "<" in kept or "[/" in kept:
        kept = _OWN_RE.sub("\n", kept)
    if start is None:
        return kept, None
    end = text.find("\n", start)
    line = text[start:len(text) if end < 0 else end]
    return kept, {"line": text.count("\n", 0, start) + 1, "speaker": line.strip()[:40],
                  "dropped": text[start:]}
