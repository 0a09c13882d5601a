// Share links: made, listed and revoked through the API; the public page at /s/<token>, its
// Markdown and its pictures; every link that does not work is the same 404 page.
import { describe, expect, test } from "bun:test";
import { Api } from "../support/api";
import { serverForThisFile } from "../support/server";

const DOT = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

const { server, api } = await serverForThisFile({ PUBLIC_URL: "https://notes.example.com" });
const alice = (await api.newUser("share-a")).api;
const bob = (await api.newUser("share-b")).api;

async function newNote(api: Api, content = "Some **bold** words.", title = "Shared note") {
  const created = await api.post("/api/notes", { title, content, tags: ["t"] });
  expect(created.status).toBe(201);
  return created.body.id as number;
}

async function share(api: Api, noteId: number, body: Record<string, unknown> = {}) {
  const created = await api.post(`/api/notes/${noteId}/shares`, body);
  expect(created.status).toBe(201);
  return created.body as { id: number; note_id: number; url: string; created_at: string; expires_at: string | null };
}

/** The link's path, on the test server (PUBLIC_URL names another origin). */
const pathOf = (url: string) => new URL(url).pathname;
const open = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

describe("share links", () => {
  test("a link is made under PUBLIC_URL with at least 128 random bits, listed, and shows the note as it is now", async () => {
    const noteId = await newNote(alice);
    const link = await share(alice, noteId);
    expect(link).toMatchObject({ note_id: noteId, expires_at: null });
    expect(link.url).toMatch(/^https:\/\/notes\.example\.com\/s\/[A-Za-z0-9_-]{22,}$/);
    expect((await alice.get(`/api/notes/${noteId}/shares`)).body.items).toEqual([link]);

    const page = await open(pathOf(link.url));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("x-robots-tag")).toContain("noindex");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toContain("unsafe-inline");
    const html = await page.text();
    expect(html).toContain("<h1>Shared note</h1>");
    expect(html).toContain("<strong>bold</strong>");

    await alice.put(`/api/notes/${noteId}`, { content: "Rewritten _now_." });
    expect(await (await open(pathOf(link.url))).text()).toContain("<em>now</em>");
    const markdown = await open(`${pathOf(link.url)}.md`);
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(markdown.headers.get("x-robots-tag")).toContain("noindex");
    expect(await markdown.text()).toBe("Rewritten _now_.");
  });

  test("a revoked link is a 404 page at once, as is an unknown or malformed token", async () => {
    const link = await share(alice, await newNote(alice));
    expect((await open(pathOf(link.url))).status).toBe(200);
    expect((await alice.delete(`/api/shares/${link.id}`)).status).toBe(204);
    for (const path of [pathOf(link.url), `${pathOf(link.url)}.md`, "/s/AAAAAAAAAAAAAAAAAAAAAAAA", "/s/short", "/s/%3Cscript%3E"]) {
      const gone = await open(path);
      expect(gone.status).toBe(404);
      expect(gone.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(gone.headers.get("x-robots-tag")).toContain("noindex");
      expect(await gone.text()).toContain("This link does not work");
    }
    expect((await alice.delete(`/api/shares/${link.id}`)).status).toBe(404);
  });

  test("an expired link is a 404 page and leaves the list", async () => {
    const noteId = await newNote(alice);
    const link = await share(alice, noteId, { expires_in_days: 7 });
    expect(Date.parse(link.expires_at!) - Date.parse(link.created_at)).toBe(7 * 86_400_000);
    expect((await open(pathOf(link.url))).status).toBe(200);
    const client = server.openNotesClient();
    try {
      await client.execute({ sql: "update share_links set expires_at = ? where id = ?", args: [Date.now() - 1000, link.id] });
    } finally {
      client.close();
    }
    expect((await open(pathOf(link.url))).status).toBe(404);
    expect((await open(`${pathOf(link.url)}.md`)).status).toBe(404);
    expect((await alice.get(`/api/notes/${noteId}/shares`)).body.items).toEqual([]);
  });

  test("a note in the trash is a 404 page; restored, its link works again", async () => {
    const noteId = await newNote(alice);
    const link = await share(alice, noteId);
    expect((await alice.delete(`/api/notes/${noteId}`)).status).toBe(204);
    expect((await open(pathOf(link.url))).status).toBe(404);
    expect((await open(`${pathOf(link.url)}.md`)).status).toBe(404);
    expect((await alice.post(`/api/trash/${noteId}/restore`)).status).toBe(200);
    expect((await open(pathOf(link.url))).status).toBe(200);
  });

  test("the note's stored pictures are served under the link; no other file of the owner's is", async () => {
    const upload = (api: Api) => api.request("POST", "/api/files", { body: new Uint8Array(DOT), headers: { "content-type": "image/png" } });
    const shown = (await upload(alice)).body;
    const other = await alice.request("POST", "/api/files", { body: new Uint8Array([...DOT, 0]), headers: { "content-type": "image/png" } });
    expect(other.status).toBe(201);
    const link = await share(alice, await newNote(alice, `A dot: ![dot](${shown.url})`));
    const html = await (await open(pathOf(link.url))).text();
    const token = pathOf(link.url).split("/")[2];
    expect(html).toContain(`src="/s/${token}/files/${shown.id}"`);
    expect(html).not.toContain("/api/files/");
    const picture = await open(`/s/${token}/files/${shown.id}`);
    expect(picture.status).toBe(200);
    expect(picture.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await picture.arrayBuffer())).toEqual(DOT);
    expect(await (await open(`${pathOf(link.url)}.md`)).text()).toBe(`A dot: ![dot](/s/${token}/files/${shown.id})`);
    expect((await open(`/s/${token}/files/${other.body.id}`)).status).toBe(404);
    expect((await open(`/s/${token}/files/abc`)).status).toBe(404);
  });

  test("another user's note cannot be shared, nor its links listed or revoked: 404, as if missing", async () => {
    const noteId = await newNote(alice);
    const link = await share(alice, noteId);
    expect((await bob.post(`/api/notes/${noteId}/shares`, {})).status).toBe(404);
    expect((await bob.get(`/api/notes/${noteId}/shares`)).status).toBe(404);
    expect((await bob.delete(`/api/shares/${link.id}`)).status).toBe(404);
    expect((await open(pathOf(link.url))).status).toBe(200);
  });

  test("bad input is a 400 with the error body; a write to the page is a 405; no credential is a 401 on the API", async () => {
    const noteId = await newNote(alice);
    for (const body of [{ expires_in_days: 0 }, { expires_in_days: 366 }, { expires_in_days: "soon" }]) {
      const refused = await alice.post(`/api/notes/${noteId}/shares`, body);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "BAD_REQUEST", issues: [{ path: ["expires_in_days"] }] });
    }
    expect((await alice.post(`/api/notes/999999/shares`, {})).status).toBe(404);
    expect((await new Api(server.url).post(`/api/notes/${noteId}/shares`, {})).status).toBe(401);
    const link = await share(alice, noteId);
    const posted = await open(pathOf(link.url), { method: "POST" });
    expect(posted.status).toBe(405);
    expect((await posted.json()).code).toBe("METHOD_NOT_SUPPORTED");
  });

  test("an access token needs notes:write to make a link and notes:read to list them", async () => {
    const noteId = await newNote(alice);
    const reader = (await alice.post("/api/auth/tokens", { name: "reader", scopes: ["notes:read"] })).body.token as string;
    const asReader = alice.withToken(reader);
    expect((await asReader.post(`/api/notes/${noteId}/shares`, {})).status).toBe(403);
    expect((await asReader.get(`/api/notes/${noteId}/shares`)).status).toBe(200);
  });
});
