"""Whose text is this: reasoning blocks and other parties' turns inside one solver message
(docs/benchmark.md §6; issue 32). Both are recognised by rule, not by a list of spellings:

- a reasoning block is any tag pair whose name is a form of *think*, *thought* or *reason*,
  in any of the conventions models use (``<think>``, ``<thinking>``, ``<seed:think>``,
  ``[THINK]``, ``<|begin_of_thought|>``, ``<|START_THINKING|>``, ``◁think▷``); blocks nest,
  a closing tag with no block open ends a block that began before everything kept so far,
  and a tag inside inline code or a fenced code block is text;
- another party speaks from a line that starts (after markdown) with the name of a party
  other than the solver followed by ``:`` (``**Information holder**:``, ``> User:``), from a
  line of the harness's own feedback, or from a leaked chat-template token that ends the
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
_REASONING_TAG_RE = re.compile(
    r"<(?P<c1>/?)(?:[a-z]+:)?" + _THINK + r">"
    r"|\[(?P<c2>/?)" + _THINK + r"\]"
    r"|<\|(?P<b3>begin|start|end)_?(?:of_)?" + _THINK + r"\|>"
    r"|\u25c1(?P<c4>/?)" + _THINK + r"\u25b7"
    r"|(?P<harmony><\|channel\|>(?:analysis|commentary)<\|message\|>)|(?P<hend><\|end\|>)",
    re.IGNORECASE)


def _is_close(m: "re.Match[str]") -> bool:
    if m.group("harmony") is not None:
        return False
    if m.group("b3") is not None:
        return m.group("b3").lower() == "end"
    return bool(m.group("c1") or m.group("c2") or m.group("c4"))


class _CodeSpans:
    """Whether a position lies in inline code (an odd number of single backticks before it
    on its line) or in a fenced block (an odd number of ```` ``` ```` before it). Positions
    are asked in increasing order, so the counts advance once over the text: linear."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.fences, self.ticks = text, 0, 0, 0

    def inside(self, at: int) -> bool:
        seg = self.text[self.pos:at]
        fences = seg.count("```")
        self.fences += fences
        nl = seg.rfind("\n")
        if nl >= 0:
            line = seg[nl + 1:]
            self.ticks = line.count("`") - 3 * line.count("```")
        else:
            self.ticks += seg.count("`") - 3 * fences
        self.pos = at
        return self.fences % 2 == 1 or self.ticks % 2 == 1


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
    code = _CodeSpans(text)
    depth, pos, block_start = 0, 0, 0
    harmony = False          # the open block is an analysis channel, closed by <|end|>
    found = False
    for m in _REASONING_TAG_RE.finditer(text, first.start()):
        if code.inside(m.start()):
            continue
        if m.group("hend") is not None and not harmony:
            continue            # an end of turn, not of reasoning: the speaker cut reads it
        found = True
        if m.group("hend") is not None or _is_close(m):
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
                harmony = m.group("harmony") is not None
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
_OTHER_PARTIES = r"(?:the[ \t]+)?(?:information[ \t]+holder|holder|responder|user|human|system)"
# A speaker label: the party's name at the start of a line, in any markdown (bold, italic,
# quote, heading, list), an optional parenthesis, then ':' or a verb of speech; or a line of
# the harness's own feedback. The leading run is taken whole (an atomic group), so a failed
# match never backtracks through it.
_LABEL_RE = re.compile(
    r"^(?=(?P<lead>[ \t>#*_\-\[]*))(?P=lead)(?:"
    + _OTHER_PARTIES + r"\]?(?=(?P<trail>[ \t*_]*))(?P=trail)(?:\([^)\n]{0,40}\)[ \t*_]*)?"
    r"(?::|\uff1a|(?:replies|responds|says)\b)"
    r"|your message had no action line|you have no requests left|[0-9]{1,3} request\(s\) left\.)",
    re.IGNORECASE | re.MULTILINE)
_LABEL_WORDS = ("holder", "responder", "user", "human", "system", "your message had", "no requests left",
                "(s) left.")

# Chat-template special tokens: <|name|>, DeepSeek's <｜name｜>, Gemma's <start_of_turn>,
# Llama 2 / Mistral's [INST], and the end of a sequence.
_TOKEN_RE = re.compile(r"<\|[A-Za-z0-9_ .\-]{1,40}\|>|<\uff5c[^\uff5c<>\n]{1,40}\uff5c>"
                       r"|<(?:start|end)_of_turn>|\[/?INST\]|</s>", re.IGNORECASE)
_OTHER_ROLES = frozenset("user human system tool ipython developer environment function inst".split())
_OWN_ROLES = frozenset("assistant model bot chatbot gpt".split())
# A token that ends a turn: end / eot / eos, optionally "of turn|text|sentence|message",
# "token" or "id" ("im_end", "end_of_turn", "eot_id", "end▁of▁sentence", "END_OF_TURN_TOKEN",
# "endoftext", "return", "/s") - never "end_header_id" or "end_of_role", which close a header.
_END_RE = re.compile(r"^(?:im_)?(?:end|eot|eos)(?:_?of_?(?:turn|text|sentence|message))?"
                     r"(?:_token|_id)?$|^return$|^/s$")
# A token after which the role of the turn it opens is named.
_OPENS_HEADER = frozenset("start im_start start_of_turn start_header_id start_of_role "
                          "start_of_turn_token".split())
_ROLE_WORD_RE = re.compile(r"[ \t]*([A-Za-z]+)")


def _token_name(token: str) -> str:
    name = token.strip("<>[]|\uff5c").lower()
    return re.sub(r"[\u2581 \-]+", "_", name)


def _role_in(name: str) -> Optional[str]:
    words = [w for w in name.replace("/", " /").split("_") if w]
    for w in words:
        if w in _OTHER_ROLES or w in _OWN_ROLES:
            return w
    return None


def _template_cut(text: str) -> Tuple[Optional[int], List[Tuple[int, int]]]:
    """Where a chat-template token ends the solver's turn or opens another role's turn
    (None if nowhere), and the spans of the solver's own header tokens before it."""
    own: List[Tuple[int, int]] = []
    header: Optional[int] = None     # start of an open turn header whose role is not yet known
    for m in _TOKEN_RE.finditer(text):
        name = _token_name(m.group(0))
        if name == "/inst":
            own.append((m.start(), m.end()))
            continue
        if _END_RE.match(name):
            return (header if header is not None else m.start()), own
        role = _role_in(name)
        if role is None and name in _OPENS_HEADER:
            word = _ROLE_WORD_RE.match(text, m.end())
            role = word.group(1).lower() if word and word.group(1).lower() in (_OTHER_ROLES | _OWN_ROLES) else None
            if role is None:
                header = m.start() if header is None else header
                own.append((m.start(), m.end()))
                continue
            end = word.end() if word else m.end()
            if role in _OTHER_ROLES:
                return m.start() if header is None else header, own
            own.append((m.start(), end))
            header = None
            continue
        if role in _OTHER_ROLES:
            return (header if header is not None else m.start()), own
        own.append((m.start(), m.end()))
        header = None if role in _OWN_ROLES else header
    return None, own


def cut_at_other_speaker(text: str) -> Tuple[str, Optional[Dict[str, object]]]:
    """The solver's own part of a message: everything before the first place where it
    speaks for another party (a speaker label at a line start, or a template token ending
    its turn or opening another role's), with its own template header tokens turned into
    line breaks. Returns the part and the cut (``line``, the 1-based line number;
    ``speaker``, that line's start; ``dropped``, the text removed), None if uncut."""
    start: Optional[int] = None
    low = text.lower()   # substring scans first: most messages hold no label and no token
    if any(word in low for word in _LABEL_WORDS):
        m = _LABEL_RE.search(text)
        start = m.start() if m is not None else None
    own: List[Tuple[int, int]] = []
    if _TOKEN_RE.search(text) is not None:
        at, own = _template_cut(text)
        if at is not None and (start is None or at < start):
            start = at
    kept = text if start is None else text[:start]
    if own:
        kept = _drop_spans(kept, [(a, b) for a, b in own if a < len(kept)])
    if start is None:
        return kept, None
    end = text.find("\n", start)
    line = text[start:len(text) if end < 0 else end]
    return kept, {"line": text.count("\n", 0, start) + 1, "speaker": line.strip()[:40],
                  "dropped": text[start:]}


def _drop_spans(text: str, spans: List[Tuple[int, int]]) -> str:
    out, pos = [], 0
    for a, b in spans:
        out.append(text[pos:a])
        out.append("\n")
        pos = min(b, len(text))
    out.append(text[pos:])
    return "".join(out)
