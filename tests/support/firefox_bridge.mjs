// Drives Debian's Firefox ESR for tests/support/engines.py: puppeteer-core over WebDriver BiDi
// (Playwright's Firefox channel fails on ESR, and Debian ships no geckodriver).
// One JSON request per line on stdin, {id, op, page, args}; one JSON answer per line on
// stdout, {id, ok, value} or {id, ok: false, error}.
//
//   node tests/support/firefox_bridge.mjs /usr/bin/firefox-esr PROFILE_DIR REPORT_POLICY_VIOLATIONS_SOURCE
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const [executablePath, userDataDir, reportPolicyViolations] = process.argv.slice(2);
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath,
  userDataDir,
  headless: true,
  defaultViewport: { width: 1300, height: 1000 },
});

const pages = new Map();
let nextPage = 1;

async function openPage(page) {
  const id = nextPage++;
  const record = { page, console: [] };
  page.on("console", (message) => record.console.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => record.console.push(`pageerror: ${error.message ?? error}`));
  await page.evaluateOnNewDocument(`(${reportPolicyViolations})()`);
  pages.set(id, record);
  return id;
}

const ops = {
  newPage: async () => openPage(await browser.newPage()),
  version: async () => browser.version(),
  goto: async (page, url) => { await page.goto(url, { waitUntil: "load" }); },
  reload: async (page) => { await page.reload({ waitUntil: "load" }); },
  waitFor: async (page, selector, timeoutMs) => { await page.waitForSelector(selector, { timeout: timeoutMs }); },
  click: async (page, selector) => { await page.click(selector); },
  clickAt: async (page, x, y) => { await page.mouse.click(x, y); },
  evaluate: async (page, source, arg) => page.evaluate(`(${source})(${JSON.stringify(arg)})`),
  close: async (page, id) => { await page.close(); pages.delete(id); },
};

async function handle({ op, page: id, args = [] }) {
  if (op === "console") return pages.get(id).console.slice();
  if (op === "newPage" || op === "version") return ops[op]();
  const record = pages.get(id);
  return ops[op](record.page, ...(op === "close" ? [id] : args));
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const request = JSON.parse(line);
  let answer;
  try {
    answer = { id: request.id, ok: true, value: (await handle(request)) ?? null };
  } catch (error) {
    answer = { id: request.id, ok: false, error: String(error.message || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
await browser.close();
