"""The dashboard's one page (dashboard.py serves it): plain HTML, CSS and JavaScript drawing SVG,
polling /api/state twice a second. No build step and no library: a node graph, two line charts
per worker and a timeline are a few dozen lines each."""

PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Flotilla dashboard</title>
<style>
  body { font: 13px system-ui, sans-serif; margin: 0; color: #222; background: #f6f7f9; }
  header { background: #1d3557; color: #fff; padding: 8px 16px; display: flex; gap: 24px;
           align-items: baseline; }
  header h1 { font-size: 16px; margin: 0; }
  main { display: grid; grid-template-columns: 220px 1fr; gap: 12px; padding: 12px; }
  section { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 8px 12px;
            margin-bottom: 12px; overflow-x: auto; }
  h2 { font-size: 13px; margin: 0 0 6px; color: #1d3557; }
  #queries div { padding: 4px 6px; border-radius: 4px; cursor: pointer; }
  #queries div.selected { background: #e3ecf7; }
  .ok { color: #2a9d4f; } .running { color: #1d6fb8; } .failed { color: #c0392b; }
  #events { font: 12px ui-monospace, monospace; max-height: 260px; overflow-y: auto;
            white-space: pre; margin: 0; }
  #plan { font: 12px ui-monospace, monospace; white-space: pre; margin: 0; }
  .workers { display: flex; flex-wrap: wrap; gap: 12px; }
  .worker { border: 1px solid #eee; border-radius: 4px; padding: 4px; }
  svg text { font: 11px system-ui, sans-serif; }
</style>
</head>
<body>
<header><h1>Flotilla</h1><span id="status">connecting…</span></header>
<main>
  <div><section><h2>Queries</h2><div id="queries"></div></section></div>
  <div>
    <section><h2>Pipeline nodes</h2><svg id="graph" width="10" height="10"></svg></section>
    <section><h2>Workers</h2><div id="workers" class="workers"></div></section>
    <section><h2>Tasks</h2><svg id="timeline" width="10" height="10"></svg></section>
    <section><h2>Events</h2><pre id="events"></pre></section>
    <section><h2>Distributed plan</h2><pre id="plan"></pre></section>
  </div>
</main>
<script>
"use strict";
const NS = "http://www.w3.org/2000/svg";
let selected = null;   // the query shown; null: the latest
let state = null;

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
function count(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(1) + "G";
  if (n >= 1e6) return (n / 1e6).toFixed(1) + "M";
  if (n >= 1e4) return (n / 1e3).toFixed(1) + "k";
  return String(n);
}
function statusClass(s) { return s === "ok" ? "ok" : s === "running" ? "running" : "failed"; }

function drawQueries() {
  const box = document.getElementById("queries");
  clear(box);
  for (const q of state.queries.slice().reverse()) {
    const d = document.createElement("div");
    d.className = "query" + (q.id === current().id ? " selected" : "");
    d.dataset.query = q.id;
    d.innerHTML = `query ${q.id} <span class="${statusClass(q.status)}">${q.status}</span>`;
    d.onclick = () => { selected = q.id; draw(); };
    box.appendChild(d);
  }
}

function current() {
  return state.queries.find(q => q.id === selected) || state.queries[state.queries.length - 1];
}

// Columns by depth (a node one right of its deepest input), boxes stacked in each column.
function drawGraph(q) {
  const svg = document.getElementById("graph");
  clear(svg);
  const byId = new Map(q.nodes.map(n => [n.id, n]));
  const depth = new Map();
  const depthOf = (n, seen) => {
    if (depth.has(n.id)) return depth.get(n.id);
    let d = 0;
    for (const i of n.inputs) {
      const m = byId.get(i);
      if (m && !seen.has(i)) d = Math.max(d, depthOf(m, new Set([...seen, n.id])) + 1);
    }
    depth.set(n.id, d);
    return d;
  };
  const columns = [];
  for (const n of q.nodes) {
    const d = depthOf(n, new Set());
    (columns[d] = columns[d] || []).push(n);
  }
  const W = 250, H = 62, GX = 50, GY = 14, at = new Map();
  columns.forEach((col, c) => col.forEach((n, r) => at.set(n.id, [c * (W + GX) + 4, r * (H + GY) + 4])));
  const rows = Math.max(1, ...columns.map(c => c.length));
  svg.setAttribute("width", columns.length * (W + GX));
  svg.setAttribute("height", rows * (H + GY) + 8);
  const defs = el("defs", {}, svg);
  const marker = el("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
                               markerWidth: 6, markerHeight: 6, orient: "auto"}, defs);
  el("path", {d: "M0,0 L10,5 L0,10 z", fill: "#8a99ad"}, marker);
  for (const n of q.nodes) {
    for (const i of n.inputs) {
      if (!at.has(i)) continue;
      const [x1, y1] = at.get(i), [x2, y2] = at.get(n.id);
      el("line", {x1: x1 + W, y1: y1 + H / 2, x2: x2, y2: y2 + H / 2, stroke: "#8a99ad",
                  "marker-end": "url(#arrow)", class: "edge", "data-from": i, "data-to": n.id}, svg);
    }
  }
  for (const n of q.nodes) {
    const [x, y] = at.get(n.id);
    const g = el("g", {class: "node", "data-node": n.id, "data-state": n.state,
                       transform: `translate(${x},${y})`}, svg);
    const fill = n.state === "finished" ? "#e8f5ec" : n.state === "running" ? "#e3ecf7" : "#f1f1f1";
    el("rect", {width: W, height: H, rx: 6, fill, stroke: n.failed ? "#c0392b" : "#9aa8b8"}, g);
    el("title", {}, g, n.name);
    el("text", {x: 8, y: 16, "font-weight": "bold"}, g,
       `[${n.id}] ` + (n.name.length > 34 ? n.name.slice(0, 33) + "…" : n.name));
    el("text", {x: 8, y: 34, class: "progress"}, g,
       `${n.done}/${n.submitted} tasks done, ${n.running} running` + (n.failed ? `, ${n.failed} failed` : ""));
    el("text", {x: 8, y: 52, class: "rows"}, g, `${count(n.rows)} rows` +
       (n.state === "finished" ? `, ${n.seconds.toFixed(2)} s` : ""));
    const total = Math.max(1, n.submitted);
    el("rect", {x: 0, y: H - 4, width: W * n.done / total, height: 4, fill: "#2a9d4f"}, g);
  }
}

// One chart per worker: CPU (% of a core, blue) and resident memory (MiB, red) over time.
function drawWorkers(q) {
  const box = document.getElementById("workers");
  clear(box);
  for (const w of q.workers) {
    const div = document.createElement("div");
    div.className = "worker";
    const last = w.samples[w.samples.length - 1];
    div.innerHTML = `<div><b>${w.id}</b> ${w.state}` + (last ?
      ` · cpu ${last.cpu.toFixed(0)}% · rss ${(last.rss / 1048576).toFixed(0)} MiB` +
      ` · store ${(last.store / 1048576).toFixed(0)} MiB · spilled ${(last.spilled / 1048576).toFixed(0)} MiB` : "") + "</div>";
    const svg = el("svg", {width: 320, height: 90, class: "worker-chart", "data-worker": w.id,
                           "data-samples": w.samples.length});
    el("rect", {width: 320, height: 90, fill: "#fbfcfd", stroke: "#eee"}, svg);
    const t0 = q.elapsed > 60 ? q.elapsed - 60 : 0, span = Math.max(1, q.elapsed - t0);
    const line = (key, scale, color) => {
      const pts = w.samples.filter(s => s.time >= t0)
        .map(s => `${((s.time - t0) / span * 316 + 2).toFixed(1)},${(88 - Math.min(1, s[key] / scale) * 84).toFixed(1)}`);
      if (pts.length) el("polyline", {points: pts.join(" "), fill: "none", stroke: color,
                                      "stroke-width": 1.5, class: "series-" + key}, svg);
    };
    const maxRss = Math.max(1, ...w.samples.map(s => s.rss));
    line("cpu", Math.max(100, ...w.samples.map(s => s.cpu)), "#1d6fb8");
    line("rss", maxRss, "#c0392b");
    el("text", {x: 4, y: 12, fill: "#1d6fb8"}, svg, "cpu %");
    el("text", {x: 50, y: 12, fill: "#c0392b"}, svg, `rss (max ${(maxRss / 1048576).toFixed(0)} MiB)`);
    div.appendChild(svg);
    box.appendChild(div);
  }
}

// A lane per worker; a bar per task attempt from scheduled to its end (or now).
function drawTimeline(q) {
  const svg = document.getElementById("timeline");
  clear(svg);
  const workers = [...new Set(q.tasks.map(t => t.worker))].sort();
  const W = 900, L = 130, LH = 22, span = Math.max(0.001, q.elapsed);
  svg.setAttribute("width", W + L + 10);
  svg.setAttribute("height", workers.length * LH + 20);
  const color = {ok: "#2a9d4f", running: "#1d6fb8", failed: "#c0392b", cancelled: "#999", lost: "#e67e22"};
  workers.forEach((w, i) => el("text", {x: 2, y: i * LH + 15}, svg, w.length > 18 ? w.slice(-18) : w));
  for (const t of q.tasks) {
    const lane = workers.indexOf(t.worker);
    const end = t.end === null ? q.elapsed : t.end;
    const r = el("rect", {x: L + t.start / span * W, y: lane * LH + 3,
                          width: Math.max(1, (end - t.start) / span * W), height: LH - 6,
                          fill: color[t.status] || "#555", opacity: 0.8, class: "task",
                          "data-status": t.status, "data-node": t.node}, svg);
    el("title", {}, r, `task ${t.task} attempt ${t.attempt} node ${t.node}: ${t.status}, ${t.rows} rows`);
  }
  el("text", {x: L, y: workers.length * LH + 16}, svg, "0 s");
  el("text", {x: L + W - 40, y: workers.length * LH + 16}, svg, `${span.toFixed(1)} s`);
}

function draw() {
  if (!state || !state.queries.length) {
    document.getElementById("status").textContent = "no query yet";
    return;
  }
  const q = current();
  const s = document.getElementById("status");
  s.textContent = `query ${q.id}: ${q.status}, ${q.elapsed.toFixed(1)} s`;
  s.dataset.query = q.id;
  s.dataset.status = q.status;
  drawQueries();
  drawGraph(q);
  drawWorkers(q);
  drawTimeline(q);
  const ev = document.getElementById("events");
  ev.textContent = q.events.slice(-120).join("\n");
  ev.scrollTop = ev.scrollHeight;
  document.getElementById("plan").textContent = q.plan;
}

async function poll() {
  try {
    const r = await fetch("/api/state", {cache: "no-store"});
    state = await r.json();
    draw();
  } catch (e) {
    document.getElementById("status").textContent = "driver unreachable: " + e;
  }
  setTimeout(poll, 500);
}
poll();
</script>
</body>
</html>
"""
