// The app's Import takes a document file too (POST /api/tasks/document): the task follows live in
// Imports as "uploaded document", and the note appears, at a phone's width as at a desktop's.
import { expect, test } from "bun:test";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { serverForThisFile } from "../support/server";

const browser = await chromiumForThisFile();
const { server, api } = await serverForThisFile();

for (const [label, viewport] of [["desktop", { width: 1400, height: 900 }], ["phone", { width: 390, height: 844 }]] as const) {
  test(`${label}: Import uploads a chosen document (a Markdown file the browser gives no type), and its note appears`, async () => {
    const user = await api.newUser(`docs${label}`);
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const watch = watchPage(page);
    try {
      await page.goto(`${server.url}/`);
      await logIn(page, user);
      await page.locator('ul[aria-label="Notes"][data-loaded]').waitFor();
      await page.getByText("Or upload a document").click();
      await page.getByLabel("Document", { exact: true }).setInputFiles({ name: "field-notes.md", mimeType: "", buffer: Buffer.from("# Field notes\n\nThe heron waited in the shallows.\n") });
      await page.getByRole("button", { name: "Import", exact: true }).click();
      const imports = page.getByRole("list", { name: "Imports" });
      await imports.getByRole("listitem").filter({ hasText: "uploaded document" }).filter({ hasText: "completed" }).waitFor({ timeout: 30_000 });
      await page.getByRole("list", { name: "Notes", exact: true }).getByRole("button", { name: /^Field notes/ }).waitFor();
      const tasks = (await user.api.get("/api/tasks")).body.items;
      expect(tasks[0]).toMatchObject({ platform: "document", status: "completed" });
      expect(watch.errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
}
