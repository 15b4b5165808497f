// The agentctx report page: reads the report's JSON from #report-data and
// draws it with uPlot. No network access.
(function () {
  "use strict";
  var R = JSON.parse(document.getElementById("report-data").textContent);
  var calls = R.calls || [];
  var comps = R.compactions || [];
  var cats = R.categories || [];
  var N = calls.length;

  var LEVEL_COLORS = { L1: "#ea580c", L2: "#a855f7", L3: "#db2777", cut: "#dc2626", mask: "#ca8a04", summary: "#0891b2" };
  var CAT_COLORS = {
    "system": "#64748b", "tools": "#a8b3c4", "instruction files": "#8b5cf6", "summary": "#0891b2",
    "messages": "#3b82f6", "tool results": "#f59e0b", "working memory": "#10b981", "reminders": "#ec4899"
  };
  var C = { prompt: "#2563eb", uncompacted: "#6b7280", budget: "#dc2626", cache: "#10b981", provider: "#b45309" };

  function $(id) { return document.getElementById(id); }
  function fmt(n) { return Math.round(n).toLocaleString("en-US"); }
  function pct(x) { return (100 * x).toFixed(1) + "%"; }
  // money formats US dollars: to the cent from $1, finer below.
  function money(x) { return "$" + (Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4)); }
  function short(n) {
    var a = Math.abs(n);
    if (a >= 1e9) return (n / 1e9).toFixed(1) + "B";
    if (a >= 1e6) return (n / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
    if (a >= 1e3) return (n / 1e3).toFixed(a >= 1e4 ? 0 : 1) + "k";
    return String(n);
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function levelColor(l) { return LEVEL_COLORS[l] || "#374151"; }
  function describe(c) {
    var s = c.level + ": " + fmt(c.before) + " \u2192 " + fmt(c.after) + " tokens (\u2212" + fmt(c.removed) + ")";
    if (c.messages_removed) s += ", " + c.messages_removed + " messages removed";
    if (c.results_cut) s += ", " + c.results_cut + " results cut";
    if (c.messages_cut) s += ", " + c.messages_cut + " messages cut";
    if (c.summarizer) s += ", summarizer " + c.summarizer;
    if (c.fallback) s += ", FALLBACK" + (c.fallback_reason ? " (" + c.fallback_reason + ")" : "");
    if (c.escalated) s += ", instead of a summary" + (c.reason ? ": " + c.reason : "");
    if (c.retention) s += ", retained " + pct(c.retention.overall);
    if (c.over_budget) s += ", still over budget";
    if (c.refill) s += ", " + refillText(c.refill);
    return s;
  }
  // refillText says what regrew before a back-to-back compaction.
  function refillText(r) {
    var grew = Object.keys(r.tokens || {}).filter(function (k) { return r.tokens[k] > 0; })
      .sort(function (a, b) { return r.tokens[b] - r.tokens[a]; })
      .map(function (k) { return k.replace(/_/g, " ") + " +" + fmt(r.tokens[k]); });
    return "refilled within " + r.calls + " calls (" + r.in_a_row + " in a row)" + (grew.length ? ": " + grew.join(", ") : "");
  }

  // Header: the session's story.
  if (R.task || R.outcome) {
    $("story").hidden = false;
    $("task").textContent = R.task || "\u2014";
    $("outcome").textContent = R.outcome || "\u2014";
  }
  var t = R.totals || {};
  $("subtitle").textContent = [
    R.model, "context window " + fmt(R.context_window), "budget " + fmt(R.budget) + " (" + R.budget_source + ")",
    "strategy " + R.strategy, R.format, fmt(R.messages) + " messages", fmt(N) + " model calls"
  ].join(" \u00b7 ");
  if (R.note) { $("note").textContent = R.note; $("note").hidden = false; }
  var levels = Object.keys(t.levels || {}).filter(function (k) { return t.levels[k] > 0; });
  var cards = [
    ["peak prompt", fmt(t.peak_prompt), pct(t.peak_prompt / Math.max(R.budget, 1)) + " of the budget"],
    ["peak without compaction", fmt(t.peak_uncompacted), pct(t.peak_uncompacted / Math.max(R.budget, 1)) + " of the budget"],
    ["calls over budget", fmt(t.calls_over_budget), "of " + fmt(N)],
    ["compactions", fmt(comps.length), levels.map(function (k) { return k + " " + t.levels[k]; }).join(" \u00b7 ") || "none"],
    ["tokens removed", fmt(t.tokens_removed), "by all compactions"],
    ["tokens sent", short(t.prompt_tokens), "without compaction " + short(t.uncompacted_tokens)],
    ["cache reuse", pct(t.cache_hit_ratio || 0), short(t.cache_read_tokens) + " tokens served"]
  ];
  if (t.cost) cards.push(["cost", money(t.cost.usd), "without compaction " + money(t.cost.uncompacted_usd) + " (list price as of " + t.cost.price_as_of + ")"]);
  if (t.retention) cards.push(["facts retained", pct(t.retention.overall), t.retention.kept + " of " + t.retention.total + " over all summaries"]);
  $("cards").innerHTML = cards.map(function (c) {
    return '<div class="card"><div class="k">' + esc(c[0]) + '</div><div class="v">' + esc(c[1]) + '</div><div class="k">' + esc(c[2]) + "</div></div>";
  }).join("");

  if (N === 0) {
    $("timeline").innerHTML = '<p class="muted">No model call yet: nothing to chart.</p>';
    ["window-section", "compactions-section", "retention-section"].forEach(function (id) { $(id).hidden = true; });
    document.body.dataset.ready = "1";
    return;
  }

  var selected = N;
  var xs = calls.map(function (c) { return c.n; });
  var hasProvider = calls.some(function (c) { return c.provider > 0; });
  var byCall = {};
  comps.forEach(function (c, i) { (byCall[c.call] = byCall[c.call] || []).push(i); });

  function width(el) { return Math.max(el.clientWidth, 600); }
  var tokenAxis = { label: "tokens", size: 64, values: function (u, vals) { return vals.map(short); }, grid: { stroke: "#eef0f3" } };
  var callAxis = { label: "model call", grid: { stroke: "#eef0f3" } };

  // Timeline.
  var tlData = [xs, calls.map(function (c) { return c.cache_read; }), calls.map(function (c) { return c.uncompacted; }),
    calls.map(function () { return R.budget; }), calls.map(function (c) { return c.prompt; })];
  var tlSeries = [
    { label: "call" },
    { label: "cache reuse", stroke: C.cache, width: 1, fill: "rgba(16,185,129,0.22)", value: function (u, v) { return v == null ? "\u2014" : fmt(v); } },
    { label: "without compaction", stroke: C.uncompacted, width: 1.5, dash: [6, 4], value: function (u, v) { return v == null ? "\u2014" : fmt(v); } },
    { label: "budget", stroke: C.budget, width: 1.5, dash: [3, 3], value: function (u, v) { return v == null ? "\u2014" : fmt(v); } },
    { label: "sent (after compaction)", stroke: C.prompt, width: 2, value: function (u, v) { return v == null ? "\u2014" : fmt(v); } }
  ];
  if (hasProvider) {
    tlData.push(calls.map(function (c) { return c.provider || null; }));
    tlSeries.push({ label: "provider reported", stroke: C.provider, width: 1, dash: [2, 2], spanGaps: true, value: function (u, v) { return v == null ? "\u2014" : fmt(v); } });
  }
  var markers = [];
  var tip = document.createElement("div");
  tip.className = "tip";
  tip.hidden = true;

  var tmarks = [];
  function placeMarkers(u) {
    var w = u.over.clientWidth, h = u.over.clientHeight;
    tmarks.forEach(function (m) {
      var x = u.valToPos(m.n, "x");
      m.el.style.display = x >= -1 && x <= w + 1 ? "" : "none";
      m.el.style.left = x + "px";
    });
    var stack = {};
    markers.forEach(function (m) {
      var c = comps[m.i];
      var x = u.valToPos(c.call, "x");
      var k = stack[c.call] = (stack[c.call] || 0) + 1;
      var on = x >= -1 && x <= w + 1;
      m.el.style.display = on ? "" : "none";
      m.el.style.left = x + "px";
      m.el.style.top = (k - 1) * 10 + "px";
      if (m.line) {
        m.line.style.display = on ? "" : "none";
        m.line.style.left = Math.round(x) + "px";
        m.line.style.top = "0px";
        m.line.style.height = h + "px";
      }
    });
  }

  function showTip(u) {
    var i = u.cursor.idx;
    if (i == null || u.cursor.left < 0) { tip.hidden = true; return; }
    var c = calls[i];
    var html = "<b>call " + c.n + "</b> (message " + c.step + ")<br>" +
      "sent " + fmt(c.prompt) + (c.over ? ' <span style="color:#fca5a5">(' + fmt(c.over) + " over)</span>" : "") + "<br>" +
      "without compaction " + fmt(c.uncompacted) + "<br>" +
      "budget " + fmt(R.budget) + "<br>" +
      "cache reuse " + fmt(c.cache_read) + " (" + pct(c.cache_read / Math.max(c.prompt, 1)) + ")";
    if (c.provider) html += "<br>provider reported " + fmt(c.provider);
    (byCall[c.n] || []).forEach(function (j) { html += '<br><span style="color:' + levelColor(comps[j].level) + '">\u25bc</span> ' + esc(describe(comps[j])); });
    tip.innerHTML = html;
    tip.hidden = false;
    var left = u.cursor.left + 14, top = Math.max(u.cursor.top - 10, 0);
    if (left + tip.offsetWidth > u.over.clientWidth) left = u.cursor.left - tip.offsetWidth - 14;
    if (top + tip.offsetHeight > u.over.clientHeight) top = u.over.clientHeight - tip.offsetHeight;
    tip.style.left = Math.max(left, 0) + "px";
    tip.style.top = Math.max(top, 0) + "px";
  }

  function clickToSelect(u) {
    u.over.addEventListener("click", function () {
      if (u.cursor.idx != null) select(calls[u.cursor.idx].n);
    });
  }

  // The y axis is scaled to the budget and every prompt sent; the
  // history without compaction only while it stays within 1.25 times
  // that (past it, its line leaves the top of the chart and the legend
  // says so): what happens under the budget is what the chart is for.
  var yMax = Math.max(R.budget, t.peak_prompt || 0);
  calls.forEach(function (c) { if (c.provider > yMax) yMax = c.provider; });
  var clipped = (t.peak_uncompacted || 0) > 1.25 * yMax;
  if (!clipped) yMax = Math.max(yMax, t.peak_uncompacted || 0);
  if (clipped) tlSeries[2].label = "without compaction (up to " + short(t.peak_uncompacted) + ", above the chart)";
  var tlEl = $("timeline");
  var timeline = new uPlot({
    width: width(tlEl), height: 380,
    scales: { x: { time: false }, y: { range: function () { return [0, yMax * 1.05]; } } },
    axes: [callAxis, tokenAxis],
    series: tlSeries,
    cursor: { sync: { key: "calls" }, drag: { x: true, y: false } },
    hooks: {
      ready: [function (u) {
        comps.forEach(function (c, i) {
          var el = document.createElement("div");
          el.className = "cmark";
          el.dataset.level = c.level;
          el.dataset.call = c.call;
          el.style.setProperty("--c", levelColor(c.level));
          el.title = "before call " + c.call + ": " + describe(c);
          el.addEventListener("click", function (ev) { ev.stopPropagation(); select(c.call); });
          // A line down the plot for each, unless there are so many
          // that they would hide the series.
          var line = null;
          if (comps.length <= 80) {
            line = document.createElement("div");
            line.className = "cline";
            line.style.setProperty("--c", levelColor(c.level));
            u.over.appendChild(line);
          }
          u.over.appendChild(el);
          markers.push({ i: i, el: el, line: line });
        });
        (R.recorded_compactions || []).forEach(function (n) {
          var el = document.createElement("div");
          el.className = "tmark";
          el.dataset.call = n;
          el.title = "before call " + n + ": a compaction the agent recorded in the transcript";
          u.over.appendChild(el);
          tmarks.push({ n: n, el: el });
        });
        u.over.appendChild(tip);
        placeMarkers(u);
        clickToSelect(u);
      }],
      setScale: [function (u, key) { if (key === "x") placeMarkers(u); }],
      setSize: [placeMarkers],
      setCursor: [showTip],
      draw: [function (u) {
        // Where the plot area is on the page once drawn, in CSS pixels
        // (left,top,width,height): tests look for the lines there.
        var b = u.over.getBoundingClientRect();
        u.root.parentNode.dataset.plot = [b.left + window.scrollX, b.top + window.scrollY, b.width, b.height].map(Math.round).join(",");
      }]
    }
  }, tlData, tlEl);
  timeline.over.addEventListener("mouseleave", function () { tip.hidden = true; });

  var used = {};
  comps.forEach(function (c) { used[c.level] = true; });
  $("level-legend").innerHTML = Object.keys(LEVEL_COLORS).filter(function (l) { return used[l]; }).map(function (l) {
    return '<span style="--c:' + LEVEL_COLORS[l] + '">' + esc(l) + " (" + (t.levels && t.levels[l] || 0) + ")</span>";
  }).join("") || '<span class="muted">no compaction ran</span>';

  // What the agent did: each call's tool calls, and the files.
  (function () {
    var rows = "<thead><tr><th>call</th><th>tool calls</th></tr></thead><tbody>", n = 0;
    calls.forEach(function (c) {
      if (!c.actions || !c.actions.length) return;
      n += c.actions.length;
      rows += '<tr><td><a href="#" data-call="' + c.n + '">' + c.n + "</a></td><td>" + c.actions.map(function (a) {
        var files = (a.read || []).map(function (p) { return "read " + esc(p); })
          .concat((a.wrote || []).map(function (p) { return "<b>wrote " + esc(p) + "</b>"; }));
        return esc(a.tool) + (a.detail ? ' <code>' + esc(a.detail) + "</code>" : "") + (files.length ? ' <span class="act">' + files.join(", ") + "</span>" : "");
      }).join("<br>") + "</td></tr>";
    });
    $("actions").innerHTML = rows + "</tbody>";
    $("action-count").textContent = "(" + fmt(n) + " tool calls)";
    $("actions").addEventListener("click", function (ev) {
      var a = ev.target.closest("a[data-call]");
      if (a) { ev.preventDefault(); select(+a.dataset.call); }
    });
    var fr = "<thead><tr><th>file</th><th>reads</th><th>writes</th><th>calls</th></tr></thead><tbody>";
    (R.files || []).forEach(function (f) {
      fr += "<tr><td>" + esc(f.path) + "</td><td>" + fmt(f.reads) + "</td><td>" + fmt(f.writes) + "</td><td>" + f.first + (f.last !== f.first ? "\u2013" + f.last : "") + "</td></tr>";
    });
    $("files").innerHTML = fr + "</tbody>";
  })();

  // Composition: the categories stacked, drawn from the top down.
  var cum = [];
  cats.forEach(function (_, k) {
    cum.push(calls.map(function (c) {
      var s = 0;
      for (var j = 0; j <= k; j++) s += c.window[j];
      return s;
    }));
  });
  var compData = [xs], compSeries = [{ label: "call" }];
  for (var k = cats.length - 1; k >= 0; k--) {
    if (!calls.some(function (c) { return c.window[k] > 0; })) continue;
    compData.push(cum[k]);
    compSeries.push((function (k) {
      var col = CAT_COLORS[cats[k]] || "#999";
      return { label: cats[k], stroke: col, width: 0.5, fill: col, value: function (u, v, si, i) { return i == null ? "\u2014" : fmt(calls[i].window[k]); } };
    })(k));
  }
  compData.push(calls.map(function () { return R.budget; }));
  compSeries.push({ label: "budget", stroke: C.budget, width: 1.5, dash: [3, 3], value: function (u, v) { return v == null ? "\u2014" : fmt(v); } });
  var compEl = $("composition");
  var composition = new uPlot({
    width: width(compEl), height: 260,
    scales: { x: { time: false }, y: { range: function (u, lo, hi) { return [0, hi * 1.05]; } } },
    axes: [callAxis, tokenAxis],
    series: compSeries,
    cursor: { sync: { key: "calls" }, drag: { x: true, y: false } },
    hooks: { ready: [clickToSelect] }
  }, compData, compEl);

  window.addEventListener("resize", function () {
    timeline.setSize({ width: width(tlEl), height: 380 });
    composition.setSize({ width: width(compEl), height: 260 });
  });

  // The window at the selected call.
  var maxScale = Math.max(R.budget, t.peak_prompt || 0);
  var range = $("call-range"), input = $("call-input");
  range.max = input.max = N;
  function select(n) {
    n = Math.min(Math.max(Math.round(n) || 1, 1), N);
    selected = n;
    var c = calls[n - 1];
    range.value = input.value = n;
    $("call-label").textContent = n + " of " + N + " (message " + c.step + ")";
    var segs = "";
    cats.forEach(function (name, k) {
      var v = c.window[k];
      if (v <= 0) return;
      segs += '<div class="seg" style="width:' + (100 * v / maxScale).toFixed(3) + "%;background:" + (CAT_COLORS[name] || "#999") + '" title="' + esc(name + ": " + fmt(v) + " tokens") + '"></div>';
    });
    segs += '<div class="budget" style="left:' + (100 * R.budget / maxScale).toFixed(3) + '%" title="budget ' + fmt(R.budget) + '"></div>';
    $("stackbar").innerHTML = segs;
    var rows = "<thead><tr><th>category</th><th>tokens</th><th>of the prompt</th><th>of the budget</th></tr></thead><tbody>";
    cats.forEach(function (name, k) {
      var v = c.window[k];
      rows += '<tr><td><span class="swatch" style="background:' + (CAT_COLORS[name] || "#999") + '"></span>' + esc(name) + "</td><td>" + fmt(v) + "</td><td>" + pct(v / Math.max(c.prompt, 1)) + "</td><td>" + pct(v / Math.max(R.budget, 1)) + "</td></tr>";
    });
    rows += "<tr><th>prompt</th><th>" + fmt(c.prompt) + "</th><th>100.0%</th><th>" + pct(c.prompt / Math.max(R.budget, 1)) + "</th></tr>";
    rows += c.over ? '<tr><td class="bad">over budget</td><td class="bad">' + fmt(c.over) + "</td><td></td><td></td></tr>"
      : "<tr><td>free under the budget</td><td>" + fmt(R.budget - c.prompt) + "</td><td></td><td>" + pct((R.budget - c.prompt) / Math.max(R.budget, 1)) + "</td></tr>";
    $("breakdown").innerHTML = rows + "</tbody>";
    var info = "<p>Without compaction this prompt would be <b>" + fmt(c.uncompacted) + "</b> tokens (" + pct(c.uncompacted / Math.max(R.budget, 1)) + " of the budget): this call sends " + fmt(Math.max(c.uncompacted - c.prompt, 0)) + " fewer, by compaction and by the tool results the limiter cut as they entered.</p>" +
      "<p>A warm prompt cache would serve <b>" + fmt(c.cache_read) + "</b> tokens (" + pct(c.cache_read / Math.max(c.prompt, 1)) + ").</p>";
    if (c.provider) info += "<p>The provider reported " + fmt(c.provider) + " prompt tokens for this call.</p>";
    var cs = byCall[c.n] || [];
    info += cs.length ? "<p>Compacted before this call:</p><ul>" + cs.map(function (j) {
      return '<li><span style="color:' + levelColor(comps[j].level) + '">\u25bc</span> ' + esc(describe(comps[j])) + "</li>";
    }).join("") + "</ul>" : "<p>No compaction before this call.</p>";
    $("call-info").innerHTML = info;
    var trs = document.querySelectorAll("#compactions tbody tr");
    for (var i = 0; i < trs.length; i++) trs[i].classList.toggle("sel", +trs[i].dataset.call === n);
  }
  range.addEventListener("input", function () { select(+range.value); });
  input.addEventListener("change", function () { select(+input.value); });
  $("prev").addEventListener("click", function () { select(selected - 1); });
  $("next").addEventListener("click", function () { select(selected + 1); });

  // The compaction records.
  $("compaction-count").textContent = "(" + fmt(comps.length) + ")";
  var yes = function (b) { return b ? "yes" : ""; };
  var head = '<thead><tr><th>call</th><th class="l">level</th><th>before</th><th>after</th><th>removed</th><th>msgs removed</th><th>results cut</th><th>msgs cut</th><th class="l">summarizer</th><th class="l">fallback</th><th>retained</th></tr></thead>';
  $("compactions").innerHTML = head + "<tbody>" + comps.map(function (c) {
    return '<tr data-call="' + c.call + '"><td>' + c.call + '</td><td class="l"><span class="swatch" style="background:' + levelColor(c.level) + '"></span>' + esc(c.level) + (c.escalated ? " (escalated)" : "") + (c.refill ? ' <span class="bad" title="' + esc(refillText(c.refill)) + '">refill</span>' : "") + "</td><td>" + fmt(c.before) + "</td><td>" + fmt(c.after) + "</td><td>" + fmt(c.removed) +
      "</td><td>" + (c.messages_removed || "") + "</td><td>" + (c.results_cut || "") + "</td><td>" + (c.messages_cut || "") + '</td><td class="l">' + esc(c.summarizer || "") +
      '</td><td class="l' + (c.fallback ? ' bad" title="' + esc(c.fallback_reason || "") : "") + '">' + yes(c.fallback) + "</td><td>" + (c.retention ? pct(c.retention.overall) : "") + "</td></tr>";
  }).join("") + "</tbody>";
  $("compactions").addEventListener("click", function (ev) {
    var tr = ev.target.closest("tr[data-call]");
    if (tr) select(+tr.dataset.call);
  });

  // Retention per summary.
  var sums = comps.filter(function (c) { return c.level === "summary"; });
  $("retention").innerHTML = sums.length ? sums.map(function (c) {
    var r = c.retention;
    var h = '<div class="summary"><b>Before call ' + c.call + "</b>: " + esc(c.summarizer || "summary") + (c.fallback ? ' <span class="bad">fallback</span>' + (c.fallback_reason ? " (" + esc(c.fallback_reason) + ")" : "") : "") +
      ", \u2212" + fmt(c.removed) + " tokens" + (c.summary_tokens ? ", summary " + fmt(c.summary_tokens) + " tokens" : "");
    if (!r) return h + "<p class=\"muted\">No retention measured.</p></div>";
    h += ' \u00b7 retained <b class="' + (r.overall >= 0.9 ? "good" : "bad") + '">' + pct(r.overall) + "</b> (" + r.kept + " of " + r.total + " key facts)";
    var counts = r.counts || {};
    var ks = Object.keys(counts).sort();
    if (ks.length) h += "<br><span class=\"muted\">" + ks.map(function (k) { return esc(k.replace(/_/g, " ")) + " " + counts[k][0] + "/" + counts[k][1]; }).join(" \u00b7 ") + "</span>";
    if (r.missing && r.missing.length) h += "<div>Lost:</div><ul>" + r.missing.map(function (m) { return "<li>" + esc(m) + "</li>"; }).join("") + "</ul>";
    else h += "<div class=\"good\">Nothing lost.</div>";
    return h + "</div>";
  }).join("") : '<p class="muted">No summarizing compaction ran (strategy ' + esc(R.strategy) + "): the levels above remove or cut history without a summary. Replay with <code>--strategy summarize</code> to see what summaries keep.</p>";

  select(selected);
  document.body.dataset.ready = "1";
})();
