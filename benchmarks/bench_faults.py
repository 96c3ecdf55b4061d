"""Fault injection: replay the attacks of the reliability review against a scripted
OpenAI-compatible server on 127.0.0.1 (and against run directories and data files), through
``mira-math``'s own entry point, and print a table ``attack -> exit code, outcome``.

Usage: python benchmarks/bench_faults.py [--limit N] [--quick]
(``--quick``: the attacks of :data:`QUICK` only, on 2 episodes: a smoke run.) Exit status 1 when
an attack ends in a traceback or a secret is written.
Nothing leaves the machine: the server binds 127.0.0.1 on an ephemeral port.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mira_math.eval.rundir import RunLock  # noqa: E402
from mira_math.cli.main import main  # noqa: E402
from tests.eval.openai_stub import AttackHandler, AttackState, serve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "mira-math"
SECRETS_WRITTEN: List[object] = []
# one attack of each kind (a server error, a bad reply, a damaged run, bad data, a refusal)
QUICK = ("401 unauthorized", "HTML 200 page", "transcripts without manifest", "5,000-digit integer",
         "generate over a non-empty --out", "score: every verdict flipped to correct",
         "manifest.json is [] (score)", "import-reference: 5,000-digit integer")
LAST_ERR = [""]           # the last command's whole stderr (part A reads the stop line)


def cli(*args: str) -> Tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main([str(a) for a in args])
    LAST_ERR[0] = err.getvalue()
    lines = [line for line in (err.getvalue() or out.getvalue()).splitlines() if line.strip()]
    if "--out" in args:   # the first recorded error or format-error reason, if any
        transcripts = Path(args[list(args).index("--out") + 1]) / "transcripts.jsonl"
        rows = [json.loads(x) for x in transcripts.read_text().splitlines()] if transcripts.exists() else []
        why = [r["error"]["message"] for r in rows if r.get("error")] or \
              [t["format_error"] for r in rows for t in r["turns"] if t.get("format_error")]
        if why:
            lines.append(f"[{why[0]}]")
    return code, " ".join(lines[-2:])[:160] if lines else ""


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def attacks(url: str, tmp: Path, limit: str) -> List[Tuple[str, Callable[[], Tuple[int, str]]]]:
    def ev(model: str, out: str, *extra: str) -> Tuple[int, str]:
        return cli("eval", "--solver", f"openai:{model}@{url}", "--limit", limit, "--max-retries", "1",
                   "--out", tmp / out, *extra)

    def orphan() -> Tuple[int, str]:
        cli("eval", "--solver", "noask", "--limit", limit, "--out", tmp / "orphan")
        (tmp / "orphan" / "manifest.json").unlink()
        return cli("eval", "--solver", "reference", "--limit", limit, "--out", tmp / "orphan")

    def locked() -> Tuple[int, str]:
        (tmp / "locked").mkdir()
        held = RunLock(tmp / "locked")
        try:
            return cli("eval", "--solver", "noask", "--limit", limit, "--out", tmp / "locked")
        finally:
            held.release()

    def no_key() -> Tuple[int, str]:
        saved = {k: os.environ.pop(k, None) for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
        try:
            return cli("eval", "--solver", "openai:gpt-4o-mini", "--limit", limit, "--out", tmp / "nokey")
        finally:
            os.environ.update({k: v for k, v in saved.items() if v is not None})

    def deep_json() -> Tuple[int, str]:
        bad = tmp / "deep.jsonl"
        bad.write_text("[" * 200_000 + "\n")
        return cli("eval", "--solver", "noask", "--data", bad, "--out", tmp / "deep")

    def huge_int() -> Tuple[int, str]:
        bad = tmp / "int.jsonl"
        bad.write_text('{"id": ' + "9" * 5000 + "}\n")
        return cli("validate", bad)

    def unknown_family() -> Tuple[int, str]:
        row = json.loads((RELEASE / "data/crt_reconstruction/test.jsonl").read_text().splitlines()[0])
        row["family"] = "nope"
        bad = tmp / "fam.jsonl"
        bad.write_text(json.dumps(row) + "\n")
        return cli("eval", "--solver", f"openai:ok@{url}", "--data", bad, "--out", tmp / "fam")

    def regenerate() -> Tuple[int, str]:
        args = ("generate", "--families", "crt_reconstruction", "--per-type", "2/2", "--out", tmp / "gen")
        cli(*args)
        return cli(*args)

    def edited(what: str) -> Tuple[int, str]:
        run = tmp / f"edit-{what}"
        cli("eval", "--solver", "noask", "--limit", limit, "--out", run)
        path = run / ("manifest.json" if what == "count" else "transcripts.jsonl")
        if what == "count":
            manifest = json.loads(path.read_text())
            manifest["dataset"]["instances"] -= 1
            path.write_text(json.dumps(manifest))
        else:
            rows = [json.loads(x) for x in path.read_text().splitlines()]
            if what == "verdict":
                for r in rows:
                    r["verdict"]["correct"] = True
            else:
                rows.append(dict(rows[0], id="bay-000045"))
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return cli("score", run)

    def secret(where: str) -> Tuple[int, str]:
        port = url.split(":")[2].split("/")[0]
        spec = (f"openai:ok@http://user:PASSW0RD-X@127.0.0.1:{port}/v1" if where == "userinfo"
                else f"openai:ok@http://127.0.0.1:{port}/v1?api-key=PASSW0RD-X")
        run = tmp / f"secret-{where}"
        outputs = [cli("eval", "--solver", spec, "--limit", limit, "--max-retries", "0", "--out", run),
                   cli("score", run), cli("report", run, "--out", tmp / f"secret-report-{where}"),
                   cli("view", run, "--out", tmp / f"secret-view-{where}")]
        leaks = [p for d in (run, tmp / f"secret-report-{where}", tmp / f"secret-view-{where}")
                 for p in d.rglob("*") if p.is_file() and b"PASSW0RD-X" in p.read_bytes()]
        leaks += [o for _, o in outputs if "PASSW0RD-X" in o]
        SECRETS_WRITTEN.extend(leaks)
        return outputs[0][0], f"{len(leaks)} copies of the secret written; {outputs[0][1]}"

    def peak(model: str) -> Tuple[int, str]:
        code = ("import resource, sys\nfrom mira_math.cli.main import main\nrc = main(sys.argv[1:])\n"
                "print('PEAK', rc, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, file=sys.stderr)")
        proc = subprocess.run([sys.executable, "-c", code, "eval", "--solver", f"openai:{model}@{url}",
                               "--limit", "12", "--max-retries", "0", "--out", str(tmp / f"peak-{model}")],
                              cwd=ROOT, capture_output=True, text=True)
        line = next((x for x in proc.stderr.splitlines() if x.startswith("PEAK ")), None)
        if line is None:
            return -1, "TRACEBACK " + proc.stderr.strip().splitlines()[-1][:100]
        _, rc, mib = line.split()
        rows = [json.loads(x) for x in (tmp / f"peak-{model}" / "transcripts.jsonl").read_text().splitlines()]
        errors = sum("ReplyTooLarge" in (r.get("error") or {}).get("message", "") for r in rows)
        return int(rc), f"peak RSS {mib} MiB for 12 episodes; {errors}/12 ReplyTooLarge errors"

    # part A: fail-fast that counts right, a 429 storm, the in-flight count on a stop,
    # a write that runs out of space, SIGTERM on the async path.
    def stop_line(out: str, code: int) -> str:   # part A
        transcripts = tmp / out / "transcripts.jsonl"
        kept = transcripts.read_text().count("\n") if transcripts.exists() else 0
        return f"{kept} lines kept"

    def resets(runs: int = 4) -> Tuple[int, str]:   # part A
        codes = []
        for n in range(runs):
            code, line = cli("eval", "--solver", f"openai:resets2@{url}", "--limit", "1000",
                             "--concurrency", "256", "--max-retries", "0", "--out", tmp / f"resets{n}")
            codes.append(code)
        stops = sum(c == 4 for c in codes)
        return codes[-1], f"{stops}/{runs} runs stopped (false stops); exit codes {codes}; [{line[-70:]}]"

    def storm() -> Tuple[int, str]:   # part A: default retries (6) and concurrency (16)
        t0 = time.perf_counter()
        code, _ = cli("eval", "--solver", f"openai:ratelimited@{url}", "--limit", "2310",
                      "--out", tmp / "storm")
        said = LAST_ERR[0]
        flight = re.search(r"(\d+) episode\(s\) in flight", said)
        return code, (f"stopped after {time.perf_counter() - t0:.1f} s, {stop_line('storm', code)}, "
                      f"{flight.group(1) if flight else '?'} in flight; one line: {said.count(chr(10)) <= 1}")

    def in_flight() -> Tuple[int, str]:   # part A
        code, _ = cli("eval", "--solver", f"openai:unauthorized@{url}", "--limit", "40",
                      "--concurrency", "16", "--max-retries", "0", "--out", tmp / "flight")
        flight = re.search(r"(\d+ finished transcripts kept).*?(\d+ episode\(s\) in flight)", LAST_ERR[0])
        return code, ", ".join(flight.groups()) if flight else "TRACEBACK? " + LAST_ERR[0][-80:]

    def child(args: List[str], fsize: int = 0) -> subprocess.Popen:   # part A
        def limit() -> None:
            if fsize:
                import resource
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        return subprocess.Popen([sys.executable, "-m", "mira_math.cli.main", *args], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=limit)

    def resumed(args: List[str], out: Path, total: int) -> str:   # part A
        again = child(args + ["--resume"])
        again.communicate()
        ids = [json.loads(x)["id"] for x in (out / "transcripts.jsonl").read_text().splitlines()]
        return (f"--resume: exit {again.returncode}, {len(set(ids))}/{total} instances, "
                f"{len(ids) - len(set(ids))} twice")

    def no_space() -> Tuple[int, str]:   # part A: a real failed write (RLIMIT_FSIZE: EFBIG)
        out = tmp / "nospace"
        args = ["eval", "--solver", "reference", "--limit", "300", "--out", str(out)]
        proc = child(args, fsize=100_000)
        err = proc.communicate()[1]
        kept = (out / "transcripts.jsonl").read_bytes().count(b"\n")
        tb = "TRACEBACK " if "Traceback" in err else ""
        return proc.returncode, f"{tb}{err.count(chr(10))} line, {kept} kept; {resumed(args, out, 300)}"

    def sigterm() -> Tuple[int, str]:   # part A: the async path, 4 in flight
        out = tmp / "sigterm"
        args = ["eval", "--solver", f"openai:slow@{url}", "--limit", "40", "--concurrency", "4",
                "--max-retries", "0", "--out", str(out)]
        proc = child(args)
        transcripts = out / "transcripts.jsonl"
        while proc.poll() is None and not (transcripts.exists() and transcripts.read_bytes().count(b"\n") >= 8):
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate()[1]
        kept = transcripts.read_bytes().count(b"\n")
        tb = "TRACEBACK " if "Traceback" in err else ""
        hint = "resume hint" if "--resume" in err else "NO HINT"
        return proc.returncode, f"{tb}{err.count(chr(10))} line, {hint}, {kept} kept; {resumed(args, out, 40)}"

    down = f"http://127.0.0.1:{free_port()}/v1"
    return [
        ("401 unauthorized", lambda: ev("unauthorized", "a401")),
        ("404 model not found", lambda: ev("missing", "a404")),
        ("server down", lambda: cli("eval", "--solver", f"openai:m@{down}", "--limit", "20",
                                    "--max-retries", "1", "--out", tmp / "down")),   # part A: 20 > 5
        ("missing OPENAI_API_KEY (official)", no_key),
        ("trickling server, --timeout 2", lambda: ev("trickle", "trickle", "--timeout", "2",
                                                      "--max-retries", "0")),
        ("HTML 200 page", lambda: ev("html", "html")),
        ("server hangs up without a reply", lambda: ev("hangup", "hangup")),
        ("json_schema rejected with 500", lambda: cli(
            "eval", "--solver", "reference", "--responder", f"llm:openai:schema500@{url}",
            "--limit", limit, "--out", tmp / "schema")),
        ("turn cut off by max_tokens", lambda: ev("truncating", "trunc")),
        ("transcripts without manifest", orphan),
        ("second eval on a locked run dir", locked),
        ("JSON nested 200,000 deep", deep_json),
        ("5,000-digit integer", huge_int),
        ("unknown family in --data", unknown_family),
        ("generate over a non-empty --out", regenerate),
        ("score: every verdict flipped to correct", lambda: edited("verdict")),
        ("score: a line outside the selection", lambda: edited("appended")),
        ("score: manifest instance count edited", lambda: edited("count")),
        ("lone surrogate \\udc80 + NaN in a reply", lambda: ev("surrogate", "surrogate")),
        ("password in the URL userinfo", lambda: secret("userinfo")),
        ("api-key in the URL query", lambda: secret("query")),
        ("50 MB replies (12 episodes)", lambda: peak("huge")),
        ("gzip bomb: 50 MB decoded (12 eps.)", lambda: peak("gzipbomb")),
        ("2% resets, 256 in flight, retries 0", resets),                   # part A
        ("429 storm, no Retry-After (defaults)", storm),                   # part A
        ("stop at 16 in flight (401)", in_flight),                         # part A
        ("out of space mid-run (file limit)", no_space),                   # part A
        ("SIGTERM mid-run (async, 4 in flight)", sigterm),                 # part A
    ]


def attacks_part_b(url: str, tmp: Path, limit: str) -> List[Tuple[str, Callable[[], Tuple[int, str]]]]:
    """Hostile files and interrupted writes: every reader's one-line errors."""  # part B
    line = json.loads((RELEASE / "data/bayes_missing_prior/test.jsonl").read_text().splitlines()[0])
    source = (ROOT / "tests/fixtures/reference_sample.jsonl").read_text().splitlines()[0]

    def write(name: str, text: str) -> Path:
        path = tmp / name
        path.write_text(text, encoding="utf-8")
        return path

    def reference(name: str, raw_field: str) -> Tuple[int, str]:   # part B
        record = source.replace('"global_solution": {', '"global_solution": ' + raw_field + ', "x": {', 1)
        return cli("import-reference", write(name, record + "\n"), "--out", tmp / f"out-{name}")

    def run_with(name: str, edit: Callable[[Path], None], *command: str) -> Tuple[int, str]:   # part B
        run = tmp / name
        cli("eval", "--solver", "reference", "--limit", limit, "--out", run)
        edit(run)
        return cli(*command, run) if command[0] != "eval" else cli(*command, "--out", run, "--resume")

    def manifest_list(run: Path) -> None:
        (run / "manifest.json").write_text("[]\n")

    def numeric_id(run: Path) -> None:
        rows = (run / "transcripts.jsonl").read_text().splitlines()
        rows[-1] = json.dumps(dict(json.loads(rows[-1]), id=12345))
        (run / "transcripts.jsonl").write_text("\n".join(rows) + "\n")

    def escape_id(run: Path) -> None:
        rows = (run / "transcripts.jsonl").read_text().splitlines()
        rows[-1] = json.dumps(dict(json.loads(rows[-1]), id="x\x1b[2J\x1b]0;owned\x07"))
        (run / "transcripts.jsonl").write_text("\n".join(rows) + "\n")

    def subprocess_cli(*args: str, env: Optional[dict] = None, script: Optional[str] = None) -> Tuple[int, str]:
        argv = [sys.executable, "-c", script, *args] if script else [sys.executable, "-m", "mira_math.cli.main", *args]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
        text = " ".join(x for x in done.stderr.splitlines() if x.strip())
        return done.returncode, ("TRACEBACK " if "Traceback" in text else "") + text[-160:]

    def publish_offline() -> Tuple[int, str]:   # part B
        env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}", "HF_TOKEN": "hf_not_a_token",
               "HF_HOME": str(tmp / "hf")}
        return subprocess_cli("publish", "--repo-id", "someone/mira", "--dir", str(RELEASE), env=env)

    def killed_overwrite() -> Tuple[int, str]:   # part B
        out = tmp / "killed-release"
        args = ("generate", "--families", "bayes_missing_prior", "--per-type", "1/1", "--out", str(out))
        cli(*args)
        script = ("import os, sys\nfrom mira_math.cli.main import main\nreal = os.replace\n"
                  "def replace(a, b):\n    real(a, b)\n    if '.old-' in str(b):\n        os._exit(9)\n"
                  "os.replace = replace\nsys.exit(main(sys.argv[1:]))\n")
        killed, _ = subprocess_cli(*args, "--overwrite", script=script)
        missing = not out.exists()
        code, text = cli("verify", out)
        return code, f"killed (exit {killed}), folder {'missing' if missing else 'present'}; verify: {text}"

    def malformed_hash() -> Tuple[int, str]:   # part B
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            return 0, "skipped: playwright missing"
        import shutil

        chromium = os.environ.get("MIRA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            return 0, "skipped: no chromium"
        run = tmp / "hash-run"
        cli("eval", "--solver", "reference", "--limit", limit, "--out", run)
        code, _ = cli("view", run, "--out", tmp / "hash-view")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox"])
            page = browser.new_page()
            errors: List[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((tmp / "hash-view" / "index.html").as_uri() + "#q=%E0%A4%A&id=%E0%A4%A")
            page.wait_for_selector("body[data-ready='1']", timeout=30_000)
            page.wait_for_timeout(300)
            browser.close()
        return code, f"{len(errors)} page errors" + (f": {errors[0][:80]}" if errors else "")

    deep = "[" * 100_000 + "]" * 100_000
    return [   # part B
        ("deep JSON inside latent (validate)", lambda: cli(
            "validate", write("deep-latent.jsonl", json.dumps(dict(line, latent=deep)) + "\n"))),
        ("import-reference: JSON 100,000 deep", lambda: reference("deep.jsonl", deep)),
        ("import-reference: 5,000-digit integer", lambda: reference("huge.jsonl", "9" * 5000)),
        ("manifest.json is [] (score)", lambda: run_with("mlist", manifest_list, "score")),
        ("manifest.json is [] (--resume)", lambda: run_with(
            "mlist2", manifest_list, "eval", "--solver", "reference", "--limit", limit)),
        ("numeric id on --resume", lambda: run_with(
            "numid", numeric_id, "eval", "--solver", "reference", "--limit", limit)),
        ("ESC sequences in an id (score)", lambda: run_with("escid", escape_id, "score")),
        ("CHECKSUMS names /etc/passwd", lambda: _checksums_outside(tmp)),
        ("publish, Hub unreachable", publish_offline),
        ("kill between generate's renames", killed_overwrite),
        ("malformed URL hash in the viewer", malformed_hash),
    ]


def _checksums_outside(tmp: Path) -> Tuple[int, str]:   # part B
    import shutil

    copy = tmp / "outside"
    shutil.copytree(RELEASE, copy)
    with (copy / "CHECKSUMS.sha256").open("a") as fh:
        fh.write("0" * 64 + "  /etc/passwd\n")
    return cli("eval", "--solver", "noask", "--data", copy, "--limit", "1", "--out", tmp / "outside-run")


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", default="8")
    parser.add_argument("--quick", action="store_true", help="a few attacks, 2 episodes (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.limit = "2"
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        os.environ.pop(var, None)
    print(f"{'attack':36} {'exit':>4} {'s':>6}  outcome")
    tracebacks = 0
    with serve(AttackHandler, AttackState()) as httpd, tempfile.TemporaryDirectory() as tmp:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        chosen = attacks(url, Path(tmp), args.limit) + attacks_part_b(url, Path(tmp), args.limit)
        if args.quick:
            chosen = [(name, attack) for name, attack in chosen if name in QUICK]
            assert len(chosen) == len(QUICK), "an attack of QUICK is no longer in the list"
        for name, attack in chosen:
            t0 = time.perf_counter()
            try:
                code, line = attack()
            except BaseException as exc:  # a traceback is a finding: report it
                code, line = -1, f"TRACEBACK {type(exc).__name__}: {exc}"[:110]
            print(f"{name:36} {code:>4} {time.perf_counter() - t0:6.1f}  {line}", flush=True)
            tracebacks += (code == -1 or "Traceback" in line or "TRACEBACK" in line
                           or "this is a bug" in line)    # the last-resort line counts too
    print(f"{tracebacks} tracebacks, {len(SECRETS_WRITTEN)} secrets written")
    return 1 if tracebacks or SECRETS_WRITTEN else 0


if __name__ == "__main__":
    sys.exit(main_bench())
