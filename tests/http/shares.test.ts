// Share links: made, listed and revoked through the API; the public page at /s/<token>, its
// Markdown and its pictures; every link that does not work is the same 404 page.
import { describe, expect, test } from "bun:test";
import { openNotesDatabase } from "../../src/db/client";
import { sweepDeadShareLinks } from "../../src/modules/shares/sweep-share-links";
import { RenderedPages } from "../../src/modules/shares/rendered-pages";
import { createShareRoutes, SHARE_RATE_LIMIT } from "../../src/http/share-routes";
import { Api, expectError } from "../support/api";
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

/** Moves links' expiry into the past, behind the API. */
async function expireLinks(ids: number[]) {
  const client = server.openNotesClient();
  try {
    for (const id of ids) await client.execute({ sql: "update share_links set expires_at = ? where id = ?", args: [Date.now() - 1000, id] });
  } finally {
    client.close();
  }
}

/** Which of these share links still have a row. */
async function shareRows(ids: number[]) {
  const client = server.openNotesClient();
  try {
    const rows = await client.execute({ sql: `select id from share_links where id in (${ids.map(() => "?").join(",")}) order by id`, args: ids });
    return rows.rows.map((row) => Number(row[0]));
  } finally {
    client.close();
  }
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

  test("every answer under /s/ (page, Markdown, picture, 404 page, error) tells the browser not to sniff its type", async () => {
    const picture = await alice.request("POST", "/api/files", { body: new Uint8Array([...DOT, 1]), headers: { "content-type": "image/png" } });
    const link = await share(alice, await newNote(alice, `<html><script>alert(1)</script> ![p](${picture.body.url})`));
    const page = pathOf(link.url);
    const answers = [
      [await open(page), 200, "text/html; charset=utf-8"],
      [await open(`${page}.md`), 200, "text/markdown; charset=utf-8"],
      [await open(`${page}/files/${picture.body.id}`), 200, "image/png"],
      [await open("/s/AAAAAAAAAAAAAAAAAAAAAAAA.md"), 404, "text/html; charset=utf-8"],
      [await open(page, { method: "PUT" }), 405, "application/json;charset=utf-8"],
    ] as const;
    for (const [response, status, type] of answers) {
      expect([response.status, response.headers.get("content-type")]).toEqual([status, type]);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
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

  test("at most 100 live links a note: expired ones do not count and are swept; the 101st live one is a 409", async () => {
    const noteId = await newNote(alice);
    const links = [];
    for (let n = 0; n < 100; n++) links.push(await share(alice, noteId, n % 2 ? {} : { expires_in_days: 30 }));
    const refused = await alice.post(`/api/notes/${noteId}/shares`, {});
    expectError(refused, 409, "CONFLICT");
    const expired = links.filter((_, n) => n % 2 === 0).slice(0, 3).map((link) => link.id);
    await expireLinks(expired);
    await share(alice, noteId);
    expect(await shareRows(expired)).toEqual([]);
    await share(alice, noteId);
    await share(alice, noteId);
    expect((await alice.get(`/api/notes/${noteId}/shares`)).body.items).toHaveLength(100);
    expectError(await alice.post(`/api/notes/${noteId}/shares`, { expires_in_days: 1 }), 409, "CONFLICT");
  });

  test("the hourly sweep deletes expired links and those of purged notes; a note in the trash keeps its links", async () => {
    const [kept, expiring, trashed, purged] = [await newNote(alice), await newNote(alice), await newNote(alice), await newNote(alice)];
    const keptLink = await share(alice, kept, { expires_in_days: 1 });
    const expiredLink = await share(alice, expiring, { expires_in_days: 1 });
    const trashedLink = await share(alice, trashed);
    const purgedLink = await share(alice, purged);
    await expireLinks([expiredLink.id]);
    for (const id of [trashed, purged]) expect((await alice.delete(`/api/notes/${id}`)).status).toBe(204);
    expect((await alice.delete(`/api/trash/${purged}`)).status).toBe(204);
    // A purge takes its note's links at once; one a purge missed (written behind its back) goes with the sweep.
    expect(await shareRows([purgedLink.id])).toEqual([]);
    const client = server.openNotesClient();
    try {
      await client.execute({ sql: "insert into share_links (user_id, note_id, token, created_at) select user_id, ?, ?, created_at from share_links where id = ?", args: [purged, "B".repeat(24), keptLink.id] });
    } finally {
      client.close();
    }
    const notesDb = await openNotesDatabase({ url: `file:${server.dbFile}` });
    try {
      expect(await sweepDeadShareLinks(notesDb.db)).toBeGreaterThanOrEqual(2);
    } finally {
      notesDb.close();
    }
    expect(await shareRows([keptLink.id, expiredLink.id, trashedLink.id])).toEqual([keptLink.id, trashedLink.id]);
    expect((await open("/s/BBBBBBBBBBBBBBBBBBBBBBBB")).status).toBe(404);
    expect((await alice.post(`/api/trash/${trashed}/restore`)).status).toBe(200);
    expect((await open(pathOf(trashedLink.url))).status).toBe(200);
  });

  test("a page is rendered once per version of its note: later readers get the kept page, and an edit shows at once", async () => {
    const noteId = await newNote(alice, "First **words**.");
    const link = await share(alice, noteId);
    const notesDb = await openNotesDatabase({ url: `file:${server.dbFile}` });
    try {
      // The server's own routes over the same database, with their page cache in the test's hands.
      const pages = new RenderedPages();
      const serve = createShareRoutes({ db: notesDb.db, pages });
      const read = async (path = pathOf(link.url)) => {
        const response = await serve(new Request(`${server.url}${path}`), "192.0.2.1");
        expect(response.status).toBe(200);
        return response.text();
      };
      const first = await read();
      expect(first).toContain("<strong>words</strong>");
      expect(await read()).toBe(first);
      expect(await read()).toBe(first);
      expect(pages.renders).toBe(1);
      expect((await alice.put(`/api/notes/${noteId}`, { title: "Renamed", content: "Second _words_." })).status).toBe(200);
      const edited = await read();
      expect(edited).toContain("<em>words</em>");
      expect(edited).toContain("<h1>Renamed</h1>");
      expect(await read()).toBe(edited);
      expect(pages.renders).toBe(2);
      // A revoked link is a 404 at once, kept page or not.
      expect((await alice.delete(`/api/shares/${link.id}`)).status).toBe(204);
      expect((await serve(new Request(`${server.url}${pathOf(link.url)}`), "192.0.2.1")).status).toBe(404);
    } finally {
      notesDb.close();
    }
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

// Last in the file: it spends this address's whole allowance under /s/.
describe("the share pages' rate limit", () => {
  test("one address past its burst under /s/ gets a 429 with Retry-After and the error body", async () => {
    const link = await share(alice, await newNote(alice));
    const answers = await Promise.all(Array.from({ length: SHARE_RATE_LIMIT.burst + 50 }, (_, n) => open(n % 2 ? pathOf(link.url) : "/s/AAAAAAAAAAAAAAAAAAAAAAAA")));
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    const refused = answers.find((answer) => answer.status === 429);
    expect(refused).toBeDefined();
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused!.headers.get("x-robots-tag")).toContain("noindex");
    const body = await refused!.json();
    expect(body).toEqual({ code: "TOO_MANY_REQUESTS", message: expect.any(String) });
    // The API itself is not behind this limit.
    expect((await alice.get(`/api/notes/${link.note_id}/shares`)).status).toBe(200);
  });
});
