import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { logIn } from "../support/browser";
import { expectError } from "../support/api";
import { extensionBrowserForThisFile } from "../support/extension-browser";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

// Connect on the options page: OAuth 2.1 with PKCE through chrome.identity.launchWebAuthFlow. In
// `--headless=new` Chromium opens the sign-in window as a page of the context, so the person's part
// (log in, Allow or Deny) is played on the server's real authorization page, and the redirect to
// https://<extension id>.chromiumapp.org/ ends the flow as it would for a person.

const browser = await extensionBrowserForThisFile();
const { server, api } = await serverForThisFile();
const alice = await api.newUser("connectalice");

/** What the extension keeps in its storage: the server and the token (with its refresh token when connected). */
const stored = () => browser.worker.evaluate(() => (globalThis as any).chrome.storage.local.get(null)) as Promise<{ server?: string; token?: any }>;

/** Presses Connect and returns the sign-in window the extension opened on the server's authorization page. */
async function startConnect(options: Page): Promise<Page> {
  await options.getByLabel("Server address").fill(server.url);
  const signIn = browser.context.waitForEvent("page", { predicate: (page) => page.url().startsWith(`${server.url}/oauth/authorize`), timeout: 15_000 });
  await options.getByRole("button", { name: "Connect" }).click();
  const page = await signIn;
  await page.waitForLoadState();
  return page;
}

const statusOf = (options: Page) => options.getByRole("status").textContent();

async function mcpStatus(token: string): Promise<number> {
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await response.body?.cancel();
  return response.status;
}

describe("Connect", () => {
  test("registers, sends the person to the server's page, and keeps a clipper grant for <server>/api", async () => {
    const options = await browser.openOptions();
    const signIn = await startConnect(options);
    const request = new URL(signIn.url()).searchParams;
    expect(request.get("redirect_uri")).toBe(`https://${browser.extensionId}.chromiumapp.org/`);
    expect(request.get("resource")).toBe(`${server.url}/api`);
    expect(request.get("scope")).toBe("imports notes:read notes:write");
    expect(request.get("code_challenge_method")).toBe("S256");
    await logIn(signIn, alice);
    await signIn.getByRole("button", { name: "Allow" }).waitFor();
    expect(await signIn.getByText("Allow Rhizome browser extension to use your notes?").isVisible()).toBe(true);
    expect(await signIn.getByText(/REST API/).isVisible()).toBe(true);
    await signIn.getByRole("button", { name: "Allow" }).click();

    await until(async () => (await statusOf(options))?.includes("(connected)"), { what: "the options page to say it is connected", timeoutMs: 15_000 });
    expect(await statusOf(options)).toBe(`Saving to ${server.url} as ${alice.username} (connected).`);
    const { token } = await stored();
    expect(token).toMatchObject({ kind: "oauth", resource: `${server.url}/api`, tokenEndpoint: `${server.url}/oauth/token` });
    expect(token.refreshToken).toStartWith("rhzr_");

    const [grant] = (await alice.api.get("/api/auth/tokens")).body.items;
    expect(grant).toMatchObject({ kind: "clipper", client_name: "Rhizome browser extension" });
    expect(grant.scopes.sort()).toEqual(["imports", "notes:read", "notes:write"]);
    // Its token works on the REST API, not at /mcp.
    expect((await api.withToken(token.accessToken).get("/api/notes")).status).toBe(200);
    expect(await mcpStatus(token.accessToken)).toBe(401);

    // The extension saves with it.
    const saved = await browser.send({ type: "save-link", url: "https://example.com/never-fetched-in-this-test" });
    expect(Object.keys(saved)).toEqual(["task_id"]);
    expect((await alice.api.get(`/api/tasks/${saved.task_id}`)).body.url).toBe("https://example.com/never-fetched-in-this-test");
    await options.close();
  });

  test("an access token at its end is refreshed before the next save; the refresh token rotates", async () => {
    const before = (await stored()).token;
    await browser.worker.evaluate(async () => {
      const storage = (globalThis as any).chrome.storage.local;
      const { token } = await storage.get(["token"]);
      await storage.set({ token: { ...token, expiresAt: Date.now() } });
    });
    expect(await browser.send({ type: "whoami" })).toEqual({ username: alice.username });
    const after = (await stored()).token;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now() + 50 * 60_000);
    expectError(await api.withToken(before.accessToken).get("/api/notes"), 401, "UNAUTHORIZED");
    expect((await alice.api.get("/api/auth/tokens")).body.items).toHaveLength(1);
  });

  test("connecting again replaces the grant: the old one is revoked", async () => {
    const before = (await stored()).token;
    const options = await browser.openOptions();
    const signIn = await startConnect(options);
    // Still logged in on the server's page from the first Connect: straight to consent.
    await signIn.getByRole("button", { name: "Allow" }).click();
    await until(async () => (await stored()).token?.accessToken !== before.accessToken, { what: "a new token", timeoutMs: 15_000 });
    await until(async () => (await alice.api.get("/api/auth/tokens")).body.items.length === 1, { what: "the old grant to be revoked" });
    expect((await api.withToken(before.accessToken).get("/api/notes")).status).toBe(401);
    await options.close();
  });

  test("Deny on the server's page: the options page says so and the extension keeps what it had", async () => {
    const before = (await stored()).token;
    const options = await browser.openOptions();
    const signIn = await startConnect(options);
    await signIn.getByRole("button", { name: "Deny" }).click();
    await until(async () => (await statusOf(options))?.includes("denied"), { what: "the options page to say access was denied", timeoutMs: 15_000 });
    expect((await stored()).token.accessToken).toBe(before.accessToken);
    await options.close();
  });

  test("a grant revoked in Rhizome: saves fail saying to connect again", async () => {
    const [grant] = (await alice.api.get("/api/auth/tokens")).body.items;
    expect((await alice.api.delete(`/api/auth/tokens/${grant.id}`)).status).toBe(204);
    const answer = await browser.send({ type: "save-link", url: "https://example.com/after-revocation" });
    expect(answer.error).toMatch(/Connect again/);
  });
});
