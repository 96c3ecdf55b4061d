// MIRA-Math transcript viewer. Every piece of data is untrusted text: it reaches the page
// only through textContent (never innerHTML). Data arrives as <script> files that call
// MIRA.index(...) and MIRA.page(kind, n, items), because file:// pages may not fetch().
// The index is small (runs, families, a precomputed summary); the table's rows come in chunks
// ("r" pages, table order), the first at start, the rest when a filter, the hash or scrolling
// needs them, so a million transcripts open as fast as a thousand.
(function () {
  "use strict";
  var TRACE = ["no canonical hint", "hint but wrong", "correct", "errored"];
  var COLORS = ["#2f6fd6", "#d6552f", "#2fa56f", "#8e6fd6", "#c9a227", "#2fb3c9", "#c92f8e", "#6b7380"];
  var D = null, N = 0, CH = 5000;
  var pages = { t: {}, i: {}, r: {} }, waiting = { t: {}, i: {}, r: {} };
  var filtered = new Int32Array(0), selPos = -1, selRow = -1, cmpRun = -1;
  var R = null, chunkLoaded = [], chunksLoaded = 0, busy = 0;   // the table's columns, filled chunk by chunk
  var NUMERIC = ["run", "inst", "t", "trace", "unreadable", "fmt", "nonc", "req", "off", "fam", "diff", "ep", "k", "facts", "newf", "over"];
  var TEXT = ["ans", "reason", "id", "type"];
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) { for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]); return parent; }
  // a / b rounded half to even at `places` decimals after multiplying by `scale`, exactly
  // (integers, BigInt): the text `score` writes for the same counts, digit for digit
  function exact(a, b, scale, places) {
    if (!b) return "–";
    var unit = BigInt(Math.pow(10, places)), num = BigInt(a) * BigInt(scale) * unit, den = BigInt(b);
    var neg = num < 0n; if (neg) num = -num;
    var q = num / den, r = num % den;
    if (2n * r > den || (2n * r === den && q % 2n === 1n)) q += 1n;
    var digits = q.toString().padStart(places + 1, "0");
    return (neg && q ? "-" : "") + (places ? digits.slice(0, -places) + "." + digits.slice(-places) : digits);
  }
  function pct(a, b) { return b ? exact(a, b, 100, 1) + "%" : "–"; }
  var FS = 60;      // acquired/k is an integer over the index's fact_scale (60: every k up to 6)
  var HEAD_TITLES = { "all facts": "share of instances that acquired every missing fact",
    "credit": "mean of facts acquired / k (the recall of Ask-F1)",
    "ask-F1": "harmonic mean of ask precision (requests that acquired a new fact / requests) and credit" };
  // Ask-F1 = 2PR/(P+R), P = new-fact offers / requests, R = credit / (FS n): exactly 2 P' C / (P' FS n + C req)
  function askF1(s) {
    if (!s.req || !s.n) return "–";
    var nf = BigInt(s.newf), c = BigInt(s.credit), den = nf * BigInt(FS) * BigInt(s.n) + c * BigInt(s.req);
    return den ? exact(2n * nf * c, den, 100, 1) + "%" : "0.0%";
  }
  function flag(cls, text, title) { var b = el("span", "badge flag " + cls, text); b.title = title; return b; }
  function runDot(r) { var d = el("span", "dot"); d.style.background = COLORS[r % COLORS.length]; d.title = D.runs[r].label; return d; }

  // ---------------------------------------------------------------- lazy pages
  function load(kind, n) {
    if (pages[kind][n]) return Promise.resolve(pages[kind][n]);
    return new Promise(function (resolve, reject) {
      var w = waiting[kind][n];
      if (w) { w.push(resolve); return; }
      waiting[kind][n] = [resolve];
      var s = document.createElement("script");
      s.src = "data/" + kind + "-" + String(n).padStart(4, "0") + ".js";
      s.onerror = function () { reject(new Error("cannot load " + s.src)); };
      document.body.appendChild(s);
    });
  }
  function record(kind, pos) {           // the page holding record pos: the last page starting at or before it
    var starts = D.page_starts[kind], lo = 0, hi = starts.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (starts[mid] <= pos) lo = mid; else hi = mid - 1; }
    return load(kind, lo).then(function (p) { return p[pos - starts[lo]]; });
  }
  function transcript(pos) { return record("t", pos); }
  function instance(i) { return record("i", i); }

  window.MIRA = {
    page: function (kind, n, items) {
      if (kind === "r") { fillChunk(n, items); items = true; }
      else if (kind === "i") items.forEach(function (inst) { inst.budget = 3 * inst.difficulty * (inst.hint_groups ? inst.hint_groups.length : 1); });
      pages[kind][n] = items;
      (waiting[kind][n] || []).forEach(function (f) { f(items); });
      delete waiting[kind][n];
    },
    index: function (data) { D = data; N = data.rows; CH = data.chunk_rows; init(); },
    actionSpan: actionSpan,
    state: function () { return { shown: filtered.length, selected: selRow, compare: cmpRun, busy: busy > 0, chunks: chunksLoaded }; }
  };

  // where the parsed action sits in the solver's raw text: from the last REQUEST:/ANSWER: keyword
  // through the action text after it; null for a format error or text that cannot be located
  var KEYWORD = /(REQUEST|ANSWER)\s*(?:\*\*|__)?\s*[:\uff1a]/gi;
  function actionSpan(raw, action, content) {
    if (typeof raw !== "string" || (action !== "request" && action !== "answer") || !content) return null;
    content = String(content);
    var start = 0, m;
    KEYWORD.lastIndex = 0;
    while ((m = KEYWORD.exec(raw)) !== null) { start = m.index; if (m[0].length === 0) KEYWORD.lastIndex++; }
    var pos = raw.indexOf(content, start);
    if (pos < 0) {
      pos = raw.lastIndexOf(content);
      if (pos < 0) return null;
      start = pos > 0 ? raw.lastIndexOf("\n", pos - 1) + 1 : 0;
    }
    return [start, pos + content.length];
  }
  // the solver's text without its inline reasoning blocks, which the turn shows once, collapsed,
  // under "reasoning" (the harness's rule: game/turns.py; here for display only)
  var REASONING_BLOCK = /<(think|thinking|thought|thoughts|reasoning)>[\s\S]*?(?:<\/\1>|$)|^[\s\S]*?<\/(?:think|thinking|thought|thoughts|reasoning)>/gi;
  function withoutReasoning(raw) {
    if (typeof raw !== "string") return raw;
    return raw.replace(REASONING_BLOCK, "\u27e8reasoning, below\u27e9");
  }
  // the tokens the server reported for the solver's calls (usage), summed; null when none did
  function reportedUsage(t) {
    var p = 0, c = 0, any = false;
    (t.turns || []).forEach(function (turn) {
      var u = turn.role === "solver" && turn.meta && turn.meta.usage;
      if (!u) return;
      if (typeof u.prompt_tokens === "number") { p += u.prompt_tokens; any = true; }
      if (typeof u.completion_tokens === "number") { c += u.completion_tokens; any = true; }
    });
    return any ? p + " in, " + c + " out" : null;
  }
  function canonicalLines(inst) { return (inst.hints || []).map(function (h) { return h.constraint; }); }
  // k >= 2 missing facts (issue 34): the group of each canonical line, and the order in which
  // the episode acquired the groups (a group is acquired by the first offer of any of its hints)
  function groupOf(inst, line) {
    var slot = null;
    (inst.hints || []).forEach(function (h) { if (h.constraint === line) slot = h.slot; });
    var found = -1;
    (inst.hint_groups || []).forEach(function (g, i) { if (slot !== null && g.indexOf(slot) >= 0) found = i; });
    return found;
  }
  function acquisitions(inst, t) {
    var out = [], request = 0;
    (t.turns || []).forEach(function (x) {
      if (x.role !== "responder") return;
      request++;
      var g = x.decision === "offer" ? groupOf(inst, x.quoted_constraint) : -1;
      if (g >= 0 && !out.some(function (a) { return a.group === g; })) out.push({group: g, request: request});
    });
    return out;
  }

  // "2 of 2 (credit 1.00), in order: fact 2 at request 1, fact 1 at request 3"; undefined
  // (no line) for a one-fact instance, whose verdict says it all
  function factsText(inst, t) {
    if (!inst.hint_groups || inst.hint_groups.length < 2) return undefined;
    var got = acquisitions(inst, t), k = inst.hint_groups.length;
    var text = got.length + " of " + k + " (credit " + exact(got.length, k, 1, 2) + ")";
    return got.length ? text + ", in order: " + got.map(function (a) { return "fact " + (a.group + 1) + " at request " + a.request; }).join(", ") : text;
  }

  // ---------------------------------------------------------------- table rows, by chunk
  function allocRows() {
    R = {};
    NUMERIC.forEach(function (c) { R[c] = new Int32Array(N); });
    TEXT.forEach(function (c) { R[c] = new Array(N); });
  }
  function fillChunk(n, cols) {
    if (chunkLoaded[n]) return;
    var base = n * CH;
    NUMERIC.concat(TEXT).forEach(function (c) { var src = cols[c] || [], dst = R[c]; for (var j = 0; j < src.length; j++) dst[base + j] = src[j]; });
    chunkLoaded[n] = true; chunksLoaded++;
  }
  function loaded(k) { return !!chunkLoaded[Math.floor(k / CH)]; }
  function chunk(n) { return n < 0 || n >= D.chunks ? Promise.resolve(true) : load("r", n); }
  function rowsAround(k, spread) {      // the chunks holding rows k - spread .. k + spread
    var a = Math.floor(Math.max(0, k - spread) / CH), b = Math.floor(Math.min(N - 1, k + spread) / CH), jobs = [];
    for (var n = a; n <= b; n++) jobs.push(chunk(n));
    return Promise.all(jobs);
  }
  var everything = null;
  function allRows() {                  // every chunk, four at a time
    if (chunksLoaded === D.chunks) return Promise.resolve(true);
    if (everything) return everything;
    busy++;
    var next = 0;
    function worker() { if (next >= D.chunks) return Promise.resolve(true); var n = next++; return chunk(n).then(worker); }
    everything = Promise.all([worker(), worker(), worker(), worker()]).then(function () { busy--; return true; });
    return everything;
  }

  // ---------------------------------------------------------------- filters
  function options(select, items, allLabel) {
    select.textContent = "";
    add(select, el("option", null, allLabel)).lastChild.value = "";
    items.forEach(function (it) { var o = el("option", null, it[1]); o.value = String(it[0]); select.appendChild(o); });
  }
  function readFilters() {
    return { run: $("f-run").value, family: $("f-family").value, type: $("f-type").value,
      diff: $("f-diff").value, trace: $("f-trace").value, unreadable: $("f-unreadable").checked,
      fmt: $("f-fmt").checked, nonc: $("f-nonc").checked, id: $("f-id").value.trim().toLowerCase() };
  }
  function active(f, ignoreFamily) {
    return f.run !== "" || (!ignoreFamily && f.family !== "") || f.type || f.diff !== "" || f.trace !== "" ||
      f.unreadable || f.fmt || f.nonc || f.id;
  }
  function matcher(f, ignoreFamily) {
    var run = f.run === "" ? -1 : +f.run, fam = (ignoreFamily || f.family === "") ? -1 : +f.family;
    var diff = f.diff === "" ? -1 : +f.diff, trace = f.trace === "" ? -1 : +f.trace;
    return function (k) {
      if (run >= 0 && R.run[k] !== run) return false;
      if (fam >= 0 && R.fam[k] !== fam) return false;
      if (f.type && R.type[k] !== f.type) return false;
      if (diff >= 0 && R.diff[k] !== diff) return false;
      if (trace >= 0 && R.trace[k] !== trace) return false;
      if (f.unreadable && !R.unreadable[k]) return false;
      if (f.fmt && !R.fmt[k]) return false;
      if (f.nonc && !R.nonc[k]) return false;
      if (f.id && R.id[k].toLowerCase().indexOf(f.id) < 0) return false;
      return true;
    };
  }
  var filterToken = 0;
  function applyFilters(keepSelection) {
    var f = readFilters(), token = ++filterToken, out = new Int32Array(N), n = 0;
    if (!active(f, false)) { for (var k0 = 0; k0 < N; k0++) out[k0] = k0; n = N; }
    else if (chunksLoaded < D.chunks) {   // a filter reads every row: load them, then filter
      $("count").textContent = "loading the table…";
      allRows().then(function () { if (token === filterToken) applyFilters(keepSelection); });
      return;
    } else { var m = matcher(f, false); for (var k = 0; k < N; k++) if (m(k)) out[n++] = k; }
    filtered = out.subarray(0, n);
    $("count").textContent = n.toLocaleString() + " of " + N.toLocaleString() + " transcripts";
    $("spacer").style.height = (n * rowHeight()) + "px";
    selPos = keepSelection && selRow >= 0 ? indexOf(selRow) : -1;
    renderRows(true);
    renderSummary(f);
  }
  function indexOf(row) { for (var p = 0; p < filtered.length; p++) if (filtered[p] === row) return p; return -1; }

  // ---------------------------------------------------------------- summary
  function renderSummary(f) {
    var nf = D.families.length, nr = D.runs.length;
    var acc = [];
    for (var a = 0; a <= nf; a++) { acc.push([]); for (var r = 0; r < nr; r++) acc[a].push({ n: 0, t: [0, 0, 0, 0], fmt: 0, nonc: 0, req: 0, all: 0, credit: 0, newf: 0 }); }
    if (!active(f, true)) {               // no filter: the build's own counts, no row needed
      D.summary.forEach(function (e) {
        [acc[e[0]][e[1]], acc[nf][e[1]]].forEach(function (s) {
          s.n += e[2]; for (var c = 0; c < 4; c++) s.t[c] += e[3 + c]; s.fmt += e[7]; s.nonc += e[8]; s.req += e[9];
          s.all += e[10] || 0; s.credit += e[11] || 0; s.newf += e[12] || 0;
        });
      });
    } else {
      var m = matcher(f, true);
      for (var k = 0; k < N; k++) {
        if (!m(k)) continue;
        var rows = [acc[R.fam[k]][R.run[k]], acc[nf][R.run[k]]];
        rows.forEach(function (s) {
          s.t[R.trace[k]]++;
          if (R.trace[k] === 3) return;
          s.n++; s.req += R.req[k]; if (R.fmt[k]) s.fmt++; if (R.nonc[k]) s.nonc++;
          var need = R.k[k] || 1; if (R.facts[k] >= need) s.all++; s.credit += R.facts[k] * (FS / need); s.newf += R.newf[k];
        });
      }
    }
    var table = el("table", "sum"), head = el("tr");
    var heads = ["family", "run", "n", "accuracy", "trace (no hint / hint wrong / correct)", "avg requests", "format err.", "noncanon."];
    if (D.two_fact) heads = heads.concat(["all facts", "credit", "ask-F1"]);
    heads.forEach(function (h) { var th = el("th", null, h); th.title = HEAD_TITLES[h] || ""; head.appendChild(th); });
    add(table, add(el("thead"), head));
    var body = el("tbody");
    function line(fi, r, s, total) {
      var tr = el("tr", total ? "total" : null);
      var name = el("td", null, total ? "all families" : D.families[fi]);
      var runCell = add(el("td"), runDot(r), document.createTextNode(" " + D.runs[r].label));
      var bar = el("span", "bar");
      for (var c = 0; c < 3; c++) { var seg = el("i", "b" + c); seg.style.width = (s.n ? 100 * s.t[c] / s.n : 0) + "%"; bar.appendChild(seg); }
      var shares = el("td"); add(shares, bar, document.createTextNode(" " + [0, 1, 2].map(function (c) { return pct(s.t[c], s.n); }).join(" / ")));
      add(tr, name, runCell, el("td", null, s.n + (s.t[3] ? " (+" + s.t[3] + " err.)" : "")), el("td", null, pct(s.t[2], s.n)), shares,
        el("td", null, exact(s.req, s.n, 1, 2)), el("td", null, pct(s.fmt, s.n)), el("td", null, pct(s.nonc, s.n)));
      if (D.two_fact) add(tr, el("td", null, pct(s.all, s.n)), el("td", null, exact(s.credit, s.n * FS, 1, 2)), el("td", null, askF1(s)));
      tr.addEventListener("click", function () { $("f-family").value = total ? "" : String(fi); applyFilters(true); });
      body.appendChild(tr);
    }
    for (var fi = 0; fi < nf; fi++) for (var r2 = 0; r2 < nr; r2++) { var s = acc[fi][r2]; if (s.n + s.t[3]) line(fi, r2, s, false); }
    for (var r3 = 0; r3 < nr; r3++) if (acc[nf][r3].n + acc[nf][r3].t[3]) line(nf, r3, acc[nf][r3], true);
    table.appendChild(body);
    $("summary").textContent = "";
    $("summary").appendChild(table);
  }

  // ---------------------------------------------------------------- virtual table
  var RH = 0;
  function rowHeight() { return RH || (RH = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--row")) || 28); }
  function renderRows() {
    var sc = $("scroller"), sp = $("spacer"), h = rowHeight();
    var first = Math.max(0, Math.floor(sc.scrollTop / h) - 10), last = Math.min(filtered.length, Math.ceil((sc.scrollTop + sc.clientHeight) / h) + 10);
    sp.textContent = "";
    var missing = {};
    for (var p = first; p < last; p++) {
      var k = filtered[p];
      var row = el("div", "row trow" + (k === selRow ? " sel" : ""));
      row.style.top = (p * h) + "px";
      row.dataset.pos = p;
      if (!loaded(k)) { missing[Math.floor(k / CH)] = true; add(row, el("span", "c-id muted", "…")); sp.appendChild(row); continue; }
      var trace = add(el("span", "c-trace"), el("span", "badge t" + R.trace[k], TRACE[R.trace[k]]));
      var fam = el("span", "c-fam", D.families[R.fam[k]]), flags = el("span", "c-flags");
      if (R.fmt[k]) flags.appendChild(flag("fmt", "F" + R.fmt[k], R.fmt[k] + " format error(s)"));
      if (R.nonc[k]) flags.appendChild(flag("noncanon", "N" + R.nonc[k], R.nonc[k] + " noncanonical offer(s)"));
      if (R.unreadable[k]) flags.appendChild(flag("", "U", "unreadable answer"));
      if (R.over && R.over[k]) flags.appendChild(flag("noncanon", "O" + R.over[k], R.over[k] + " unnecessary request(s) (blind tier)"));
      fam.title = D.families[R.fam[k]];
      add(row, add(el("span", "c-run"), runDot(R.run[k])), el("span", "c-id", R.id[k]), el("span", "c-ep", R.ep[k]), fam, el("span", "c-t", R.type[k]),
        el("span", "c-d", R.diff[k]), trace, flags, el("span", "c-ro", R.req[k] + "/" + R.off[k]),
        D.two_fact ? el("span", "c-facts", R.facts[k] + "/" + (R.k[k] || 1)) : null, el("span", "c-ans", R.ans[k]));
      row.title = R.reason[k];
      sp.appendChild(row);
    }
    Object.keys(missing).forEach(function (n) { chunk(+n).then(function () { renderRows(); }); });
  }
  function select(pos, scroll) {
    if (pos < 0 || pos >= filtered.length) return;
    selPos = pos; selRow = filtered[pos];
    if (scroll) {
      var sc = $("scroller"), h = rowHeight(), top = pos * h;
      if (top < sc.scrollTop) sc.scrollTop = top;
      else if (top + h > sc.scrollTop + sc.clientHeight) sc.scrollTop = top + h - sc.clientHeight;
    }
    renderRows();
    writeHash();
    renderDetail();
  }

  // ---------------------------------------------------------------- URL hash
  function writeHash() {
    if (selRow < 0) return;
    var h = "#run=" + R.run[selRow] + "&id=" + encodeURIComponent(R.id[selRow]);
    if (R.ep[selRow]) h += "&ep=" + R.ep[selRow];     // epochs of one instance: one link each
    if (cmpRun >= 0) h += "&cmp=" + cmpRun;
    if (location.hash !== h) history.replaceState(null, "", h);
  }
  function readHash() {
    var q = {}; location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var p = kv.split("=");   // a malformed escape (#id=%E0%A4%A) is ignored, not thrown
      try { if (p[0]) q[decodeURIComponent(p[0])] = decodeURIComponent(p[1] || ""); } catch (e) { /* skip it */ }
    });
    if (/^\d+$/.test(q.cmp || "") && +q.cmp < D.runs.length) cmpRun = +q.cmp;   // else ignored
    if (q.id === undefined) return;
    allRows().then(function () {        // an id anywhere in the table: every row is needed
      for (var k = 0; k < N; k++) if (R.id[k] === q.id && String(R.run[k]) === (q.run || "0") && String(R.ep[k]) === (q.ep || "0")) {
        selRow = k; var p = indexOf(k);
        if (p < 0) { resetFilters(); p = indexOf(k); }
        select(p, true); return;
      }
    });
  }
  function resetFilters() {
    ["f-run", "f-family", "f-type", "f-diff", "f-trace"].forEach(function (id) { $(id).value = ""; });
    ["f-unreadable", "f-fmt", "f-nonc"].forEach(function (id) { $(id).checked = false; });
    $("f-id").value = ""; applyFilters(false);
  }

  // ---------------------------------------------------------------- detail
  function kv(pairs) {
    var dl = el("dl", "kv");
    pairs.forEach(function (p) { if (p[1] === undefined) return; add(dl, el("dt", null, p[0]), el("dd", null, p[1] === null ? "—" : p[1])); });
    return dl;
  }
  function solverText(raw, span) {
    var pre = el("pre", "text");
    raw = raw === null || raw === undefined ? "" : String(raw);
    if (span) {
      pre.appendChild(document.createTextNode(raw.slice(0, span[0])));
      pre.appendChild(el("mark", null, raw.slice(span[0], span[1])));
      pre.appendChild(document.createTextNode(raw.slice(span[1])));
    } else pre.textContent = raw;
    return pre;
  }
  function renderTranscript(t, inst, r) {
    var col = el("div", "col");
    var v = t.verdict || {};
    var head = el("div", "dhead");
    add(head, runDot(r), el("b", null, D.runs[r].label));
    col.appendChild(head);
    var verdict = el("div", "card verdict " + (v.correct ? "ok" : "bad"));
    add(verdict, el("h2", null, v.correct ? "Correct" : (t.error ? "Errored" : "Wrong")),
      kv([["expected", v.expected === undefined ? inst.answer.value : v.expected], ["parsed", v.parsed === undefined ? null : v.parsed],
        ["final answer", t.final_answer], ["reason", v.reason || null], ["ended by", t.ended_by],
        ["budget", t.budget], ["facts acquired", factsText(inst, t)], ["tokens (reported)", reportedUsage(t)], ["tokens (est.)", t.tokens_est]]));
    if (t.error) verdict.appendChild(el("pre", "text", "error in " + t.error.where + ": " + t.error.message));
    col.appendChild(verdict);
    var solverN = 0, canon = canonicalLines(inst), seenGroups = {};
    (t.turns || []).forEach(function (turn) {
      var box = el("div", "turn " + turn.role), who = el("div", "who");
      if (turn.role === "solver") {
        solverN++;
        add(who, el("b", null, "Solver · turn " + solverN),
          el("span", "badge " + (turn.action === "format_error" ? "fmt" : "decline"), turn.action === "format_error" ? "format error" : turn.action),
          turn.final_turn ? el("span", "badge flag", "final turn (answer only)") : null,
          turn.finish_reason && turn.finish_reason !== "stop" ? el("span", "badge fmt", "finish: " + turn.finish_reason) : null);
        var shown = turn.reasoning ? withoutReasoning(turn.raw) : turn.raw;   // the thinking once: below
        add(box, who, solverText(shown, actionSpan(shown, turn.action, turn.content)));
        if (turn.format_error) who.appendChild(el("span", "badge fmt", turn.format_error.replace("_", " ")));
        if (turn.speaker_cut) box.appendChild(el("pre", "text", "cut at line " + turn.speaker_cut.line +
          " (speaks for another party: " + turn.speaker_cut.speaker + "); not read"));
        if (turn.reasoning) {   // reasoning models: the thinking, collapsed under the turn
          var th = el("details", "raw reasoning");
          add(th, el("summary", null, "reasoning" + (turn.reasoning_tokens ? " (" + turn.reasoning_tokens + " tokens)" : "")),
            el("pre", "text", turn.reasoning));
          box.appendChild(th);
        }
      } else {
        var offer = turn.decision === "offer", canonical = offer && canon.indexOf(turn.quoted_constraint) >= 0;
        var group = inst.hint_groups && canonical ? groupOf(inst, turn.quoted_constraint) : -1;
        var fresh = group >= 0 && !seenGroups[group];
        if (group >= 0) seenGroups[group] = true;
        add(who, el("b", null, "Responder"), el("span", "badge " + (offer ? "offer" : "decline"), turn.decision),
          offer ? el("span", "badge " + (canonical ? "offer" : "noncanon"), canonical ? "canonical" : "noncanonical") : null,
          group >= 0 ? el("span", "badge flag", "fact " + (group + 1) + " of " + inst.hint_groups.length + (fresh ? "" : " (again)")) : null,
          turn.meta && turn.meta.rule ? el("span", null, "rule: " + turn.meta.rule) : null);
        box.appendChild(who);
        box.appendChild(kv([["request", turn.request], ["quoted line", turn.quoted_constraint], ["shown", turn.shown]]));
        if (turn.errors && turn.errors.length) box.appendChild(el("pre", "text", "errors: " + turn.errors.join("; ")));
        if (turn.raw) { var d = el("details", "raw"); add(d, el("summary", null, "responder raw output"), el("pre", "text", turn.raw)); box.appendChild(d); }
      }
      col.appendChild(box);
    });
    return col;
  }
  function renderInstance(inst, t) {
    var card = el("div", "card");
    var used = {};
    (t.turns || []).forEach(function (x) { if (x.role === "responder" && x.decision === "offer") used[x.quoted_constraint] = true; });
    var canon = {}; inst.hints.forEach(function (h) { canon[h.constraint] = true; });
    add(card, el("h3", null, "Solver's view"), el("p", null, inst.view.context));
    var facts = el("ul", "lines"); inst.view.facts.forEach(function (f) { facts.appendChild(el("li", null, f)); });
    add(card, facts, el("p", null, inst.view.question), el("p", "muted", inst.view.domain));
    card.appendChild(el("h3", null, "Responder's private lines"));
    var lines = el("ul", "lines");
    inst.responder.forEach(function (l) {
      var li = el("li", (canon[l] ? "canon" : "") + (used[l] ? " used" : ""), l);
      if (canon[l]) li.appendChild(el("span", "badge offer flag", "canonical"));
      if (used[l]) li.appendChild(el("span", "badge flag", "offered"));
      lines.appendChild(li);
    });
    card.appendChild(lines);
    if (inst.hint_groups) {
      var got = acquisitions(inst, t);
      card.appendChild(el("h3", null, "Facts needed: " + inst.hint_groups.length + " (a fact is acquired by any hint of its group)"));
      var needed = el("ul", "lines");
      inst.hint_groups.forEach(function (g, i) {
        var when = null;
        got.forEach(function (a, rank) { if (a.group === i) when = "acquired " + (["1st", "2nd", "3rd"][rank] || (rank + 1) + "th") + ", at request " + a.request; });
        var li = el("li", when ? "used" : "", "fact " + (i + 1) + ": " + g.join(" or "));
        li.appendChild(el("span", "badge flag", when || "not acquired"));
        needed.appendChild(li);
      });
      card.appendChild(needed);
    }
    card.appendChild(el("h3", null, inst.hint_groups ? "Hint specification (one of each group is needed)" : "Hint specification (any one suffices)"));
    var hints = el("ul", "lines"); inst.hints.forEach(function (h) { hints.appendChild(el("li", null, h.slot + " — " + h.constraint + "  (value " + h.value + ")")); });
    card.appendChild(hints);
    add(card, el("h3", null, "Answer"), kv([["type", inst.answer.type], ["value", inst.answer.value],
      ["components", inst.answer.components.length ? inst.answer.components.join(", ") : null],
      ["candidates", inst.candidate_answers], ["level", inst.level], ["seed set", inst.seed_set]]));
    var lat = el("details", "raw"); add(lat, el("summary", null, "latent state"), el("pre", "text", inst.latent));
    card.appendChild(lat);
    return card;
  }
  var renderToken = 0;
  function sameInstance(k) {           // rows are in instance order: its other runs are neighbours
    var out = [], i = R.inst[k], x;
    for (x = k - 1; x >= 0 && loaded(x) && R.inst[x] === i; x--) out.push(x);
    for (x = k + 1; x < N && loaded(x) && R.inst[x] === i; x++) out.push(x);
    return out;
  }
  function renderDetail() {
    var k = selRow, token = ++renderToken;
    rowsAround(k, D.runs.length).then(function () {
      if (token !== renderToken) return null;
      var others = sameInstance(k), cmpRow = -1;
      others.forEach(function (x) { if (R.run[x] === cmpRun) cmpRow = x; });
      return Promise.all([transcript(R.t[k]), instance(R.inst[k]), cmpRow >= 0 ? transcript(R.t[cmpRow]) : Promise.resolve(null), others]);
    }).then(function (res) {
      if (!res || token !== renderToken) return;
      var others = res[3];
      var t = res[0], inst = res[1], c = res[2], det = $("detail");
      det.textContent = "";
      var head = el("div", "dhead");
      add(head, el("span", "id", inst.id), el("span", "badge t" + R.trace[k], TRACE[R.trace[k]]),
        el("span", "muted", inst.family + " · type " + inst.type + " · difficulty " + inst.difficulty + " · budget " + inst.budget));
      det.appendChild(head);
      var bar = el("div", "cmpbar"), sel = el("select"); sel.id = "cmp";
      add(sel, el("option", null, "— none —")).lastChild.value = "-1";
      D.runs.forEach(function (run, r) { if (r === R.run[k]) return; var o = el("option", null, run.label + (others.some(function (x) { return R.run[x] === r; }) ? "" : " (not on this instance)")); o.value = String(r); sel.appendChild(o); });
      sel.value = String(cmpRun);
      sel.addEventListener("change", function () { cmpRun = +sel.value; writeHash(); renderDetail(); });
      add(bar, el("span", null, "Side by side with"), sel, el("span", "muted", "keys: j / k next / previous, / search, c cycle comparison"));
      det.appendChild(bar);
      var cols = el("div", "cols");
      cols.appendChild(renderTranscript(t, inst, R.run[k]));
      if (c) cols.appendChild(renderTranscript(c, inst, cmpRun));
      det.appendChild(cols);
      det.appendChild(renderInstance(inst, t));
      det.scrollTop = 0;
    }, function (err) { $("detail").textContent = String(err); });
  }

  // ---------------------------------------------------------------- start
  function init() {
    allocRows();
    if (D.fact_scale) FS = D.fact_scale;
    if (D.id_chars) $("list").style.setProperty("--idw", D.id_chars + "ch");   // whole ids, never cut
    if (D.two_fact) document.body.classList.add("two-fact");
    var runs = $("runs");
    D.runs.forEach(function (run, r) { add(runs, add(el("span", "run-tag"), runDot(r), document.createTextNode(run.label + " (" + run.transcripts + ")"))); });
    add(runs, el("span", "muted", N + " transcripts of " + (D.run_instances === undefined ? D.instances : D.run_instances) + " instances"));
    options($("f-run"), D.runs.map(function (run, r) { return [r, run.label]; }), "all runs");
    options($("f-family"), D.families.map(function (f, n) { return [n, f]; }), "all families");
    options($("f-diff"), D.difficulties.map(function (d) { return [d, String(d)]; }), "all");
    ["f-run", "f-family", "f-type", "f-diff", "f-trace", "f-unreadable", "f-fmt", "f-nonc"].forEach(function (id) { $(id).addEventListener("change", function () { applyFilters(true); }); });
    $("f-id").addEventListener("input", function () { applyFilters(true); });
    var pending = false;
    $("scroller").addEventListener("scroll", function () { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; renderRows(); }); } });
    window.addEventListener("resize", function () { renderRows(); });
    $("spacer").addEventListener("click", function (e) { var row = e.target.closest(".trow"); if (row) select(+row.dataset.pos, false); });
    document.addEventListener("keydown", function (e) {
      var tag = (e.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea") { if (e.key === "Escape") e.target.blur(); return; }
      if (e.key === "j" || e.key === "ArrowDown") { select(Math.min(filtered.length - 1, selPos + 1), true); e.preventDefault(); }
      else if (e.key === "k" || e.key === "ArrowUp") { select(Math.max(0, selPos - 1), true); e.preventDefault(); }
      else if (e.key === "/") { $("f-id").focus(); e.preventDefault(); }
      else if (e.key === "c" && D.runs.length > 1 && selRow >= 0) {
        var r = cmpRun + 1; if (r === R.run[selRow]) r++; if (r >= D.runs.length) r = -1; cmpRun = r; writeHash(); renderDetail();
      }
    });
    window.addEventListener("hashchange", readHash);
    chunk(0).then(function () {         // the summary and the first page of the table: ready
      applyFilters(false);
      readHash();
      document.body.dataset.ready = "1";
    });
  }
})();
