// GET /api/tags (the user's tags with counts, most used first, then by name) and PUT /api/notes/{id}
// with `expected_updated_at` (a note changed since is a 409 CONFLICT that writes nothing), over REST
// and tRPC alike.
import { describe, expect, test } from "bun:test";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/root";
import { expectError, expectUnauthorized } from "../support/api";
import { serverForThisFile } from "../support/server";

const { server, api } = await serverForThisFile();

describe("GET /api/tags", () => {
  test("lists the user's tags with counts, most used first then by name, following writes and deletes", async () => {
    const { api: alice } = await api.newUser("tags");
    expect((await alice.get("/api/tags")).body).toEqual({ items: [] });
    const made = [];
    for (const tags of [["beta", "阅读"], ["alpha", "beta"], ["beta", "gamma"], ["alpha"]]) {
      const created = await alice.post("/api/notes", { title: `tagged ${tags.join(" ")}`, tags });
      expect(created.status).toBe(201);
      made.push(created.body);
    }
    const first = await alice.get("/api/tags");
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([
      { tag: "beta", count: 3 },
      { tag: "alpha", count: 2 },
      { tag: "gamma", count: 1 },
      { tag: "阅读", count: 1 },
    ]);
    expect((await alice.put(`/api/notes/${made[2].id}`, { tags: ["gamma"] })).status).toBe(200);
    expect((await alice.delete(`/api/notes/${made[0].id}`)).status).toBe(204);
    expect((await alice.get("/api/tags")).body.items).toEqual([
      { tag: "alpha", count: 2 },
      { tag: "beta", count: 1 },
      { tag: "gamma", count: 1 },
    ]);
  });

  test("never shows another user's tags, and needs a token", async () => {
    const { api: alice } = await api.newUser("tagsa");
    const { api: bob } = await api.newUser("tagsb");
    await alice.post("/api/notes", { title: "secret", tags: ["alice-only"] });
    expect((await bob.get("/api/tags")).body).toEqual({ items: [] });
    expectUnauthorized(await api.get("/api/tags"));
  });

  test("is the procedure tags.list on tRPC, and in the OpenAPI document", async () => {
    const { api: alice } = await api.newUser("tagstrpc");
    await alice.post("/api/notes", { title: "one", tags: ["x"] });
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc`, headers: () => ({ authorization: `Bearer ${alice.token}` }) })] });
    expect(await client.tags.list.query()).toEqual({ items: [{ tag: "x", count: 1 }] });
    const document = (await api.get("/openapi.json")).body;
    expect(document.paths["/api/tags"].get).toBeDefined();
    expect(JSON.stringify(document.paths["/api/notes/{id}"].put)).toContain("expected_updated_at");
  });
});

describe("PUT /api/notes/{id} with expected_updated_at", () => {
  test("saves when the note is as read, refuses with 409 CONFLICT and writes nothing when it changed since", async () => {
    const { api: alice } = await api.newUser("conflict");
    const note = (await alice.post("/api/notes", { title: "Draft", content: "one", tags: ["t"] })).body;
    // Tab 1 and tab 2 both read the note; tab 1 saves first.
    const saved = await alice.put(`/api/notes/${note.id}`, { content: "tab one", expected_updated_at: note.updated_at });
    expect(saved.status).toBe(200);
    expect(saved.body.content).toBe("tab one");
    const refused = await alice.put(`/api/notes/${note.id}`, { title: "Tab two", content: "tab two", expected_updated_at: note.updated_at });
    expectError(refused, 409, "CONFLICT");
    expect(refused.body.message).toContain(saved.body.updated_at);
    expect((await alice.get(`/api/notes/${note.id}`)).body).toEqual(saved.body);
    // Tab 2 takes the newer version and saves on top of it.
    const retried = await alice.put(`/api/notes/${note.id}`, { content: "tab two", expected_updated_at: saved.body.updated_at });
    expect(retried.status).toBe(200);
    // Without it, the last write wins as before.
    expect((await alice.put(`/api/notes/${note.id}`, { content: "blind" })).status).toBe(200);
  });

  test("a bad timestamp is a 400, another user's note a 404, over tRPC the code is CONFLICT", async () => {
    const { api: alice } = await api.newUser("conflict2");
    const { api: bob } = await api.newUser("conflict3");
    const note = (await alice.post("/api/notes", { title: "Mine" })).body;
    const bad = await alice.put(`/api/notes/${note.id}`, { title: "x", expected_updated_at: "yesterday" });
    expectError(bad, 400, "BAD_REQUEST");
    expect(bad.body.issues[0].path).toEqual(["expected_updated_at"]);
    expectError(await bob.put(`/api/notes/${note.id}`, { title: "x", expected_updated_at: note.updated_at }), 404, "NOT_FOUND");
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc`, headers: () => ({ authorization: `Bearer ${alice.token}` }) })] });
    const error = await client.notes.update.mutate({ id: note.id, title: "x", expected_updated_at: "2020-01-01T00:00:00.000Z" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data?.code).toBe("CONFLICT");
    expect((await alice.get(`/api/notes/${note.id}`)).body.title).toBe("Mine");
  });
});
