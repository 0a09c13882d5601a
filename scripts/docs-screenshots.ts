// `npm run docs:screenshots`: the pictures of docs/images/, taken from a seeded instance. A real
// service process on a free loopback port with its data in a scratch directory (the local graph
// extractor, no LLM, no network), an account with a few notes in English and Chinese (tags,
// wikilinks, a stored picture, one pasted import), the graph built, then the app in headless
// Chromium at desktop width and at a phone's 390 px. Same notes, same seeded layout every run.
import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../tests/support/browser";
import { benchWorkDir, startServerProcess, type ServerProcess } from "./bench/server-process";

const OUT_DIR = path.resolve(import.meta.dir, "../docs/images");
const USERNAME = "ada";
const PASSWORD = "correct horse battery";
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
/** The note open in the desktop picture, and the one (with its picture) open on the phone. */
const OPEN_NOTE = "Thinking, Fast and Slow";
const OPEN_ON_PHONE = "Weekend in Hangzhou";

/** Oldest first, so the list (newest first) starts with the last. `{picture}` becomes the stored picture's link. */
const NOTES: { title: string; tags: string[]; content: string }[] = [
  {
    title: "红烧肉做法",
    tags: ["菜谱", "家常菜"],
    content: [
      "## 材料",
      "",
      "- 五花肉 500 克",
      "- 冰糖 30 克，生抽、老抽、料酒",
      "- 葱、姜、八角",
      "",
      "## 步骤",
      "",
      "1. 五花肉切块，冷水下锅焯水。",
      "2. 小火炒糖色，下肉块翻炒上色。",
      "3. 加料酒、生抽、老抽和热水，小火炖一个小时，大火收汁。",
      "",
      "妈妈的做法：收汁前加一点醋，更解腻。",
    ].join("\n"),
  },
  {
    title: "Spaced repetition",
    tags: ["learning"],
    content: [
      "Ebbinghaus measured the **forgetting curve**: most of what we learn is gone within days unless it is reviewed.",
      "",
      "**Spaced repetition** reviews each card just before it would be forgotten, at growing intervals (1, 3, 7, 21 days…).",
      "Anki schedules the reviews; *active recall* (answering before looking) is what makes them work.",
      "",
      "See also [[Thinking, Fast and Slow]] on how memory shapes judgement.",
    ].join("\n"),
  },
  {
    title: "知识图谱构建笔记",
    tags: ["技术", "知识图谱"],
    content: [
      "知识图谱由**实体**和**关系**组成。构建流程：",
      "",
      "1. 实体识别：从笔记中找出人名、概念和术语。",
      "2. 关系抽取：判断两个实体之间的关系。",
      "3. 实体消歧：把「大语言模型」和「LLM」合并成一个节点。",
      "",
      "大语言模型可以直接抽取实体和关系，但本地的分词和词性标注也能做出不错的图谱。",
      "",
      "参考 [[Retrieval-augmented generation]]。",
    ].join("\n"),
  },
  {
    title: "Retrieval-augmented generation",
    tags: ["ai", "search"],
    content: [
      "**Retrieval-augmented generation** (RAG) answers a question from passages found first, instead of from the model's memory alone.",
      "",
      "- **Full-text search** finds the exact words; **embeddings** find passages by meaning.",
      "- Fusing both rankings (reciprocal rank fusion) beats either alone.",
      "- Every statement of the answer should cite the passage it rests on.",
      "",
      "A **knowledge graph** adds the concepts a question names and their neighbours. See [[知识图谱构建笔记]].",
    ].join("\n"),
  },
  {
    title: "《思考，快与慢》读书笔记",
    tags: ["读书", "心理学"],
    content: [
      "卡尼曼把思考分成两个系统：**系统1** 快速、直觉、不费力；**系统2** 缓慢、理性、需要专注。",
      "",
      "## 锚定效应",
      "",
      "印象最深的是**锚定效应**：先看到的数字会影响之后的估计，哪怕那个数字毫无关系。",
      "",
      "## 损失厌恶",
      "",
      "**损失厌恶**：失去一百元的痛苦大于得到一百元的快乐。前景理论用它解释了很多看似不理性的选择。",
    ].join("\n"),
  },
  {
    title: "Weekend in Hangzhou",
    tags: ["travel", "杭州"],
    content: [
      "{picture}",
      "",
      "Walked around **West Lake** at dusk, from the Broken Bridge to the Su Causeway.",
      "",
      "- Morning: **Lingyin Temple** and the Feilai Feng carvings.",
      "- Afternoon: **Longjing tea** at a farm in the hills above the lake.",
      "- Dinner: 西湖醋鱼 and 东坡肉 — Su Dongpo built the causeway *and* named the pork.",
    ].join("\n"),
  },
  {
    title: "Thinking, Fast and Slow",
    tags: ["books", "psychology"],
    content: [
      "Daniel Kahneman's book on the two ways we think.",
      "",
      "## Two systems",
      "",
      "- **System 1** is fast, automatic and intuitive.",
      "- **System 2** is slow, deliberate and effortful; it checks System 1 only when it must.",
      "",
      "## Anchoring",
      "",
      "The **anchoring effect**: a number seen first pulls later estimates towards it, even a random one.",
      "",
      "## Loss aversion",
      "",
      "**Loss aversion**: losing $100 hurts more than winning $100 pleases. **Prospect theory** builds on it.",
      "",
      "My notes in Chinese: [[《思考，快与慢》读书笔记]]. Related: [[Spaced repetition]].",
    ].join("\n"),
  },
];

/** Pasted into an import (no page is fetched), so `Imports` shows a completed task. */
const PASTED_ARTICLE = [
  "# The Zettelkasten method",
  "",
  "Niklas Luhmann kept 90,000 index cards, each holding one idea and links to others.",
  "",
  "A **Zettelkasten** grows by linking: every new note is filed next to the notes it continues,",
  "so ideas meet that were written years apart. Atomic notes, written in your own words, are what make it work.",
].join("\n");

const workDir = benchWorkDir("rhizome-docs-screenshots-");
let service: ServerProcess | undefined;
let browser: Browser | undefined;
try {
  await main();
} finally {
  await browser?.close();
  await service?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}

async function main() {
  requireChineseFont();
  // Nothing from the caller's environment may reach a model or another server: the local extractor, no embeddings, no STT.
  const offline = Object.fromEntries(
    ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "EMBEDDINGS_BASE_URL", "EMBEDDINGS_MODEL", "STT_BASE_URL", "STT_MODEL", "DATABASE_URL", "LIBSQL_URL", "FILES_DIR", "PUBLIC_URL"].map((name) => [name, ""]),
  );
  service = await startServerProcess("service", "service-server.ts", {
    ...offline,
    ROLE: "all",
    DATA_DIR: path.join(workDir, "data"),
    GRAPH_EXTRACTOR: "local",
    BACKUP_INTERVAL_HOURS: "0",
  });
  const api = await account(service.url);
  browser = await launchChromium();

  const picture = await drawPicture(browser);
  const file = await api.send<{ url: string }>("POST", "/api/files", picture, "image/png");
  for (const note of NOTES) {
    await api.send("POST", "/api/notes", JSON.stringify({ ...note, content: note.content.replace("{picture}", `![West Lake at dusk](${file.url})`) }));
  }
  const task = await api.send<{ id: number }>("POST", "/api/tasks", JSON.stringify({ platform: "web", content: PASTED_ARTICLE }));
  await waitFor(`import task ${task.id}`, async () => {
    const current = await api.send<{ status: string; error: string | null }>("GET", `/api/tasks/${task.id}`);
    if (current.status === "failed") throw new Error(`the pasted import failed: ${current.error}`);
    return current.status === "completed";
  });
  await api.send("POST", "/api/knowledge-graph/build", JSON.stringify({ mode: "full" }));
  await waitFor("the graph build", async () => {
    const status = await api.send<{ status: string; error: string | null }>("GET", "/api/knowledge-graph/status");
    if (status.status === "failed") throw new Error(`the graph build failed: ${status.error}`);
    return status.status === "completed";
  });

  fs.mkdirSync(OUT_DIR, { recursive: true });
  const desktop = await loggedIn(browser, service.url, DESKTOP);
  await openNote(desktop.page, OPEN_NOTE);
  await desktop.page.getByRole("list", { name: "Related notes" }).getByRole("button").first().waitFor();
  await shoot(desktop.page, "app-notes.png");
  await desktop.page.getByRole("link", { name: "Graph", exact: true }).click();
  await desktop.page.locator('#graph[data-drawn][data-layout="settled"]').waitFor({ timeout: 120_000 });
  await shoot(desktop.page, "graph.png");
  await desktop.finish();

  const phone = await loggedIn(browser, service.url, PHONE, true);
  await openNote(phone.page, OPEN_ON_PHONE);
  await phone.page.waitForFunction(() => {
    const picture = document.querySelector<HTMLImageElement>('#note-body img[alt="West Lake at dusk"]');
    return picture?.complete && picture.naturalWidth > 0;
  });
  await shoot(phone.page, "app-phone.png");
  await phone.finish();
}

/** Chinese notes drawn as empty boxes would make poor pictures: stop, saying what to install. */
function requireChineseFont() {
  const listed = Bun.spawnSync(["fc-list", ":lang=zh", "family"], { stdout: "pipe", stderr: "ignore" });
  if (listed.exitCode !== 0 || listed.stdout.toString().trim() === "") {
    throw new Error("No Chinese font found (fc-list :lang=zh lists none): install one first, e.g. apt-get install -y fonts-noto-cjk");
  }
}

interface Api {
  send<T = unknown>(method: string, pathname: string, body?: string | Uint8Array<ArrayBuffer>, contentType?: string): Promise<T>;
}

/** Registers the account the pictures show (today an account is made through the API) and logs it in. */
async function account(url: string): Promise<Api> {
  const registered = await fetch(`${url}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const login = await fetch(`${url}/api/auth/login`, { method: "POST", body: new URLSearchParams({ username: USERNAME, password: PASSWORD }) });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
  const { access_token: token } = (await login.json()) as { access_token: string };
  return {
    async send<T>(method: string, pathname: string, body?: string | Uint8Array<ArrayBuffer>, contentType = "application/json") {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": contentType }) },
        body,
      });
      if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
      return (response.status === 204 ? undefined : await response.json()) as T;
    },
  };
}

/** A small landscape drawn on a canvas by the browser itself: the picture a note shows (no file to keep in the repository). */
async function drawPicture(browser: Browser): Promise<Uint8Array<ArrayBuffer>> {
  const page = await browser.newPage();
  const dataUrl = await page.evaluate(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 640;
    canvas.height = 300;
    const context = canvas.getContext("2d")!;
    const sky = context.createLinearGradient(0, 0, 0, 180);
    sky.addColorStop(0, "#2b3a67");
    sky.addColorStop(0.6, "#e07a5f");
    sky.addColorStop(1, "#f2cc8f");
    context.fillStyle = sky;
    context.fillRect(0, 0, 640, 180);
    context.fillStyle = "#f4e3b1";
    context.beginPath();
    context.arc(470, 150, 26, 0, Math.PI * 2);
    context.fill();
    const hills = (colour: string, base: number, peaks: [number, number][]) => {
      context.fillStyle = colour;
      context.beginPath();
      context.moveTo(0, base);
      for (const [x, y] of peaks) context.quadraticCurveTo(x - 60, y, x, base - 10);
      context.lineTo(640, base);
      context.closePath();
      context.fill();
    };
    hills("#6d597a", 185, [[120, 110], [260, 130], [420, 100], [640, 140]]);
    hills("#355070", 190, [[90, 150], [300, 140], [520, 160], [640, 150]]);
    const lake = context.createLinearGradient(0, 180, 0, 300);
    lake.addColorStop(0, "#b56576");
    lake.addColorStop(1, "#1d2d50");
    context.fillStyle = lake;
    context.fillRect(0, 180, 640, 120);
    // The pagoda on the far hill, and the causeway across the water.
    context.fillStyle = "#22223b";
    for (let storey = 0; storey < 5; storey++) context.fillRect(205 - (5 - storey) * 2, 128 + storey * 9, 14 + (5 - storey) * 4, 6);
    context.fillRect(0, 232, 640, 4);
    context.strokeStyle = "rgba(244, 227, 177, 0.5)";
    for (let line = 0; line < 6; line++) {
      context.beginPath();
      context.moveTo(440 - line * 6, 196 + line * 12);
      context.lineTo(500 + line * 6, 196 + line * 12);
      context.stroke();
    }
    return canvas.toDataURL("image/png");
  });
  await page.close();
  return Uint8Array.from(Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64"));
}

/** A fresh browser context at the given size, logged in at `/` with the notes listed. */
async function loggedIn(browser: Browser, url: string, viewport: { width: number; height: number }, phone = false) {
  const context: BrowserContext = await browser.newContext({
    viewport,
    deviceScaleFactor: phone ? 2 : 1,
    isMobile: phone,
    hasTouch: phone,
    locale: "en-GB",
    timezoneId: "UTC",
    colorScheme: "light",
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${url}/`);
  await page.getByLabel("Username").fill(USERNAME);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.locator('ul[aria-label="Notes"][data-loaded]').waitFor({ timeout: 60_000 });
  return {
    page,
    async finish() {
      await context.close();
      if (errors.length) throw new Error(`the app logged errors: ${errors.join("; ")}`);
    },
  };
}

async function openNote(page: Page, title: string) {
  await page.getByRole("list", { name: "Notes", exact: true }).getByRole("button", { name: new RegExp(`^${escapeRegExp(title)}`) }).click();
  await page.getByRole("article", { name: title, exact: true }).waitFor();
}

async function shoot(page: Page, name: string) {
  // Fonts and pictures settle, and no caret blinks into the picture.
  await page.evaluate(() => document.fonts.ready);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: path.join(OUT_DIR, name), animations: "disabled", caret: "hide" });
  console.log(`docs/images/${name}`);
}

async function waitFor(what: string, done: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs / 1000} s`);
    await Bun.sleep(100);
  }
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
