// The account in the page, by the contract's names ("The whole service in the page"): an account
// created from the login view, used, and deleted from `Settings` with nothing left; a taken name
// and a short password said on the form; `Change password` ending the other sessions;
// `Sessions` listing this device and the others, `End` and `End all other sessions`; the `Trash`
// view restoring, deleting forever and emptying; a server with closed registration offering no
// `Create account`. No console error but the refusals a test provokes, no request off the origin.
import { afterEach, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumForThisFile, logIn, watchPage, type PageWatch } from "../support/browser";
import { serverForThisFile } from "../support/server";
import { uniqueName } from "../support/unique-name";
import { until } from "../support/until";

const browser = await chromiumForThisFile();
const { server, api } = await serverForThisFile();
const closed = await serverForThisFile({ REGISTRATION: "closed" });

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1400, height: 900 };

interface Opened {
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
  base: string;
}
const opened: Opened[] = [];
/** Chromium logs each non-2xx answer as a console error; a test that provokes one names it here. */
let expectedFailures: RegExp[] = [];

afterEach(async () => {
  const allowed = expectedFailures;
  expectedFailures = [];
  for (const { context, watch, base } of opened.splice(0)) {
    await context.close().catch(() => {});
    expect(watch.requests.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("blob:") && !url.startsWith("data:"))).toEqual([]);
    expect(watch.errors.filter((error) => !allowed.some((pattern) => pattern.test(`${error.text} ${error.url}`)))).toEqual([]);
  }
});

async function openApp(viewport = DESKTOP, base = server.url, path = "/"): Promise<Opened> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const watch = watchPage(page);
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${base}${path}`);
  const entry = { context, page, watch, base };
  opened.push(entry);
  return entry;
}

const notesLoaded = (page: Page) => page.locator('ul[aria-label="Notes"][data-loaded]').waitFor();
const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("an account from the page alone", () => {
  for (const [label, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
    test(`${label}: created from the login view, used, and deleted in Settings with nothing left`, async () => {
      const username = uniqueName(`page${label}`);
      const password = "a long enough password";
      const { page } = await openApp(viewport);
      await page.getByRole("link", { name: "Create account" }).click();
      await page.getByLabel("Username").fill(username);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Create account" }).click();
      await notesLoaded(page);

      await page.getByRole("button", { name: "New note" }).click();
      await page.getByLabel("Title", { exact: true }).fill("Written in a new account");
      await page.getByLabel("Content", { exact: true }).fill("Made without curl.");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("article", { name: "Written in a new account" }).waitFor();

      await page.getByRole("link", { name: "Settings" }).click();
      expect(new URL(page.url()).pathname).toBe("/settings");
      const account = region(page, "Account");
      await account.getByText(username, { exact: true }).waitFor();
      expect(await noHorizontalScroll(page)).toBe(true);

      const token = await page.evaluate(() => sessionStorage.getItem("rhizome.access_token"));
      expect((await api.withToken(token!).get("/api/notes")).body.total).toBe(1);

      // A wrong password deletes nothing, and says so in the form.
      expectedFailures = [/delete-account/];
      await account.getByRole("button", { name: "Delete account" }).click();
      await account.getByLabel("Password").fill("not the password");
      await account.getByRole("button", { name: "Delete account" }).click();
      await account.getByRole("alert").filter({ hasText: /password/i }).waitFor();
      expect((await api.withToken(token!).get("/api/notes")).status).toBe(200);

      await account.getByLabel("Password").fill(password);
      await account.getByRole("button", { name: "Delete account" }).click();
      await page.getByRole("button", { name: "Log in" }).waitFor();
      expect(await page.getByRole("status").textContent()).toContain("deleted");
      expect((await api.withToken(token!).get("/api/auth/me")).status).toBe(401);
      expect((await api.loginForm({ username, password })).status).toBe(401);
      // The name is free again.
      expect((await api.post("/api/auth/register", { username, password })).status).toBe(201);
    });
  }

  test("a taken name and a short password are said on the form; nothing is logged in", async () => {
    const taken = await api.newUser("taken");
    const { page } = await openApp();
    expectedFailures = [/\/api\/auth\/register/];
    await page.getByRole("link", { name: "Create account" }).click();
    await page.getByLabel("Username").fill(taken.username.toUpperCase());
    await page.getByLabel("Password").fill("long enough password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("alert").filter({ hasText: /taken/i }).waitFor();

    // The browser's own length check is lifted to let the server's answer through.
    await page.getByLabel("Username").fill(uniqueName("short"));
    await page.getByLabel("Password").evaluate((input: HTMLInputElement) => (input.minLength = 0));
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("alert").filter({ hasText: /8/ }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("rhizome.access_token"))).toBeNull();

    // Back to the login form with the same fields.
    await page.getByRole("link", { name: "Log in instead" }).click();
    await logIn(page, taken);
    await notesLoaded(page);
  });

  test("with REGISTRATION=closed, the login view offers no Create account", async () => {
    const owner = await closed.api.newUser("owner");
    const { page } = await openApp(DESKTOP, closed.server.url);
    await page.getByRole("button", { name: "Log in" }).waitFor();
    // The answer to GET /api/auth/registration has come when the page has asked it.
    await page.waitForResponse((response) => response.url().endsWith("/api/auth/registration")).catch(() => {});
    await Bun.sleep(200);
    expect(await page.getByRole("link", { name: "Create account" }).count()).toBe(0);
    await logIn(page, owner);
    await notesLoaded(page);
  });
});

describe("Settings: password and sessions", () => {
  test("Change password ends the other sessions, keeps this one, and the new password logs in", async () => {
    const alice = await api.newUser("pw");
    const elsewhere = await openApp(PHONE);
    await logIn(elsewhere.page, alice);
    await notesLoaded(elsewhere.page);

    const { page } = await openApp(DESKTOP, server.url, "/settings");
    await logIn(page, alice);
    const sessions = region(page, "Sessions");
    const items = sessions.getByRole("list", { name: "Login sessions" }).getByRole("listitem");
    await until(async () => (await items.count()) === 3, { what: "the sessions listed" }); // the API client's, the phone's, this one
    expect(await items.filter({ hasText: "This device" }).count()).toBe(1);

    expectedFailures = [/\/api\/auth\/password/, /\/api\//];
    const account = region(page, "Account");
    await account.getByRole("button", { name: "Change password" }).click();
    await account.getByLabel("Current password").fill("wrong password");
    await account.getByLabel("New password").fill("the new password");
    await account.getByRole("button", { name: "Change password" }).click();
    await account.getByRole("alert").filter({ hasText: /password/i }).waitFor();
    expect((await api.loginForm({ username: alice.username, password: alice.password })).status).toBe(200);

    await account.getByLabel("Current password").fill(alice.password);
    await account.getByRole("button", { name: "Change password" }).click();
    await account.getByText("Your password is changed").waitFor();
    expect((await alice.api.get("/api/auth/me")).status).toBe(401);
    expect((await api.loginForm({ username: alice.username, password: alice.password })).status).toBe(401);
    expect((await api.loginForm({ username: alice.username, password: "the new password" })).status).toBe(200);

    // The phone's session has ended: its next call brings back the login form.
    await elsewhere.page.getByRole("link", { name: "Trash" }).click();
    await elsewhere.page.getByRole("button", { name: "Log in" }).waitFor();
    // This page still works.
    await page.getByRole("link", { name: "Notes" }).click();
    await notesLoaded(page);
  });

  test("Sessions: End one, End all other sessions; ending this device's logs out", async () => {
    const bob = await api.newUser("sessions");
    const other = await api.login(bob.username, bob.password);
    const { page } = await openApp(DESKTOP, server.url, "/settings");
    await logIn(page, bob);
    const sessions = region(page, "Sessions");
    const items = sessions.getByRole("list", { name: "Login sessions" }).getByRole("listitem");
    await until(async () => (await items.count()) === 3, { what: "the sessions listed" });
    await items.filter({ hasNotText: "This device" }).first().getByRole("button", { name: "End" }).click();
    await until(async () => (await items.count()) === 2, { what: "the sessions listed" });
    const ended = [(await bob.api.get("/api/auth/me")).status, (await api.withToken(other).get("/api/auth/me")).status].sort();
    expect(ended).toEqual([200, 401]);

    await sessions.getByRole("button", { name: "End all other sessions" }).click();
    await until(async () => (await items.count()) === 1, { what: "the sessions listed" });
    expect((await bob.api.get("/api/auth/me")).status).toBe(401);
    expect((await api.withToken(other).get("/api/auth/me")).status).toBe(401);

    await items.filter({ hasText: "This device" }).getByRole("button", { name: "End" }).click();
    await page.getByRole("button", { name: "Log in" }).waitFor();
  });
});

describe("Trash", () => {
  test("a deleted note is restored from the Trash; one is deleted forever; Empty trash empties it", async () => {
    const carol = await api.newUser("trash");
    const ids: number[] = [];
    for (const title of ["Keep me", "Forget me", "Also gone"]) {
      const made = await carol.api.post("/api/notes", { title, content: `${title}.` });
      ids.push(made.body.id);
      expect((await carol.api.delete(`/api/notes/${made.body.id}`)).status).toBe(204);
    }
    for (const viewport of [PHONE, DESKTOP]) {
      const { page } = await openApp(viewport, server.url, "/trash");
      await logIn(page, carol);
      await page.getByRole("list", { name: "Deleted notes" }).getByRole("listitem").first().waitFor();
      expect(await noHorizontalScroll(page)).toBe(true);
      if (viewport === DESKTOP) break;
    }
    const page = opened.at(-1)!.page;
    const deleted = page.getByRole("list", { name: "Deleted notes" }).getByRole("listitem");
    expect(await deleted.count()).toBe(3);
    expect(await deleted.filter({ hasText: "Keep me" }).textContent()).toMatch(/purged on/);

    await deleted.filter({ hasText: "Keep me" }).getByRole("button", { name: "Restore" }).click();
    await until(async () => (await deleted.count()) === 2, { what: "the trash listed" });
    expect((await carol.api.get(`/api/notes/${ids[0]}`)).body.title).toBe("Keep me");

    await deleted.filter({ hasText: "Forget me" }).getByRole("button", { name: "Delete forever" }).click();
    await until(async () => (await deleted.count()) === 1, { what: "the trash listed" });
    expect((await carol.api.get("/api/trash")).body.items.map((item: { title: string }) => item.title)).toEqual(["Also gone"]);

    await page.getByRole("button", { name: "Empty trash" }).click();
    await until(async () => (await deleted.count()) === 0, { what: "the trash listed" });
    expect((await carol.api.get("/api/trash")).body.total).toBe(0);

    await page.getByRole("link", { name: "Notes" }).click();
    await notesLoaded(page);
    await page.getByRole("list", { name: "Notes", exact: true }).getByRole("button", { name: /^Keep me/ }).waitFor();
  });
});

