// Opens the dashboard in Debian's headless chromium (puppeteer-core, no code of ours) while a
// query runs, and reports what the page showed as it changed, as one JSON object on stdout:
//   {snapshots: [{status, query, nodes: [{id, state, progress, rows}], workers: [{id, samples}],
//                 tasks, edges}], screenshot}
// Waits for a query numbered above AFTER (says "ready" on stderr once the page is up, so the
// caller can start it), then follows it until it ends.
// Usage: node dashboard.mjs URL SCREENSHOT.png AFTER [TIMEOUT_SECONDS]
import puppeteer from "puppeteer-core";

const [url, screenshot, afterArg, timeoutArg] = process.argv.slice(2);
const after = Number(afterArg || 0);
const deadline = Date.now() + 1000 * Number(timeoutArg || 90);

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  // A loaded 2-core machine (the rest of `make test` runs beside this) starts chromium slowly.
  timeout: 120000,
  protocolTimeout: 120000,
});
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1400, height: 1000});
  const errors = [];
  page.on("pageerror", e => errors.push(String(e)));
  page.setDefaultTimeout(120000);
  await page.goto(url, {waitUntil: "load", timeout: 120000});
  process.stderr.write("ready\n");
  const snapshots = [];
  let last = "";
  // What the page shows now, read from its DOM.
  const look = () => page.evaluate(() => {
    const s = document.getElementById("status");
    return {
      status: s.dataset.status || "",
      query: Number(s.dataset.query || -1),
      nodes: [...document.querySelectorAll("#graph g.node")].map(g => ({
        id: Number(g.dataset.node),
        state: g.dataset.state,
        progress: g.querySelector(".progress").textContent,
        rows: g.querySelector(".rows").textContent,
      })),
      edges: [...document.querySelectorAll("#graph line.edge")].map(
          l => [Number(l.dataset.from), Number(l.dataset.to)]),
      workers: [...document.querySelectorAll("svg.worker-chart")].map(
          w => ({id: w.dataset.worker, samples: Number(w.dataset.samples),
                 lines: w.querySelectorAll("polyline").length})),
      tasks: document.querySelectorAll("#timeline rect.task").length,
      events: document.getElementById("events").textContent.split("\n").length,
    };
  });
  // Until the query the page shows has finished (the page polls twice a second).
  for (;;) {
    const now = await look();
    if (now.query <= after) {
      if (Date.now() > deadline) throw new Error(`no query after ${after} appeared`);
      await new Promise(r => setTimeout(r, 100));
      continue;
    }
    const key = JSON.stringify(now);
    if (key !== last) snapshots.push(now);
    last = key;
    if (now.status && now.status !== "running") break;
    if (Date.now() > deadline) throw new Error("the dashboard never showed the query finished");
    await new Promise(r => setTimeout(r, 150));
  }
  await page.screenshot({path: screenshot, fullPage: true});
  console.log(JSON.stringify({snapshots, errors, screenshot}));
} finally {
  await browser.close();
}
