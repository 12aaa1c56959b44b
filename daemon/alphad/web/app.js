// alphad live page: polls /v1/state and the selected queue, draws with canvas.
// No dependencies; everything it needs is served by alphad itself.
"use strict";

const POLL_MS = 500;
const COLORS = ["#2f6fdb", "#d9483b", "#3aa76d", "#8b5cf6", "#e0a526", "#0f9fb5", "#c2417f"];
const $ = (id) => document.getElementById(id);

let selected = null;       // {port, queue}
let lastT = null, lastChange = 0, queueCells = new Map(), gridKey = "";

function fmtBytes(x) {
  if (x === null || x === undefined || !isFinite(x)) return "–";
  const a = Math.abs(x);
  if (a >= 1e9) return (x / 1e9).toFixed(2) + "G";
  if (a >= 1e6) return (x / 1e6).toFixed(a >= 1e7 ? 1 : 2) + "M";
  if (a >= 1e3) return (x / 1e3).toFixed(a >= 1e4 ? 0 : 1) + "k";
  return x.toFixed(0);
}
function fmtAlpha(a) {
  if (a === null || !isFinite(a) || a <= 0) return "–";
  const k = Math.round(Math.log2(a));
  return Math.abs(Math.pow(2, k) - a) < 1e-9 * a ? "2^" + k : a.toPrecision(3);
}
function alphaHTML(a) {
  const s = fmtAlpha(a);
  return s.startsWith("2^") ? "2<sup>" + s.slice(2) + "</sup>" : s;
}
function fmtMs(s) { return s >= 1 ? s.toFixed(s >= 10 ? 0 : 1) + " s" : (s * 1e3).toPrecision(3).replace(/\.?0+$/, "") + " ms"; }
function level(frac, managed) {
  if (!managed) return "off";
  return frac >= 0.9 ? "hot" : frac >= 0.5 ? "mid" : "ok";
}

// --- a small line chart -------------------------------------------------------------
function lineChart(canvas, opt) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  }
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const L = 58, R = 12, T = 22, B = 22;
  g.font = "11px system-ui, 'DejaVu Sans', sans-serif";
  g.fillStyle = "#1d2430"; g.textBaseline = "alphabetic";
  g.fillText(opt.title, 4, 12);
  // legend
  let lx = w - R;
  for (let i = opt.series.length - 1; i >= 0; i--) {
    const s = opt.series[i];
    const tw = g.measureText(s.name).width;
    lx -= tw; g.fillStyle = "#6b7685"; g.fillText(s.name, lx, 12);
    lx -= 16; g.fillStyle = s.color; g.fillRect(lx, 6, 11, 3); lx -= 10;
  }
  const xs = opt.t;
  const pts = [];
  for (const s of opt.series) for (const v of s.y) if (v !== null && isFinite(v)) pts.push(opt.tf ? opt.tf(v) : v);
  if (!xs.length || !pts.length) {
    g.fillStyle = "#6b7685"; g.fillText("waiting for data…", L + 8, T + 20); return;
  }
  let ylo = opt.ymin !== undefined ? opt.ymin : Math.min(...pts);
  let yhi = Math.max(...pts, opt.ymaxAtLeast !== undefined ? opt.ymaxAtLeast : -Infinity);
  if (opt.tf) { ylo = Math.floor(Math.min(ylo, ...pts)); yhi = Math.ceil(yhi); }
  if (yhi - ylo < 1e-12) { yhi = ylo + (opt.tf ? 1 : Math.max(1, Math.abs(ylo))); }
  if (!opt.tf) yhi += (yhi - ylo) * 0.05;
  const x0 = xs[0], x1 = Math.max(xs[xs.length - 1], x0 + 1e-9);
  const X = (x) => L + (x - x0) / (x1 - x0) * (w - L - R);
  const Y = (y) => T + (1 - (y - ylo) / (yhi - ylo)) * (h - T - B);
  // grid and y labels
  g.strokeStyle = "#e3e7ee"; g.lineWidth = 1; g.fillStyle = "#6b7685"; g.textAlign = "right";
  const ticks = opt.tf ? Math.min(6, Math.round(yhi - ylo)) : 4;
  for (let i = 0; i <= ticks; i++) {
    const y = ylo + (yhi - ylo) * i / ticks;
    g.beginPath(); g.moveTo(L, Y(y) + .5); g.lineTo(w - R, Y(y) + .5); g.stroke();
    g.fillText(opt.yfmt(y), L - 6, Y(y) + 4);
  }
  g.textAlign = "center";
  for (let i = 0; i <= 4; i++) {
    const x = x0 + (x1 - x0) * i / 4;
    g.fillText((x - x1).toFixed(x1 - x0 < 10 ? 1 : 0) + " s", X(x), h - 6);
  }
  g.textAlign = "left";
  for (const s of opt.series) {
    g.strokeStyle = s.color; g.lineWidth = s.width || 1.6; g.setLineDash(s.dash || []);
    g.beginPath();
    let pen = false, py = 0;
    for (let i = 0; i < xs.length; i++) {
      let v = s.y[i];
      if (v === null || !isFinite(v)) { pen = false; continue; }
      if (opt.tf) v = opt.tf(v);
      const x = X(xs[i]), y = Y(v);
      if (!pen) { g.moveTo(x, y); pen = true; }
      else if (s.step) { g.lineTo(x, py); g.lineTo(x, y); }
      else g.lineTo(x, y);
      py = y;
    }
    g.stroke(); g.setLineDash([]);
  }
}

// --- the queue grid -----------------------------------------------------------------
function buildGrid(st) {
  const ports = st.ports.map((p) => p.name);
  const nq = Math.max(0, ...st.queues.map((q) => q.queue)) + 1;
  let html = "<table><thead><tr><th class='port'>port</th>";
  for (let q = 0; q < nq; q++) html += "<th>q" + q + "</th>";
  html += "<th class='drops'>drops</th></tr></thead><tbody>";
  for (const p of ports) {
    html += "<tr><th class='port'>" + p + "</th>";
    for (let q = 0; q < nq; q++) {
      html += "<td><div class='cell' data-port='" + p + "' data-queue='" + q + "'>" +
        "<div class='fill'></div><div class='txt'><span class='v'></span><br><span class='a'></span></div></div></td>";
    }
    html += "<td class='drops' data-port='" + p + "'></td></tr>";
  }
  $("queues").innerHTML = html + "</tbody></table>";
  queueCells = new Map();
  for (const el of document.querySelectorAll(".cell")) {
    queueCells.set(el.dataset.port + "/" + el.dataset.queue, el);
    el.addEventListener("click", () => select(el.dataset.port, +el.dataset.queue));
  }
}

function updateGrid(st) {
  const key = st.ports.map((p) => p.name).join(",") + "|" + st.queues.length;
  if (key !== gridKey) { buildGrid(st); gridKey = key; }
  for (const q of st.queues) {
    const el = queueCells.get(q.port + "/" + q.queue);
    if (!el) continue;
    const occ = q.watermark_bytes, thr = Math.max(q.threshold_bytes || 0, 1);
    const frac = Math.min(occ / thr, 1);
    const lv = level(occ / thr, q.priority !== null);
    const fill = el.firstChild;
    fill.className = "fill " + lv;
    fill.style.width = (100 * frac).toFixed(1) + "%";
    el.classList.toggle("off", q.priority === null);
    el.querySelector(".v").textContent = fmtBytes(occ) + " / " + fmtBytes(q.threshold_bytes);
    el.querySelector(".a").innerHTML = "α " + alphaHTML(q.alpha);
    el.dataset.wm = occ; el.dataset.thr = q.threshold_bytes; el.dataset.alpha = q.alpha;
    el.title = q.port + " queue " + q.queue + (q.priority ? " (" + q.priority + ")" : " (not managed)") +
      "\npeak " + fmtBytes(occ) + "B, threshold " + fmtBytes(q.threshold_bytes) + "B" +
      "\nalpha " + fmtAlpha(q.alpha) + ", target " + (q.target_alpha === null ? "–" : q.target_alpha.toPrecision(3));
    el.classList.toggle("sel", !!selected && selected.port === q.port && selected.queue === q.queue);
  }
  const maxDrop = Math.max(1, ...st.ports.map((p) => p.dropped_bytes));
  let bars = "";
  for (const p of st.ports) {
    const td = document.querySelector("td.drops[data-port='" + p.name + "']");
    if (td) td.textContent = fmtBytes(p.dropped_bytes);
    bars += "<div class='bar'><span>" + p.name + "</span><div class='track'><div style='width:" +
      (100 * p.dropped_bytes / maxDrop).toFixed(1) + "%'></div></div><span class='n'>" +
      fmtBytes(p.dropped_bytes) + "B</span></div>";
  }
  $("portDrops").innerHTML = bars;
}

// --- header, cards, switch-wide charts ----------------------------------------------
function updateHeader(st) {
  $("switch").textContent = st.switch;
  $("scheme").textContent = st.scheme;
  $("interval").textContent = fmtMs(st.interval);
  $("t").textContent = st.t === null ? "–" : st.t.toFixed(2) + " s";
  $("intervals").textContent = st.stats.intervals.toLocaleString();
  $("overruns").textContent = st.stats.overruns.toLocaleString();
  $("writes").textContent = st.stats.writes.toLocaleString();
  $("version").textContent = "alphad " + st.version;
  const peak = st.pool.watermark_bytes !== null ? st.pool.watermark_bytes : st.pool.occupancy_bytes;
  $("pool").textContent = fmtBytes(peak) + "B / " + fmtBytes(st.pool.size_bytes) + "B";
  $("poolbar").style.width = peak === null ? "0" : (100 * Math.min(peak / st.pool.size_bytes, 1)).toFixed(1) + "%";
  $("np").innerHTML = st.priorities.map((p) => "<b>" + p.name + "</b> n<sub>p</sub>=" +
    (p.n_p === null ? "–" : p.n_p) + " α<sub>p</sub>=" + alphaHTML(p.alpha)).join(" &nbsp; ");
  const fs = $("failsafe");
  fs.textContent = st.failsafe.active ? "ACTIVE" : "off";
  fs.style.color = st.failsafe.active ? "var(--hot)" : "var(--ok)";
  const now = Date.now();
  if (st.t !== lastT) { lastT = st.t; lastChange = now; }
  const s = $("status");
  if (st.failsafe.active) { s.className = "status down"; s.textContent = "fail-safe"; }
  else if (now - lastChange > 3000) { s.className = "status stale"; s.textContent = "no new data"; }
  else { s.className = "status live"; s.textContent = "live"; }
}

function rates(t, cum) {
  const out = [null];
  for (let i = 1; i < t.length; i++) {
    const dt = t[i] - t[i - 1];
    out.push(dt > 0 && cum[i] !== null && cum[i - 1] !== null ? Math.max(0, cum[i] - cum[i - 1]) / dt : null);
  }
  return out;
}

function updateSwitchCharts(st) {
  const h = st.history;
  if (!h) return;
  lineChart($("dropChart"), {
    title: "switch drop rate (bytes/s)", t: h.t, yfmt: fmtBytes, ymin: 0,
    series: [{ name: "dropped", color: COLORS[1], y: rates(h.t, h.dropped_bytes) }],
  });
  lineChart($("poolChart"), {
    title: "shared pool peak occupancy (bytes)", t: h.t, yfmt: fmtBytes, ymin: 0,
    ymaxAtLeast: st.pool.size_bytes,
    series: [{ name: "pool peak", color: COLORS[0], y: h.pool_bytes },
             { name: "B", color: "#9aa3af", dash: [4, 3], y: h.t.map(() => st.pool.size_bytes) }],
  });
  const names = Object.keys(h.n_p);
  lineChart($("npChart"), {
    title: "n_p: congested queues per priority", t: h.t, yfmt: (v) => v.toFixed(0), ymin: 0,
    series: names.map((n, i) => ({ name: n, color: COLORS[(i + 2) % COLORS.length], step: true, y: h.n_p[n] })),
  });
}

// --- the selected queue --------------------------------------------------------------
function select(port, queue) {
  selected = { port, queue };
  history.replaceState(null, "", "#" + port + "/" + queue);
  for (const [k, el] of queueCells) el.classList.toggle("sel", k === port + "/" + queue);
  pollQueue();
}

function defaultSelection(st) {
  const m = /^#(.+)\/(\d+)$/.exec(decodeURIComponent(location.hash));
  if (m) return { port: m[1], queue: +m[2] };
  let best = null;
  for (const q of st.queues) {
    if (q.priority === null) continue;
    const score = (q.dropped_bytes || 0) * 1e3 + (q.watermark_bytes || 0);
    if (!best || score > best.score) best = { port: q.port, queue: q.queue, score };
  }
  return best && { port: best.port, queue: best.queue };
}

async function pollQueue() {
  if (!selected) return;
  const url = "/v1/queues/" + encodeURIComponent(selected.port) + "/" + selected.queue;
  let q;
  try {
    const r = await fetch(url, { cache: "no-store" });
    if (!r.ok) { $("qtitle").textContent = selected.port + " queue " + selected.queue + ": " + r.status; return; }
    q = await r.json();
  } catch (e) { return; }
  $("qtitle").textContent = q.port + " · queue " + q.queue + (q.priority ? " · " + q.priority : " · not managed");
  $("qnow").innerHTML = "peak <b id='q-wm'>" + fmtBytes(q.watermark_bytes) + "B</b> · threshold <b>" +
    fmtBytes(q.threshold_bytes) + "B</b> · α <b id='q-alpha'>" + alphaHTML(q.alpha) + "</b> · target <b>" +
    (q.target_alpha === null ? "–" : q.target_alpha.toPrecision(3)) + "</b> · γ <b>" +
    (q.gamma === null ? "–" : q.gamma.toFixed(2)) + "</b> · dropped <b>" + fmtBytes(q.dropped_bytes) + "B</b>";
  const h = q.history;
  if (!h) return;
  const hasOcc = h.occupancy_bytes.some((v) => v !== null);
  lineChart($("occChart"), {
    title: "queue length against threshold (bytes)", t: h.t, yfmt: fmtBytes, ymin: 0,
    series: [{ name: "peak", color: COLORS[0], y: h.watermark_bytes },
             ...(hasOcc ? [{ name: "at read", color: "#9bbcf0", width: 1, y: h.occupancy_bytes }] : []),
             { name: "threshold α·(B−Q)", color: COLORS[1], y: h.threshold_bytes }],
  });
  lineChart($("alphaChart"), {
    title: "alpha over time (log2 axis)", t: h.t, tf: Math.log2,
    yfmt: (v) => "2^" + Math.round(v),
    series: [{ name: "alpha in effect", color: COLORS[2], step: true, width: 2, y: h.alpha },
             { name: "target", color: COLORS[3], dash: [3, 3], width: 1.2, y: h.target_alpha }],
  });
}

// --- polling ---------------------------------------------------------------------------
async function poll() {
  try {
    const r = await fetch("/v1/state", { cache: "no-store" });
    if (!r.ok) throw new Error("HTTP " + r.status);
    const st = await r.json();
    updateHeader(st);
    if (st.queues.length) {
      updateGrid(st);
      if (!selected) { const d = defaultSelection(st); if (d) select(d.port, d.queue); }
    }
    updateSwitchCharts(st);
  } catch (e) {
    const s = $("status"); s.className = "status down"; s.textContent = "offline";
  }
  await pollQueue();
  setTimeout(poll, POLL_MS);
}

poll();
