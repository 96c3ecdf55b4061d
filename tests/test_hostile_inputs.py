"""Hostile inputs: every command that reads a user's file answers a mutated
one with an exit code from the documented set and ONE error line on stderr that names the file
(and the line or field where they apply), never a traceback.

The corpus is generated here: each mutation turns a good JSON record (an instance line, a
release's ``release_info.json``, a run's ``manifest.json``, a transcript line, a line of the
reference format) into hostile bytes: nesting 100,000 deep (inside the latent state's JSON
text too), integers of 5,000 digits (past Python's int-str limit), NaN/Infinity, lone
surrogates, NUL bytes, a BOM, CRLF line ends, a top level that is not an object, ids that are
not strings, wrong field types, a truncated last line, an empty file, binary garbage, a
folder where a file belongs. Each is fed to every command that reads that kind of file.
Commands run in-process (``main``), so an escaped exception fails the test with its
traceback; the last-resort handler's "this is a bug" line fails it too.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from mira_math.cli.main import main
from mira_math.eval.rundir import MANIFEST, TRANSCRIPTS
from mira_math.generators.build import RELEASE_VERSION
from mira_math.generators.layout import DEFAULT_RELEASE, data_path

ROOT = Path(__file__).resolve().parents[1]
EXIT_CODES = {0, 1, 2, 3, 4, 5, 130, 141}      # cli/main.py's documented set
BUG_LINE = "this is a bug"                       # the last-resort handler's words
DEEP = 100_000
HUGE = "9" * 5000

Mutation = Callable[[dict], bytes]


# ------------------------------------------------------------------ the corpus

def _line(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"


def _with(field: str, value: object) -> Mutation:
    def mutate(obj: dict) -> bytes:
        return _line({**obj, field: value})
    return mutate


def _with_raw(field: str, raw: str) -> Mutation:
    """The record with ``field``'s value replaced by raw JSON text (deep nesting, huge
    numbers, NaN: what ``json.dumps`` would not write)."""
    def mutate(obj: dict) -> bytes:
        marker = "\u2063MARK\u2063"
        text = json.dumps({**obj, field: marker}, ensure_ascii=False)
        return text.replace(json.dumps(marker, ensure_ascii=False), raw).encode("utf-8") + b"\n"
    return mutate


def _whole(data: bytes) -> Mutation:
    return lambda obj: data


def _garbage() -> bytes:
    rng = random.Random(22)
    return bytes(rng.randrange(256) for _ in range(3000))


# mutations of a JSON record that apply to every kind of record; ``field`` is the record's id
# field (or a field every record of that kind has)
def record_mutations(field: str) -> Dict[str, Mutation]:
    return {
        "deep-value": _with_raw(field, "[" * DEEP + "]" * DEEP),
        "deep-unclosed": _with_raw(field, "[" * DEEP),
        "deep-object": _with_raw(field, '{"a":' * DEEP + "1" + "}" * DEEP),
        "huge-int": _with_raw(field, HUGE),
        "huge-negative": _with_raw(field, "-" + HUGE),
        "nan": _with_raw(field, "NaN"),
        "infinity": _with_raw(field, "-Infinity"),
        "lone-surrogate": _with_raw(field, '"a\\udc80b"'),
        "escaped-nul": _with_raw(field, '"a\\u0000b"'),
        "raw-nul": lambda obj: _line(obj).replace(b"{", b"{\x00", 1),
        "bom": lambda obj: b"\xef\xbb\xbf" + _line(obj),
        "crlf": lambda obj: _line(obj).replace(b"\n", b"\r\n"),
        "top-list": _whole(b"[]\n"),
        "top-string": _whole(b'"x"\n'),
        "top-null": _whole(b"null\n"),
        "top-number": _whole(b"7\n"),
        "number-field": _with(field, 5),
        "list-field": _with(field, ["a", ["b"]]),
        "null-field": _with(field, None),
        "object-field": _with(field, {"x": 1}),
        "bool-field": _with(field, True),
        "missing-field": lambda obj: _line({k: v for k, v in obj.items() if k != field}),
        "control-chars": _with(field, "id\x1b[2J\x1b]0;owned\x07\x9b\x7f"),
        "truncated": lambda obj: _line(obj)[: len(_line(obj)) // 2],
        "empty": _whole(b""),
        "blank-lines": _whole(b"\n\n  \n"),
        "binary": _whole(_garbage()),
        "invalid-utf8": lambda obj: _line(obj).replace(b'"', b'"\xff\xfe', 1),
    }


# ------------------------------------------------------------------ running a command

class Outcome:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err
        self.lines = [line for line in err.splitlines() if line.strip()]
        self.errors = [line for line in self.lines if not line.startswith(("warning:", "note:"))]


def run_cli(argv: List[str], capsys) -> Outcome:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return Outcome(code, captured.out, captured.err)


def assert_one_line(outcome: Outcome, names: str, argv: List[str]) -> None:
    """The documented exit code, no traceback, no bug line; on failure exactly one error line
    and it names ``names`` (the file, or the folder it lies in)."""
    shown = f"{argv}: exit {outcome.code}\nstderr: {outcome.err[:2000]!r}"
    assert outcome.code in EXIT_CODES, shown
    assert "Traceback" not in outcome.err and BUG_LINE not in outcome.err, shown
    assert "\x1b" not in outcome.err and "\x1b" not in outcome.out, shown   # escaped on the terminal
    if outcome.code in (1, 2, 4, 5) and not outcome.errors:   # verify/validate: a report on stdout
        fails = [line for line in outcome.out.splitlines() if line.startswith("FAIL ")]
        assert fails and all(names in line for line in fails), shown + f"\nstdout: {outcome.out[:2000]!r}"
    elif outcome.code in (1, 2, 4, 5):
        assert len(outcome.errors) == 1, shown
        assert names in outcome.errors[0], shown
        assert len(outcome.errors[0]) < 2000, shown


# ------------------------------------------------------------------ fixtures

def _first_record(path: Path) -> dict:
    return json.loads(path.read_bytes().splitlines()[0])


@pytest.fixture(scope="module")
def tiny_release(tmp_path_factory) -> Path:
    """A two-instance release folder (fast to verify)."""
    out = tmp_path_factory.mktemp("tiny") / "release"
    assert main(["generate", "--families", "bayes_missing_prior", "crt_reconstruction",
                 "--per-type", "1/1", "--difficulties", "1", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "ref"
    assert main(EVAL_REF + ["--out", str(out)]) == 0
    return out


EVAL_REF = ["eval", "--solver", "reference", "--limit", "3"]
INSTANCE = _first_record(DEFAULT_RELEASE / data_path("bayes_missing_prior"))


# ------------------------------------------------------------------ data files (instances)

INSTANCE_MUTATIONS = {
    **{f"id:{k}": m for k, m in record_mutations("id").items()},
    **{f"latent:{k}": m for k, m in {
        "deep-json-text": _with("latent", "[" * DEEP + "]" * DEEP),
        "deep-unclosed-text": _with("latent", "[" * DEEP),
        "deep-object-text": _with("latent", '{"a":' * DEEP + "1" + "}" * DEEP),
        "huge-int-text": _with("latent", "[" + HUGE + "]"),
        "nan-text": _with("latent", '{"x": NaN}'),
        "not-json": _with("latent", "{"),
        "number": _with("latent", 3),
    }.items()},
    "seed:huge-int": _with_raw("seed", HUGE),
    "seed:nan": _with_raw("seed", "NaN"),
    "difficulty:string": _with("difficulty", "1"),
    "view:list": _with("view", ["x"]),
    "view:deep": _with_raw("view", "[" * DEEP + "]" * DEEP),
    "hints:object": _with("hints", {"slot": "x"}),
    "hints:deep": _with_raw("hints", "[" * DEEP + "]" * DEEP),
    "answer:huge-value": _with("answer", {"type": "integer", "value": HUGE, "components": []}),
    "answer:deep": _with_raw("answer", '{"a":' * DEEP + "1" + "}" * DEEP),
    "responder:nan": _with_raw("responder", "[NaN]"),
}

DATA_COMMANDS = {
    "validate": lambda f, tmp: ["validate", str(f)],
    "eval": lambda f, tmp: ["eval", "--data", str(f), "--solver", "noask", "--out", str(tmp / "run")],
}


@pytest.mark.parametrize("command", sorted(DATA_COMMANDS))
@pytest.mark.parametrize("mutation", sorted(INSTANCE_MUTATIONS))
def test_hostile_data_file(mutation, command, tmp_path, capsys):
    data = tmp_path / "test.jsonl"
    data.write_bytes(INSTANCE_MUTATIONS[mutation](INSTANCE))
    argv = DATA_COMMANDS[command](data, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(data), argv)


@pytest.mark.parametrize("command", sorted(DATA_COMMANDS))
def test_data_path_is_a_folder_or_missing(command, tmp_path, capsys):
    for target in (tmp_path / "folder.jsonl", tmp_path / "missing.jsonl"):
        if target.name.startswith("folder"):
            target.mkdir()
        argv = DATA_COMMANDS[command](target, tmp_path)
        assert_one_line(run_cli(argv, capsys), str(target), argv)


# ------------------------------------------------------------------ release folders

RELEASE_INFO_MUTATIONS = {
    **record_mutations("seed_set"),
    "families:deep": _with_raw("families", "[" * DEEP + "]" * DEEP),
    "families:strings-of-lists": _with("families", [["bayes_missing_prior"]]),
    "families:unknown": _with("families", ["no_such_family"]),
    "per_type:huge": _with_raw("per_type", '{"A": ' + HUGE + ', "B": 1}'),
    "per_type:negative": _with("per_type", {"A": -1, "B": 1}),
    "master_seed:nan": _with_raw("master_seed", "NaN"),
    "master_seed:huge": _with_raw("master_seed", HUGE),
    "difficulties:string": _with("difficulties", "123"),
    "counts:list": _with("counts", [1, 2]),
}

RELEASE_COMMANDS = {
    "verify": lambda d, tmp: ["verify", str(d)],
    "validate": lambda d, tmp: ["validate", str(d)],
    "eval": lambda d, tmp: ["eval", "--data", str(d), "--solver", "noask", "--out", str(tmp / "run")],
    "publish": lambda d, tmp: ["publish", "--dry-run", "--repo-id", "someone/mira", "--dir", str(d)],
}


def _copy(folder: Path, tmp: Path) -> Path:
    target = tmp / folder.name
    tmp.mkdir(parents=True, exist_ok=True)
    shutil.copytree(folder, target)
    return target


@pytest.mark.parametrize("command", sorted(RELEASE_COMMANDS))
@pytest.mark.parametrize("mutation", sorted(RELEASE_INFO_MUTATIONS))
def test_hostile_release_info(mutation, command, tiny_release, tmp_path, capsys):
    folder = _copy(tiny_release, tmp_path)
    info = folder / "release_info.json"
    info.write_bytes(RELEASE_INFO_MUTATIONS[mutation](json.loads(info.read_text(encoding="utf-8"))))
    argv = RELEASE_COMMANDS[command](folder, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(folder), argv)


CHECKSUM_MUTATIONS = {
    "binary": lambda text: _garbage(),
    "empty": lambda text: b"",
    "no-separator": lambda text: b"deadbeef\n",
    "absolute-path": lambda text: b"0" * 64 + b"  /etc/passwd\n",
    "parent-path": lambda text: b"0" * 64 + b"  ../../outside\n",
    "nul": lambda text: text.replace(b"  ", b"  \x00", 1),
    "crlf": lambda text: text.replace(b"\n", b"\r\n"),
    "deep-name": lambda text: b"0" * 64 + b"  " + b"a/" * 3000 + b"b\n",
}


@pytest.mark.parametrize("command", sorted(RELEASE_COMMANDS))
@pytest.mark.parametrize("mutation", sorted(CHECKSUM_MUTATIONS))
def test_hostile_checksums(mutation, command, tiny_release, tmp_path, capsys):
    folder = _copy(tiny_release, tmp_path)
    sums = folder / "CHECKSUMS.sha256"
    sums.write_bytes(CHECKSUM_MUTATIONS[mutation](sums.read_bytes()))
    argv = RELEASE_COMMANDS[command](folder, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(folder), argv)


@pytest.mark.parametrize("command", sorted(RELEASE_COMMANDS))
@pytest.mark.parametrize("what", ["info-is-a-folder", "data-is-a-folder", "no-info", "data-garbage"])
def test_release_with_missing_or_wrong_files(what, command, tiny_release, tmp_path, capsys):
    folder = _copy(tiny_release, tmp_path)
    data = folder / "data" / "bayes_missing_prior" / "test.jsonl"
    if what == "info-is-a-folder":
        (folder / "release_info.json").unlink()
        (folder / "release_info.json").mkdir()
    elif what == "data-is-a-folder":
        data.unlink()
        data.mkdir()
    elif what == "no-info":
        (folder / "release_info.json").unlink()
    else:
        data.write_bytes(_garbage())
    argv = RELEASE_COMMANDS[command](folder, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(folder), argv)


@pytest.mark.parametrize("mutation", sorted(INSTANCE_MUTATIONS))
def test_check_disjoint_reads_a_hostile_data_file(mutation, tiny_release, tmp_path, capsys):
    """``check-disjoint`` reads every family file of both folders (not release_info.json)."""
    folder, other = _copy(tiny_release, tmp_path / "a"), _copy(tiny_release, tmp_path / "b")
    shutil.rmtree(folder / "data" / "crt_reconstruction")          # one family each: nothing shared
    shutil.rmtree(other / "data" / "bayes_missing_prior")
    data = folder / "data" / "bayes_missing_prior" / "test.jsonl"
    data.write_bytes(INSTANCE_MUTATIONS[mutation](INSTANCE))
    argv = ["check-disjoint", str(folder), str(other)]
    assert_one_line(run_cli(argv, capsys), str(folder), argv)


# ------------------------------------------------------------------ run directories

RUN_COMMANDS: Dict[str, Callable[[Path, Path, Path], List[str]]] = {
    "score": lambda run, good, tmp: ["score", str(run)],
    "report": lambda run, good, tmp: ["report", str(run), "--out", str(tmp / "report")],
    "view": lambda run, good, tmp: ["view", str(run), "--out", str(tmp / "view")],
    "audit": lambda run, good, tmp: ["audit", str(run)],
    "compare": lambda run, good, tmp: ["compare", str(good), str(run)],
    "resume": lambda run, good, tmp: EVAL_REF + ["--out", str(run), "--resume"],
}

MANIFEST_MUTATIONS = {
    **record_mutations("run_hash"),
    "config:list": _with("config", []),
    "config:deep": _with_raw("config", "[" * DEEP + "]" * DEEP),
    "dataset:string": _with("dataset", "x"),
    "instances:huge": _with_raw("instances", HUGE),
}


@pytest.fixture
def no_figures(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # report: the tables only (fast)


@pytest.mark.parametrize("command", sorted(RUN_COMMANDS))
@pytest.mark.parametrize("mutation", sorted(MANIFEST_MUTATIONS))
def test_hostile_manifest(mutation, command, reference_run, tmp_path, capsys, no_figures):
    run = _copy(reference_run, tmp_path)
    manifest = run / MANIFEST
    manifest.write_bytes(MANIFEST_MUTATIONS[mutation](json.loads(manifest.read_text(encoding="utf-8"))))
    argv = RUN_COMMANDS[command](run, reference_run, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(run), argv)


TRANSCRIPT_MUTATIONS = {
    **record_mutations("id"),
    "final_answer:deep": _with_raw("final_answer", "[" * DEEP + "]" * DEEP),
    "final_answer:huge": _with_raw("final_answer", HUGE),
    "final_answer:number": _with("final_answer", 12),
    "final_answer:surrogate": _with_raw("final_answer", '"\\udc80"'),
    "turns:string": _with("turns", "x"),
    "turns:deep": _with_raw("turns", "[" * DEEP + "]" * DEEP),
    "turns:list-of-lists": _with("turns", [[1]]),
    "verdict:list": _with("verdict", [True]),
    "verdict:nan": _with_raw("verdict", '{"correct": NaN}'),
    "epoch:huge": _with_raw("epoch", HUGE),
    "epoch:string": _with("epoch", "0"),
    "error:list": _with("error", ["x"]),
    "wall_s:infinity": _with_raw("wall_s", "Infinity"),
    "tokens_est:string": _with("tokens_est", "x"),
}


@pytest.mark.parametrize("command", sorted(RUN_COMMANDS))
@pytest.mark.parametrize("mutation", sorted(TRANSCRIPT_MUTATIONS))
def test_hostile_transcript_line(mutation, command, reference_run, tmp_path, capsys, no_figures):
    """The run's last transcript line replaced by a mutated one (the others stay good)."""
    run = _copy(reference_run, tmp_path)
    path = run / TRANSCRIPTS
    lines = path.read_bytes().splitlines(keepends=True)
    lines[-1] = TRANSCRIPT_MUTATIONS[mutation](json.loads(lines[-1]))
    path.write_bytes(b"".join(lines))
    argv = RUN_COMMANDS[command](run, reference_run, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(run), argv)


@pytest.mark.parametrize("command", sorted(RUN_COMMANDS))
@pytest.mark.parametrize("what", ["manifest-is-a-folder", "transcripts-is-a-folder", "no-manifest",
                                  "no-transcripts", "run-is-a-file", "run-missing"])
def test_run_dir_with_missing_or_wrong_files(what, command, reference_run, tmp_path, capsys, no_figures):
    run = _copy(reference_run, tmp_path)
    if what.endswith("is-a-folder"):
        name = MANIFEST if what.startswith("manifest") else TRANSCRIPTS
        (run / name).unlink()
        (run / name).mkdir()
    elif what.startswith("no-"):
        (run / (MANIFEST if what == "no-manifest" else TRANSCRIPTS)).unlink()
    elif what == "run-is-a-file":
        shutil.rmtree(run)
        run.write_bytes(b"not a run\n")
    else:
        shutil.rmtree(run)
    argv = RUN_COMMANDS[command](run, reference_run, tmp_path)
    assert_one_line(run_cli(argv, capsys), str(run), argv)


# ------------------------------------------------------------------ import-reference

REFERENCE_SAMPLE = ROOT / "tests" / "fixtures" / "reference_sample.jsonl"
REFERENCE_RECORD = _first_record(REFERENCE_SAMPLE)
REFERENCE_MUTATIONS = {
    **{f"id:{k}": m for k, m in record_mutations("id").items()},
    "global_solution:deep": _with_raw("global_solution", '{"a":' * DEEP + "1" + "}" * DEEP),
    "global_solution:huge": _with_raw("global_solution", '{"numerator": ' + HUGE + ', "denominator": 1}'),
    "global_metadata:huge": _with_raw("global_metadata", '{"sens_num": ' + HUGE + "}"),
    "global_metadata:nan": _with_raw("global_metadata", '{"sens_num": NaN}'),
    "agent_views:deep": _with_raw("agent_views", "[" * DEEP + "]" * DEEP),
    "agent_views:string": _with("agent_views", "x"),
    "minimal_hint_spec:huge": _with_raw(
        "minimal_hint_spec", '{"k_min": 1, "atomic_hints": [{"hint_id": "h1", "kind": "prior", "num": '
        + HUGE + ', "denom": 2, "providers": ["B"], "consumers": ["A"]}]}'),
    "difficulty:huge": _with_raw("difficulty", HUGE),
    "difficulty:string": _with("difficulty", "1"),
    "family:list": _with("family", ["bayes_missing_prior"]),
}


@pytest.mark.parametrize("check", [False, True], ids=["plain", "check"])
@pytest.mark.parametrize("mutation", sorted(REFERENCE_MUTATIONS))
def test_hostile_reference_file(mutation, check, tmp_path, capsys):
    source = tmp_path / "reference.jsonl"
    source.write_bytes(REFERENCE_MUTATIONS[mutation](REFERENCE_RECORD))
    argv = ["import-reference", str(source), "--out", str(tmp_path / "out")] + (["--check"] if check else [])
    outcome = run_cli(argv, capsys)
    shown = f"{argv}: exit {outcome.code}\nstderr: {outcome.err[:2000]!r}\nstdout: {outcome.out[:2000]!r}"
    assert_one_line(outcome, str(source), argv)
    # a record it could not convert is listed on stdout (NOT CONVERTED id ...), escaped
    assert "\x1b" not in outcome.out and "Traceback" not in outcome.out, shown


def test_reference_path_is_a_folder(tmp_path, capsys):
    argv = ["import-reference", str(tmp_path), "--out", str(tmp_path / "out")]
    assert_one_line(run_cli(argv, capsys), str(tmp_path), argv)


# ------------------------------------------------------------------ unreadable files

@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads a chmod 000 file anyway")
def test_unreadable_files(reference_run, tmp_path, capsys):
    data = tmp_path / "test.jsonl"
    data.write_bytes(_line(INSTANCE))
    data.chmod(0)
    run = _copy(reference_run, tmp_path)
    (run / MANIFEST).chmod(0)
    try:
        for argv, names in ((["validate", str(data)], str(data)),
                            (["score", str(run)], str(run)),
                            (["view", str(run), "--out", str(tmp_path / "v")], str(run))):
            assert_one_line(run_cli(argv, capsys), names, argv)
    finally:
        data.chmod(0o644)
        (run / MANIFEST).chmod(0o644)





# ------------------------------------------------------------------ publish failing

def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("tag", [[], ["--tag", f"v{RELEASE_VERSION}"]], ids=["untagged", "tagged"])
def test_publish_offline_is_one_line(tag, tiny_release, tmp_path):
    """The real Hub client against a closed port on 127.0.0.1 (no network): one line naming
    the step that failed, nothing changed, exit 1."""
    import subprocess

    pytest.importorskip("huggingface_hub")
    env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}", "HF_TOKEN": "hf_not_a_token",
           "HF_HOME": str(tmp_path / "hf"), "HF_HUB_DISABLE_TELEMETRY": "1"}
    env.pop("MIRA_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "mira_math.cli.main", "publish", "--repo-id", "someone/mira",
                           "--dir", str(tiny_release), *tag], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    step = "reading the repo's tags" if tag else "creating the repo"
    assert done.stderr.startswith(f"mira-math publish: someone/mira: {step} failed (")
    assert "nothing was changed on the Hub" in done.stderr


@pytest.mark.parametrize("failing", ["create_repo", "upload_folder", "create_tag"])
def test_publish_failing_at_each_step_says_what_was_done(failing, tiny_release, capsys, monkeypatch):
    from unittest import mock

    hub = pytest.importorskip("huggingface_hub")
    api = mock.create_autospec(hub.HfApi, instance=True)
    api.list_repo_refs.return_value = mock.Mock(tags=[])
    api.upload_folder.return_value = mock.Mock(oid="abc123")
    getattr(api, failing).side_effect = OSError("Network is unreachable\nsecond line")
    monkeypatch.setattr(hub, "HfApi", lambda: api)
    argv = ["publish", "--repo-id", "someone/mira", "--dir", str(tiny_release), "--tag", f"v{RELEASE_VERSION}"]
    outcome = run_cli(argv, capsys)
    assert_one_line(outcome, "someone/mira", argv)
    assert outcome.code == 1 and "(OSError: Network is unreachable second line)" in outcome.errors[0]
    steps = ["creating the repo", "uploading the release", f"tagging v{RELEASE_VERSION}"]  # eval.yaml is in it
    done = steps[:["create_repo", "upload_folder", "create_tag"].index(failing)]
    if done:
        assert f"done before it: {', '.join(done)}; run the same command again" in outcome.errors[0]
    else:
        assert "nothing was changed on the Hub" in outcome.errors[0]


# ------------------------------------------------------------------ files beside a run

SIDE_FILE_MUTATIONS = {k: m for k, m in record_mutations("run").items()
                       if not k.startswith(("control", "missing"))}


@pytest.mark.parametrize("mutation", sorted(SIDE_FILE_MUTATIONS))
def test_hostile_cached_scores_are_scored_again(mutation, reference_run, tmp_path, capsys):
    """A scores.json beside the run is a cache: a hostile one is ignored and rewritten."""
    run = _copy(reference_run, tmp_path)
    assert main(["score", str(run)]) == 0
    good = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    (run / "scores.json").write_bytes(SIDE_FILE_MUTATIONS[mutation](good))
    argv = ["score", str(run)]
    outcome = run_cli(argv, capsys)
    assert_one_line(outcome, str(run), argv)
    assert outcome.code == 0 and json.loads((run / "scores.json").read_text(encoding="utf-8"))["run"] == good["run"]


@pytest.mark.parametrize("mutation", sorted(SIDE_FILE_MUTATIONS))
def test_hostile_price_table(mutation, reference_run, tmp_path, capsys):
    prices = tmp_path / "prices.json"
    prices.write_bytes(SIDE_FILE_MUTATIONS[mutation]({"reference": {"in": 1, "out": 2}}))
    argv = ["score", str(reference_run), "--out", str(tmp_path / "scores"), "--prices", str(prices)]
    assert_one_line(run_cli(argv, capsys), str(prices), argv)
