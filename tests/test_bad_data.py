"""Bad data: a copy of the committed release with a flipped byte, a missing
file, a truncated line, a line with a missing field, a wrong type or a duplicated id fails
``mira-math verify``, ``mira-math validate`` and ``mira-math eval --data`` with an error that
names the file, the line and the field where they apply, before any model call.

``eval --data DIR`` checks ``CHECKSUMS.sha256`` first, so there the error names the file whose
digest no longer matches; the line and field are proved on the same broken JSONL passed as
``--data FILE`` (a copy outside the release, which has no manifest) and on the folder without
its manifest. "Before any model call" is proved with a solver factory that records every
solver it makes and every call: it makes none, and no run directory is created.

``verify`` regenerates the whole release from ``release_info.json`` (1.5 s); that regeneration
does not read the folder, so it is computed once per session and reused (``regenerate_once`` of
tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable, NamedTuple, Optional

import pytest

import mira_math.eval.solvers
import mira_math.generators.release
from mira_math.eval.solvers import NoAskSolver
from mira_math.cli.main import main
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.release import CHECKSUMS, data_path

RELEASE = DEFAULT_RELEASE
FIRST = data_path("bayes_missing_prior")        # the first family file, in registry order
SECOND = data_path("crt_reconstruction")
LINE = 4                                         # the line a per-line case breaks


# ------------------------------------------------------------------ fixtures

@pytest.fixture(autouse=True)
def _fast_verify(regenerate_once):
    """verify regenerates the committed release once per session (tests/conftest.py); each
    verify here still compares every byte of its own damaged copy."""


@pytest.fixture
def release(tmp_path) -> Path:
    out = tmp_path / RELEASE.name
    shutil.copytree(RELEASE, out)
    return out


@pytest.fixture
def calls(monkeypatch):
    """Every solver ``mira-math eval`` makes, and every batch it is asked to answer."""
    record = {"made": 0, "generate": 0, "requests": 0}

    class Recording(NoAskSolver):
        def generate(self, batch):
            record["generate"] += 1
            record["requests"] += len(batch)
            return super().generate(batch)

    def make_solver(spec, params=None, backend=None, **options):
        record["made"] += 1
        return Recording()

    monkeypatch.setattr(mira_math.eval.solvers, "make_solver", make_solver)
    return record


def _run(capsys, *argv):
    capsys.readouterr()
    code = main([str(a) for a in argv])
    printed = capsys.readouterr()
    return code, printed.out + printed.err


def _lines(path: Path):
    return path.read_bytes().splitlines(keepends=True)


def _edit_row(path: Path, line: int, change: Callable[[dict], None]) -> dict:
    lines = _lines(path)
    row = json.loads(lines[line - 1])
    change(row)
    lines[line - 1] = (json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    path.write_bytes(b"".join(lines))
    return row


# ------------------------------------------------------------------ the corruptions

class Broken(NamedTuple):
    file: str                   # the release-relative file that is broken
    line: Optional[int]         # the line the error must name (None: a whole-file problem)
    field: Optional[str]        # the field it must name (None: not applicable)
    message: str                # what read_jsonl / validate says about it


def flip_byte_non_utf8(root: Path) -> Broken:
    """One bit flipped in an ASCII letter of line 4: the byte is no longer UTF-8."""
    path = root / FIRST
    lines = _lines(path)
    line = bytearray(lines[LINE - 1])
    at = line.index(b'"question":"') + len('"question":"') + 3
    assert line[at] < 0x80
    line[at] ^= 0x80
    lines[LINE - 1] = bytes(line)
    path.write_bytes(b"".join(lines))
    return Broken(FIRST, LINE, None, "not valid JSON: 'utf-8' codec can't decode byte")


def flip_byte_in_the_answer(root: Path) -> Broken:
    """One bit flipped in a digit of line 4's answer: still a well-formed record, now wrong."""
    path = root / FIRST
    lines = _lines(path)
    line = bytearray(lines[LINE - 1])
    at = line.index(b'"answer":{"type":"fraction","value":"') + len(b'"answer":{"type":"fraction","value":"')
    assert chr(line[at]).isdigit() and line[at] ^ 1 != ord("0")
    line[at] ^= 1                     # '1' <-> '0', '2' <-> '3', ...: another digit
    lines[LINE - 1] = bytes(line)
    path.write_bytes(b"".join(lines))
    tid = json.loads(lines[LINE - 1])["id"]
    return Broken(FIRST, LINE, None, f"{tid}: global_uniqueness: stored answer")


def missing_file(root: Path) -> Broken:
    (root / FIRST).unlink()
    return Broken(FIRST, None, None, "missing")


def truncated_file(root: Path) -> Broken:
    """The file cut in the middle of its last line (no trailing newline)."""
    path = root / FIRST
    data = path.read_bytes()
    last = data.count(b"\n")
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: start + (len(data) - start) // 2])
    return Broken(FIRST, last, None, "last line is not newline-terminated (truncated file?)")


def truncated_line(root: Path) -> Broken:
    """Line 4 cut in the middle of its JSON, the newline kept."""
    path = root / FIRST
    lines = _lines(path)
    lines[LINE - 1] = lines[LINE - 1][: len(lines[LINE - 1]) // 2] + b"\n"
    path.write_bytes(b"".join(lines))
    return Broken(FIRST, LINE, None, "not valid JSON")


def missing_field(root: Path) -> Broken:
    _edit_row(root / FIRST, LINE, lambda row: row.pop("answer"))
    return Broken(FIRST, LINE, "answer", "missing")


def missing_nested_field(root: Path) -> Broken:
    _edit_row(root / FIRST, LINE, lambda row: row["hints"][0].pop("constraint"))
    return Broken(FIRST, LINE, "hints[0].constraint", "missing")


def wrong_type(root: Path) -> Broken:
    _edit_row(root / FIRST, LINE, lambda row: row.update(difficulty=str(row["difficulty"])))
    return Broken(FIRST, LINE, "difficulty", "expected int, got str")


def wrong_nested_type(root: Path) -> Broken:
    _edit_row(root / FIRST, LINE, lambda row: row["view"].update(facts="P(E|H) = 1/6"))
    return Broken(FIRST, LINE, "view.facts", "expected list, got str")


def duplicated_id(root: Path) -> Broken:
    first = json.loads(_lines(root / FIRST)[1])["id"]
    _edit_row(root / FIRST, LINE, lambda row: row.update(id=first))
    return Broken(FIRST, LINE, "id", f"duplicate id {first!r} (first on line 2)")


def duplicated_id_across_files(root: Path) -> Broken:
    """Line 4 of the second family's file takes an id of the first family's file."""
    first = json.loads(_lines(root / FIRST)[0])["id"]
    _edit_row(root / SECOND, LINE, lambda row: row.update(id=first))
    return Broken(SECOND, LINE, "id", f"duplicate id {first!r} (first in {root / FIRST}:1)")


def empty_id(root: Path) -> Broken:
    """An empty id ran under eval and then made --resume refuse the run for good."""
    _edit_row(root / FIRST, LINE, lambda row: row.update(id=""))
    return Broken(FIRST, LINE, "id", "expected a non-empty id without NUL, got ''")


PER_LINE = [flip_byte_non_utf8, truncated_file, truncated_line, missing_field, missing_nested_field,
            wrong_type, wrong_nested_type, duplicated_id, duplicated_id_across_files, empty_id]
ALL = [flip_byte_non_utf8, flip_byte_in_the_answer, missing_file] + PER_LINE[1:]


def _where(root: Path, broken: Broken) -> str:
    """``FILE:LINE: field 'NAME': MESSAGE`` as DataError words it (the parts that apply)."""
    text = f"{root / broken.file}:{broken.line}: " if broken.line else f"{root / broken.file}: "
    if broken.field:
        text += f"field {broken.field!r}: "
    return text + broken.message


# ------------------------------------------------------------------ the tests

def test_the_pristine_copy_passes_and_the_recorder_sees_calls(release, calls, capsys, tmp_path):
    """The control: the same commands accept an intact copy, and the recording solver is used."""
    assert _run(capsys, "verify", release)[0] == 0
    assert _run(capsys, "validate", release / FIRST, release / SECOND)[0] == 0
    code, text = _run(capsys, "eval", "--solver", "noask", "--data", release, "--limit", 3,
                      "--out", tmp_path / "run")
    assert code == 0, text
    assert calls == {"made": 1, "generate": 1, "requests": 3}


@pytest.mark.parametrize("corrupt", ALL, ids=lambda f: f.__name__)
def test_verify_fails_naming_the_file_and_line(release, capsys, corrupt):
    broken = corrupt(release)
    code, text = _run(capsys, "verify", release)
    assert code == 1
    path = release / broken.file
    if broken.line is None:    # gone: the manifest lists it and the regenerated release has it
        assert f"FAIL {path}: listed in {CHECKSUMS} but missing" in text
        assert f"FAIL {path}: missing" in text
    else:
        assert f"FAIL {path}: sha256 does not match {CHECKSUMS}" in text
        assert f"FAIL {path}: differs from the regenerated release at line {broken.line}" in text


@pytest.mark.parametrize("corrupt", ALL, ids=lambda f: f.__name__)
def test_validate_fails_naming_the_file_line_and_field(release, capsys, corrupt):
    broken = corrupt(release)
    code, text = _run(capsys, "validate", release)
    assert code == 1
    if broken.line is None:
        assert f"mira-math validate: {release / broken.file}: missing" in text
    else:
        assert _where(release, broken) in text, text
    if corrupt is not duplicated_id_across_files and broken.line is not None:
        # the file alone, too (a cross-file duplicate needs both files to be seen)
        code, text = _run(capsys, "validate", release / broken.file)
        assert code == 1 and _where(release, broken) in text


def test_validate_a_missing_file_argument(release, capsys):
    missing_file(release)
    code, text = _run(capsys, "validate", release / FIRST)
    assert code == 1 and f"mira-math validate: {release / FIRST}: no such file" in text


@pytest.mark.parametrize("corrupt", ALL, ids=lambda f: f.__name__)
def test_eval_on_the_folder_fails_on_its_checksums_before_any_call(release, calls, capsys, tmp_path,
                                                                    corrupt):
    broken = corrupt(release)
    out = tmp_path / "run"
    code, text = _run(capsys, "eval", "--solver", "noask", "--data", release, "--out", out)
    assert code == 1
    assert "mira-math eval: the release fails its checksums: " in text
    what = (f"listed in {CHECKSUMS} but missing" if broken.line is None
            else f"sha256 does not match {CHECKSUMS}")
    assert f"{release / broken.file}: {what}" in text
    assert calls == {"made": 0, "generate": 0, "requests": 0} and not out.exists()


@pytest.mark.parametrize("corrupt", PER_LINE, ids=lambda f: f.__name__)
def test_eval_on_the_file_names_the_line_and_field_before_any_call(release, calls, capsys, tmp_path,
                                                                   corrupt):
    broken = corrupt(release)
    out = tmp_path / "run"
    if corrupt is duplicated_id_across_files:
        # one file holds no duplicate; the folder without its manifest shows the two together
        (release / CHECKSUMS).unlink()
        code, text = _run(capsys, "eval", "--solver", "noask", "--data", release, "--out", out)
        assert code == 1 and f"mira-math eval: {_where(release, broken)}" in text, text
    else:
        loose = tmp_path / "loose" / "test.jsonl"        # outside any release: no manifest to check
        loose.parent.mkdir()
        shutil.copyfile(release / broken.file, loose)
        code, text = _run(capsys, "eval", "--solver", "noask", "--data", loose, "--out", out)
        moved = broken._replace(file="test.jsonl")
        assert code == 1 and f"mira-math eval: {_where(loose.parent, moved)}" in text, text
        # and the folder without its manifest reports the same line and field
        (release / CHECKSUMS).unlink()
        code, text = _run(capsys, "eval", "--solver", "noask", "--data", release, "--out", out)
        assert code == 1 and f"mira-math eval: {_where(release, broken)}" in text, text
    assert calls == {"made": 0, "generate": 0, "requests": 0} and not out.exists()


def test_eval_on_a_missing_file_before_any_call(release, calls, capsys, tmp_path):
    missing_file(release)
    out = tmp_path / "run"
    code, text = _run(capsys, "eval", "--solver", "noask", "--data", release / FIRST, "--out", out)
    assert code == 1 and f"mira-math eval: {release / FIRST}: no such file" in text
    assert calls == {"made": 0, "generate": 0, "requests": 0} and not out.exists()


def test_a_bad_line_fails_before_the_first_model_call_even_late_in_the_data(release, calls, capsys,
                                                                           tmp_path):
    """The last line of the last file is broken: nothing is run, although every other
    instance is fine (all data is read and checked before the first call)."""
    last = release / data_path("steady_state_missing_emission")
    count = len(_lines(last))
    _edit_row(last, count, lambda row: row.update(seed="7"))
    (release / CHECKSUMS).unlink()
    out = tmp_path / "run"
    code, text = _run(capsys, "eval", "--solver", "noask", "--data", release, "--out", out)
    assert code == 1 and f"{last}:{count}: field 'seed': expected int, got str" in text
    assert calls == {"made": 0, "generate": 0, "requests": 0} and not out.exists()
