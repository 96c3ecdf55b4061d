"""Scores from answers, not from flags: what ``score`` checks before it trusts a transcript.

A run directory is plain files; anyone can flip ``verdict.correct``, rewrite ``final_answer``,
delete the turns or append a line. So every transcript's final answer is read again from the
raw text of its last solver turn (the one reader, :func:`mira_math.game.reading.read_message`)
and must equal the recorded one, a transcript without solver turns is refused, the final answer
is judged again with the verifier and must agree with the stored verdict, every epoch must be
one the run has, and every id must be one the run's selection picks (recomputed from the manifest's
dataset files and selection options), with the manifest's instance count equal to that
selection's size. A disagreement is a :class:`ScoringError` naming the file and line.

Re-verification costs little: the verifier needs an instance's answer (type, value, components)
and its :class:`AnswerContext`, both small, so they are kept per instance (identical ones shared;
read with the dataset, :func:`mira_math.eval.rundir.dataset.file_judges`) and a verdict is
memoised per (answer, context, text): a run's answers repeat.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from mira_math.eval.rundir.dataset import Dataset, Judge, Key, file_judges, resolve_data_file
from mira_math.eval.rundir.files import ScoringError, preview
from mira_math.eval.rundir.runs import run_epochs
from mira_math.game.reading import read_message
from mira_math.verifiers.parse import AnswerContext
from mira_math.verifiers.verify import verify_answer


class IntegrityError(ScoringError):
    """A run whose files disagree with what the answers and the selection say."""


@dataclass(frozen=True)
class _Answer:
    type: str
    value: str
    components: List[str]


class RunGuard:
    """One run directory's checks: ids against the selection, verdicts against the verifier."""

    def __init__(self, run_dir: Path, manifest: Mapping[str, Any], dataset: Dataset,
                 shard: Optional[Tuple[int, int]]):
        self.where = run_dir / "manifest.json"
        self.judges: Dict[Key, Optional[Judge]] = {}
        for name in reversed(dataset.files):     # a key in two files: the first file's line wins, as in the index
            self.judges.update(file_judges(resolve_data_file(name, run_dir)))
        selection = (manifest.get("config") or {}).get("selection") or {}
        if not isinstance(selection, dict):
            raise IntegrityError(f"{self.where}: field 'config.selection': expected an object")
        recorded = bool(selection)          # `mira-math eval` always records its selection options;
        # a run made through the Python API with a ready Selection records none: its ids are
        # checked against the dataset files only
        # None: the selection picks every instance of the dataset files, and scoring checks that
        # a transcript's instance is in those (Dataset.lookup) before calling check: no set needed
        self.selected: Optional[Set[Key]] = None
        picked = len(dataset.infos)
        if recorded and _narrows(selection, shard):
            self.selected = set(selected_keys([i.key for i in dataset.infos],
                                              {i.key: i.family for i in dataset.infos}, selection, shard))
            picked = len(self.selected)
        count = (manifest.get("dataset") or {}).get("instances")
        if recorded and count is not None and count != picked:
            raise IntegrityError(f"{self.where}: field 'dataset.instances': {count!r}, but the run's "
                                 f"selection picks {picked} instances: the manifest was edited")
        self._memo: Dict[Tuple[Judge, str], bool] = {}
        config = manifest.get("config") or {}
        self.epochs = run_epochs(config)
        self.ask_first = config.get("protocol") == "ask-first"
        self._readings: Dict[str, Tuple[str, str]] = {}

    def check(self, row: Mapping[str, Any], key: Key, where: str) -> None:
        """Refuse a transcript outside the selection or the run's epochs, without solver turns,
        whose final answer is not its last solver turn's, or whose stored verdict is not the
        verifier's."""
        if self.selected is not None and key not in self.selected:
            raise IntegrityError(f"{where}: instance {key[1]} is not in this run's selection "
                                 f"(see {self.where}): a transcript of another run or an added line")
        epoch = row.get("epoch", 0)
        if type(epoch) is int and epoch >= self.epochs:
            raise IntegrityError(f"{where}: field 'epoch': {epoch}, but the run has {self.epochs} epoch(s) "
                                 f"(see {self.where}): an added line")
        if row.get("error") is not None:
            return                              # errored transcripts are counted apart
        answer = row.get("final_answer")
        reread = self.final_answer(row, where)
        if reread != answer:
            raise IntegrityError(f"{where}: field 'final_answer' is {preview(answer)} but the last solver turn "
                                 f"reads as {preview(reread)}: the transcript was edited (or written by "
                                 "another reader)")
        verdict = row.get("verdict")
        stored = verdict.get("correct", False) if isinstance(verdict, dict) else False
        actual = False if answer is None else self.judge(key, str(answer))
        if stored is not actual:
            raise IntegrityError(f"{where}: field 'verdict.correct' is {json.dumps(stored)} but the "
                                 f"verifier judges the final answer {'correct' if actual else 'wrong'}: "
                                 "the transcript was edited (or written by another verifier)")

    def final_answer(self, row: Mapping[str, Any], where: str) -> Optional[str]:
        """The final answer as the episode read it from the raw text of the last solver turn
        (a cut-off or refused reply is no answer), or None."""
        turns = row.get("turns")
        solver = [(n, t) for n, t in enumerate(turns) if isinstance(t, dict) and t.get("role") == "solver"] \
            if isinstance(turns, list) else []
        if not solver:
            raise IntegrityError(f"{where}: field 'turns': no solver turn, so no answer can be read: "
                                 "the transcript was edited")
        n, last = solver[-1]
        raw = last.get("raw")
        if not isinstance(raw, str):
            raise IntegrityError(f"{where}: field 'turns[{n}].raw': expected the solver's text, got {preview(raw)}")
        if last.get("finish_reason") == "length" or last.get("refusal"):
            return None
        found = self._readings.get(raw)
        if found is None:
            action = read_message(raw).action
            found = (action.kind, action.text)
            if len(self._readings) < 65536:     # scripted runs repeat their messages
                self._readings[raw] = found
        kind, text = found
        if kind != "answer" or (self.ask_first and last.get("action") == "format_error"):
            return None                         # ask-first: an answer before any request is refused
        return text

    def judge(self, key: Key, text: str) -> bool:
        judge = self.judges.get(key)
        if judge is None:
            raise IntegrityError(f"{self.where}: instance {key[1]}: its answer cannot be read from the dataset")
        memo_key = (judge, text)
        found = self._memo.get(memo_key)
        if found is None:
            answer = _Answer(judge[0], judge[1], list(judge[2]))
            ctx = AnswerContext(units=judge[3], modulus=judge[4], aliases=judge[5])
            found = self._memo[memo_key] = verify_answer(answer, text, ctx).correct  # type: ignore[arg-type]
        return found


def _narrows(selection: Mapping[str, Any], shard: Optional[Tuple[int, int]]) -> bool:
    """Whether :func:`selected_keys` can leave out an instance (else it picks them all)."""
    return bool(shard or selection.get("families") or selection.get("ids") or selection.get("sample")
                or selection.get("limit") is not None)


def selected_keys(keys: Sequence[Key], families: Mapping[Key, str], selection: Mapping[str, Any],
                  shard: Optional[Tuple[int, int]]) -> List[Key]:
    """The keys the selection picks, in dataset order, as ``eval`` picks them (families, ids,
    sample, shard, then limit)."""
    picked = list(keys)
    if selection.get("families"):
        wanted = set(selection["families"])
        picked = [k for k in picked if families[k] in wanted]
    if selection.get("ids"):
        wanted_ids = set(selection["ids"])
        picked = [k for k in picked if k[1] in wanted_ids]
    sample = selection.get("sample")
    if sample:
        size, seed = sample
        positions = sorted(random.Random(seed).sample(range(len(picked)), min(size, len(picked))))
        picked = [picked[n] for n in positions]
    if shard:
        picked = picked[shard[0]::shard[1]]
    limit = selection.get("limit")
    if limit is not None:
        picked = picked[:max(0, int(limit))]
    return picked
