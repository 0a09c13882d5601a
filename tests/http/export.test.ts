import { describe, expect, test } from "bun:test";
import { load } from "js-yaml";
import { parse } from "yaml";
import { createAccessToken } from "../support/access-tokens";
import { expectError } from "../support/api";
import { readFixture } from "../support/platform-fixtures";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { trpcClient, trpcFailure } from "../support/trpc";
import { exportZip } from "../support/read-back";

const { server, api } = await serverForThisFile();

function readFrontMatter(file: Uint8Array) {
  const text = new TextDecoder().decode(file);
  const match = text.match(/^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/);
  expect(match).not.toBeNull();
  // Read with a different library than the one that wrote it, as YAML 1.2 and as YAML 1.1 (where
  // `yes`, `no` and dates are not strings), and both readers must see the same values.
  const meta = parse(match![1]!);
  expect(parse(match![1]!, { version: "1.1" })).toEqual(meta);
  return { meta, content: match![2]! };
}

describe("POST /api/notes/export", () => {
  test("streams a ZIP of Markdown files with front matter that round-trips", async () => {
    const { api: alice } = await api.newUser("exporter");
    const notes = [
      { title: "Första anteckning: ÅÄÖ", content: "# Heading\n\nBody with `code`.", tags: ["sv", "ünïcode"] },
      { title: "---\nyaml: injection\n---", content: "---\nnot: front matter\n---", tags: [] },
      // Scalars a YAML 1.1 reader would turn into booleans, numbers or dates, and titles that need escapes or would be folded.
      { title: "yes", content: "", tags: ["no", "2026-11-21", "123", "null"] },
      { title: `Line\u2028separator\ttab \u0085 and a long title ${"word ".repeat(30)}end`, content: "x", tags: ["# not a comment"] },
      { title: "Same title", content: "one", tags: ["dup"] },
      { title: "same TITLE", content: "two", tags: ["dup"] },
    ];
    const created = [];
    for (const note of notes) created.push((await alice.post("/api/notes", note)).body);

    const { response, bytes, files } = await exportZip(alice);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="notes-\d{8}\.zip"$/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Object.keys(files)).toHaveLength(notes.length);

    for (const note of created) {
      const name = Object.keys(files).find((entry) => entry.endsWith(`-${note.id}.md`))!;
      expect(name).toBeDefined();
      const { meta, content } = readFrontMatter(files[name]!);
      expect(meta).toEqual({ id: note.id, title: note.title, tags: note.tags, created_at: note.created_at, updated_at: note.updated_at });
      expect(content).toBe(note.content);
    }
    // Names differ even where titles differ only in case; and are unique case-insensitively.
    const lower = Object.keys(files).map((name) => name.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
    // Entries declare UTF-8 names (general purpose flag bit 11) in the central directory.
    const view = new DataView(bytes.buffer);
    for (let offset = bytes.length - 22; offset >= 0; offset--) {
      if (view.getUint32(offset, true) !== 0x06054b50) continue;
      let entry = view.getUint32(offset + 16, true);
      for (let i = 0; i < notes.length; i++) {
        expect(view.getUint32(entry, true)).toBe(0x02014b50);
        expect(view.getUint16(entry + 8, true) & 0x0800).toBe(0x0800);
        entry += 46 + view.getUint16(entry + 28, true) + view.getUint16(entry + 30, true) + view.getUint16(entry + 32, true);
      }
      break;
    }
  });

  test("an imported note's front matter says where it came from; a note written here has no source fields", async () => {
    const { api: alice } = await api.newUser("sources");
    const page = readFixture("web", "blog-article.html");
    const task = (await alice.post("/api/tasks", { platform: "web", url: "https://blog.example.com/sqlite", content: page })).body;
    const settled = await settleTask(alice, task.id);
    expect(settled.status).toBe("completed");
    const noteId: number = settled.note_id;
    const imported = (await alice.get(`/api/notes/${noteId}`)).body;
    const written = (await alice.post("/api/notes", { title: "Written here" })).body;

    const { files } = await exportZip(alice);
    const fileOf = (id: number) => files[Object.keys(files).find((entry) => entry.endsWith(`-${id}.md`))!]!;
    const { meta } = readFrontMatter(fileOf(imported.id));
    const text = new TextDecoder().decode(fileOf(imported.id));
    expect(load(text.slice(4, text.indexOf("\n---\n", 4)))).toEqual(meta);
    expect(meta).toEqual({
      id: imported.id,
      title: "Why SQLite Is Enough for Most Side Projects",
      tags: imported.tags,
      created_at: imported.created_at,
      updated_at: imported.updated_at,
      source_platform: "web",
      source_url: "https://blog.example.com/2025/03/sqlite-is-enough/",
      author: "Maya Lindqvist",
      published_at: "2025-03-14T07:30:00.000Z",
    });
    expect(Object.keys(readFrontMatter(fileOf(written.id)).meta).sort()).toEqual(["created_at", "id", "tags", "title", "updated_at"]);
  });

  test("narrows by ids and by tag, and by both together", async () => {
    const { api: alice } = await api.newUser("narrow");
    const a = (await alice.post("/api/notes", { title: "a", tags: ["x"] })).body;
    const b = (await alice.post("/api/notes", { title: "b", tags: ["x", "y"] })).body;
    const c = (await alice.post("/api/notes", { title: "c", tags: ["y"] })).body;
    const names = async (body: unknown) => Object.keys((await exportZip(alice, body)).files).sort();
    expect(await names({ ids: [a.id, c.id] })).toEqual([`a-${a.id}.md`, `c-${c.id}.md`]);
    expect(await names({ tag: "y" })).toEqual([`b-${b.id}.md`, `c-${c.id}.md`]);
    expect(await names({ ids: [a.id, b.id], tag: "y" })).toEqual([`b-${b.id}.md`]);
    expect(await names({})).toHaveLength(3);
  });

  test("ignores another user's ids and yields a valid empty ZIP when nothing matches", async () => {
    const { api: alice } = await api.newUser("owner");
    const { api: mallory } = await api.newUser("mallory");
    const secret = (await alice.post("/api/notes", { title: "secret", content: "do not leak" })).body;
    const stolen = await exportZip(mallory, { ids: [secret.id] });
    expect(stolen.response.status).toBe(200);
    expect(Object.keys(stolen.files)).toEqual([]);
    expect(new TextDecoder().decode(stolen.bytes)).not.toContain("do not leak");
    const none = await exportZip(alice, { tag: "no-such-tag" });
    expect(none.response.status).toBe(200);
    expect(Object.keys(none.files)).toEqual([]);
  });

  test("exports every note of a larger account, page after page", async () => {
    const { api: alice } = await api.newUser("bulk");
    for (let i = 0; i < 250; i++) await alice.post("/api/notes", { title: `Bulk ${i}`, content: `note ${i}` });
    const { files } = await exportZip(alice);
    expect(Object.keys(files)).toHaveLength(250);
  });

  test("rejects bad input and missing tokens with the contract's errors", async () => {
    const { api: alice } = await api.newUser("badexport");
    expectError(await alice.post("/api/notes/export", { ids: ["x"] }), 400, "BAD_REQUEST");
    expectError(await alice.post("/api/notes/export", { tag: "" }), 400, "BAD_REQUEST");
    expectError(await alice.request("POST", "/api/notes/export", { body: "{", headers: { "content-type": "application/json" } }), 400, "BAD_REQUEST");
    expectError(await alice.request("POST", "/api/notes/export", { body: "ids=1", headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await api.post("/api/notes/export", {}), 401, "UNAUTHORIZED");
    const wrongMethod = await alice.get("/api/notes/export");
    expectError(wrongMethod, 405, "METHOD_NOT_SUPPORTED");
    expect(wrongMethod.headers.get("allow")).toBe("POST");
  });
});

describe("the graph in the export", () => {
  test("include_graph adds graph.json with the nodes and edges GET /api/knowledge-graph?limit=5000 returns; without it there is none", async () => {
    const { drizzle } = await import("drizzle-orm/libsql");
    const { writeGraph } = await import("../support/graph-seed");
    const { api: alice, id } = await api.newUser("graphexport");
    const note = (await alice.post("/api/notes", { title: "Graphs", content: "Nodes and edges." })).body;
    const client = server.openNotesClient();
    await writeGraph(drizzle(client), id, {
      nodes: [{ label: "Graph", noteIds: [note.id], weight: 3 }, { label: "Edge", noteIds: [note.id] }],
      edges: [{ source: "Graph", target: "Edge", label: "has", noteIds: [note.id] }],
    });
    client.close();
    const { files } = await exportZip(alice, { include_graph: true });
    expect(Object.keys(files).sort()).toEqual(["graph.json", `graphs-${note.id}.md`]);
    const graph = JSON.parse(new TextDecoder().decode(files["graph.json"]));
    const served = (await alice.get("/api/knowledge-graph?limit=5000")).body;
    expect(graph).toEqual({ nodes: served.nodes, edges: served.edges });
    expect(graph.nodes.map((node: { label: string; note_ids: number[] }) => [node.label, node.note_ids])).toEqual([["Graph", [note.id]], ["Edge", [note.id]]]);
    expect(graph.edges).toHaveLength(1);
    expect(Object.keys((await exportZip(alice, {})).files)).toEqual([`graphs-${note.id}.md`]);
  });

  test("include_graph is a graph read: a token without graph:read gets 403 naming it, on REST and over /trpc; with it the ZIP holds graph.json", async () => {
    const { api: alice } = await api.newUser("graphscope");
    const note = (await alice.post("/api/notes", { title: "Scoped", content: "[[Alpha]] meets [[Beta]]." })).body;
    const notesOnly = alice.withToken(await createAccessToken(alice, ["notes:read"]));
    const refused = await exportZip(notesOnly, { include_graph: true });
    expect(refused.response.status).toBe(403);
    expect(JSON.parse(new TextDecoder().decode(refused.bytes))).toEqual({ code: "FORBIDDEN", message: "This token lacks the scope graph:read" });
    expect(refused.response.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="graph:read"');
    // The same procedure called over /trpc answers the scope first, not "use the REST download".
    const rpc = trpcClient(server.url, notesOnly.token).notes.export.mutate({ include_graph: true });
    expect(await trpcFailure(rpc)).toEqual({ code: "FORBIDDEN", status: 403, message: "This token lacks the scope graph:read" });
    // The positive controls: the notes alone need only notes:read, and graph:read lets the graph in.
    expect(Object.keys((await exportZip(notesOnly, {})).files)).toEqual([`scoped-${note.id}.md`]);
    const withGraph = alice.withToken(await createAccessToken(alice, ["notes:read", "graph:read"]));
    expect(Object.keys((await exportZip(withGraph, { include_graph: true })).files).sort()).toEqual(["graph.json", `scoped-${note.id}.md`]);
  });
});
