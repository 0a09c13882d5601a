// Asking from the /graph page in real headless Chromium, with the Messages API stand-in answering:
// the answer streams into the `Answer` region, a citation opens the note with its quote in <mark>,
// and a named concept is selected in the graph.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { startFakeAnthropic } from "../support/fake-anthropic";
import { serverForThisFile } from "../support/server";
import { awaitBuild } from "../support/await-build";

const browser = await chromiumForThisFile();
const fake = await startFakeAnthropic();
afterAll(() => fake.stop());
const { server, api } = await serverForThisFile({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-haiku-4-5" });
const alice = await api.newUser("viewer");

const NOTES = [
  { title: "Learning plan", content: "Study [[Machine Learning]] with [[Andrew Ng]].\n\nThen read about [[Neural Networks]] and backpropagation." },
  { title: "Weekend", content: "Visited [[Kyoto]] with [[Hana]].\n\nThe [[Golden Pavilion]] was crowded at noon." },
];

beforeAll(async () => {
  for (const note of NOTES) expect((await alice.api.post("/api/notes", note)).status).toBe(201);
  expect((await alice.api.post("/api/knowledge-graph/build", { mode: "full" })).status).toBe(202);
  expect((await awaitBuild(alice.api)).status.status).toBe("completed");
});

test("ask in the viewer: the answer streams in, a citation opens the note with the quote marked, the named concept is selected", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const watch = watchPage(page);
  try {
    await page.goto(`${server.url}/graph`);
    await logIn(page, alice);
    await page.locator('[aria-label="Knowledge graph"][data-layout="settled"]').waitFor({ timeout: 30_000 });

    const calls = fake.calls;
    await page.getByLabel("Ask your notes").fill("What did I visit in Kyoto?");
    await page.getByLabel("Ask your notes").press("Enter");
    const answer = page.getByRole("region", { name: "Answer" });
    await answer.getByText(/\[1\]/).first().waitFor({ timeout: 15_000 });
    expect(fake.calls - calls).toBe(1);
    expect(fake.requests.at(-1)!.body.stream).toBe(true);
    // The named concept lights up in the graph and is selected, with its details shown.
    await page.getByRole("heading", { name: "Kyoto" }).first().waitFor({ timeout: 10_000 });
    const kyoto = (await alice.api.get("/api/knowledge-graph?q=Kyoto")).body.nodes.find((node: { label: string }) => node.label === "Kyoto");
    expect(await page.getByLabel("Knowledge graph", { exact: true }).getAttribute("data-asked")).toBe(String(kyoto.id));

    const source = answer.getByRole("link").first();
    const title = await source.textContent();
    const quote = (await answer.locator("q").first().textContent())!.replace(/…$/, "");
    await source.click();
    await page.locator("#note-title", { hasText: title! }).waitFor();
    const marked = page.locator("#note mark").first();
    await marked.waitFor();
    expect(await marked.textContent()).toContain(quote.slice(0, 20));
    expect(watch.errors).toEqual([]);
    expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
  } finally {
    await context.close();
  }
}, 90_000);
