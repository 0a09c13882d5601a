// `Webhooks` in Settings, in Chromium, against a receiver on loopback: a webhook made in the page,
// its secret read from the page once, a test delivery whose Standard Webhooks signature verifies
// under that secret and which shows under `Deliveries` without a reload, `Turn off`, `Delete`; a
// webhook the service turned off says why; the server's refusals said in the region. `Search by
// meaning` on this server (no embeddings) says it is off and how to turn it on; at 390 px nothing in
// Settings is wider than the screen.
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { Api } from "../support/api";
import { chromiumForThisFile, logIn, watchPage, type PageWatch } from "../support/browser";
import { horizontalOverflow } from "../support/overflow";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";
import { startWebhookReceiver } from "../support/webhook-receiver";

const browser = await chromiumForThisFile();
const receiver = startWebhookReceiver();
afterAll(() => receiver.stop());
// Loopback stands in for the receiver's public address.
const { server, db } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });

async function openSettings(user: { username: string; password: string }, viewport = { width: 1400, height: 900 }): Promise<{ page: Page; watch: PageWatch; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const watch = watchPage(page);
  // Delete asks first: the person says yes.
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${server.url}/settings`);
  await logIn(page, user);
  await page.getByRole("region", { name: "Webhooks" }).getByText(/No webhooks yet|\d+ webhooks?/).waitFor();
  return { page, watch, close: () => context.close() };
}

test("a webhook made in Settings: its secret is shown once, Send test delivers a signed webhook.test shown under Deliveries, Turn off pauses it, Delete removes it", async () => {
  const alice = await new Api(server.url).newUser("page-hook");
  const { page, watch, close } = await openSettings(alice);
  const region = page.getByRole("region", { name: "Webhooks" });
  const url = `${receiver.origin}/page-hook`;

  await region.getByRole("button", { name: "New webhook" }).click();
  await region.getByLabel("URL").fill(url);
  await region.getByLabel("note.created", { exact: true }).check();
  await region.getByLabel("task.failed", { exact: true }).check();
  await region.getByLabel("Description").fill("n8n flow");
  await region.getByRole("button", { name: "Create webhook" }).click();

  const secret = (await region.getByText(/^whsec_/).textContent())!.trim();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(await region.textContent()).toContain("Standard Webhooks");
  expect(await region.getByRole("button", { name: "Copy" }).count()).toBe(1);
  // The form is gone once it has done its work: its labels name nothing on the page any more.
  expect(await page.getByLabel("URL").count()).toBe(0);
  const [made] = (await alice.api.get("/api/webhooks")).body.items;
  expect(made).toMatchObject({ url, events: ["note.created", "task.failed"], description: "n8n flow", enabled: true });

  const item = region.getByRole("listitem").filter({ hasText: url });
  await item.getByText("No deliveries yet").waitFor();
  receiver.secrets.set("/page-hook", secret);
  await item.getByRole("button", { name: "Send test" }).click();
  const delivered = await until(() => receiver.received.find((delivery) => delivery.path === "/page-hook"), { what: "the test delivery", timeoutMs: 15_000 });
  expect(delivered.json.type).toBe("webhook.test");
  expect(delivered.verifyError).toBeNull();
  // The same check a receiver's own code makes, with the secret as the page showed it.
  expect(() => new Webhook(secret).verify(delivered.body, { "webhook-id": delivered.id, "webhook-timestamp": delivered.timestamp, "webhook-signature": delivered.signature })).not.toThrow();
  const deliveries = item.getByRole("region", { name: "Deliveries" });
  await deliveries.getByText("webhook.test · attempt 1 ·").waitFor({ timeout: 15_000 });
  expect(await deliveries.getByRole("listitem").first().textContent()).toContain("200");
  await shot(page, "settings-webhook");

  await item.getByRole("button", { name: "Turn off" }).click();
  await item.getByRole("button", { name: "Turn on" }).waitFor();
  expect(await item.locator(".webhook-state").textContent()).toContain("Off");
  expect((await alice.api.get(`/api/webhooks/${made.id}`)).body.enabled).toBe(false);
  // A paused webhook sends no test: the server's refusal is said beside the button.
  await item.getByRole("button", { name: "Send test" }).click();
  await item.getByRole("alert").getByText("turned off").waitFor();

  await item.getByRole("button", { name: "Delete" }).click();
  await region.getByText("No webhooks yet.").waitFor();
  expect(await item.count()).toBe(0);
  expect((await alice.api.get("/api/webhooks")).body.items).toEqual([]);
  await close();
  expect(errorsBesides(watch, [/status of 409 .*\/api\/webhooks\/\d+\/test$/])).toEqual([]);
});

test("a webhook the service turned off says why, and Turn on brings it back", async () => {
  const erin = await new Api(server.url).newUser("page-hook-disabled");
  const hook = (await erin.api.post("/api/webhooks", { url: "https://hooks.example.com/gone", events: ["note.deleted"] })).body;
  // What 3 days of failed deliveries leave behind (modules/webhooks/deliver.ts).
  await db.execute({ sql: "update webhooks set enabled = 0, disabled_reason = ? where id = ?", args: ["every delivery failed for 3 days", hook.id] });
  const { page, watch, close } = await openSettings(erin);
  const item = page.getByRole("region", { name: "Webhooks" }).getByRole("listitem").filter({ hasText: hook.url });
  expect(await item.locator(".webhook-state").textContent()).toBe("Off: turned off by the service (every delivery failed for 3 days).");
  expect(await item.textContent()).toContain("Events: note.deleted");
  await item.getByRole("button", { name: "Turn on" }).click();
  await item.getByRole("button", { name: "Turn off" }).waitFor();
  expect(await item.locator(".webhook-state").textContent()).toBe("On: deliveries are sent.");
  expect((await erin.api.get(`/api/webhooks/${hook.id}`)).body).toMatchObject({ enabled: true, disabled_reason: null });
  await close();
  expect(watch.errors).toEqual([]);
});

test("the server's refusals are said in the form: a bad URL, no event, the 21st webhook", async () => {
  const bob = await new Api(server.url).newUser("page-hook-bad");
  const { page, watch, close } = await openSettings(bob);
  const region = page.getByRole("region", { name: "Webhooks" });
  await region.getByRole("button", { name: "New webhook" }).click();
  await region.getByLabel("URL").fill("ftp://x");
  await region.getByLabel("note.created", { exact: true }).check();
  await region.getByRole("button", { name: "Create webhook" }).click();
  await region.getByRole("alert").getByText("Must be an http(s) URL").waitFor();
  await shot(page, "settings-webhook-refused");

  await region.getByLabel("URL").fill("https://hooks.example.com/in");
  await region.getByLabel("note.created", { exact: true }).uncheck();
  await region.getByRole("button", { name: "Create webhook" }).click();
  await region.getByRole("alert").getByText("Subscribe to at least one event").waitFor();
  expect((await bob.api.get("/api/webhooks")).body.items).toEqual([]);

  for (let i = 0; i < 20; i++) expect((await bob.api.post("/api/webhooks", { url: `https://hooks.example.com/${i}`, events: ["note.created"] })).status).toBe(201);
  await region.getByLabel("note.created", { exact: true }).check();
  await region.getByRole("button", { name: "Create webhook" }).click();
  await region.getByRole("alert").getByText("20").waitFor();
  await region.getByRole("button", { name: "Cancel" }).click();
  expect(await page.getByLabel("URL").count()).toBe(0);
  await close();
  expect(errorsBesides(watch, [/status of (400|409) .*\/api\/webhooks$/])).toEqual([]);
});

test("Search by meaning says it is off on a server without embeddings, and which variables turn it on", async () => {
  const carol = await new Api(server.url).newUser("page-search-off");
  const { page, watch, close } = await openSettings(carol);
  const region = page.getByRole("region", { name: "Search by meaning" });
  await region.getByText("EMBEDDINGS_BASE_URL").waitFor();
  const text = await region.textContent();
  expect(text).toContain("search by meaning is off");
  expect(text).toContain("EMBEDDINGS_MODEL");
  await close();
  expect(watch.errors).toEqual([]);
});

test("at 390 px Settings fits the screen: a webhook with a long URL, its deliveries, its secret and the open form", async () => {
  const dave = await new Api(server.url).newUser("page-hook-phone");
  // One long unbroken token, as services hand out (nothing to break a line at but the page's own rules).
  const hookPath = `/phone-hook/${"Zx7Qk2".repeat(16)}`;
  const { page, watch, close } = await openSettings(dave, { width: 390, height: 844 });
  const region = page.getByRole("region", { name: "Webhooks" });
  await region.getByRole("button", { name: "New webhook" }).click();
  await region.getByLabel("URL").fill(`${receiver.origin}${hookPath}`);
  await region.getByLabel("graph.build.completed").check();
  await region.getByLabel("Description").fill("A description long enough to wrap on a phone's narrow screen, twice over.");
  await region.getByRole("button", { name: "Create webhook" }).click();
  await region.getByText(/^whsec_/).waitFor();
  const item = region.getByRole("listitem").filter({ hasText: hookPath });
  await item.getByRole("button", { name: "Send test" }).click();
  await item.getByRole("region", { name: "Deliveries" }).getByText("webhook.test").waitFor({ timeout: 15_000 });
  await region.getByRole("button", { name: "New webhook" }).click();
  await page.getByRole("region", { name: "Search by meaning" }).getByText("EMBEDDINGS_MODEL").waitFor();
  await shot(page, "settings-webhooks-phone");
  expect(await horizontalOverflow(page, "#settings-view")).toEqual([]);
  await close();
  expect(watch.errors).toEqual([]);
});

/** A photograph of the page, kept in SHOTS_DIR when it is set (to be looked at). */
async function shot(page: Page, name: string) {
  if (process.env.SHOTS_DIR) await page.screenshot({ path: path.join(process.env.SHOTS_DIR, `${name}.png`), fullPage: true });
}

/**
 * Console errors besides those a test provokes on purpose: Chromium logs every non-2xx response
 * ("Failed to load resource"), the refusals the page then says in words.
 */
function errorsBesides(watch: PageWatch, expected: RegExp[]) {
  return watch.errors.filter((error) => !expected.some((pattern) => pattern.test(`${error.text} ${error.url}`)));
}
