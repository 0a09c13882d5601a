import { expect, test } from "bun:test";
import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/root";
import { Api } from "../support/api";
import { imageBytes } from "../support/images";
import { serverForThisFile } from "../support/server";
import { trpcClient, trpcFailure } from "../support/trpc";

const { server } = await serverForThisFile();

const client = (token?: string) => trpcClient(server.url, token);

test("a typed tRPC client drives the running server end to end", async () => {
  const anonymous = client();
  const user = await anonymous.auth.register.mutate({ username: "typed_client", password: "password-123" });
  expect(user.username).toBe("typed_client");
  const { access_token } = await anonymous.auth.login.mutate({ username: "typed_client", password: "password-123" });

  const authed = client(access_token);
  expect((await authed.auth.me.query()).id).toBe(user.id);
  const note = await authed.notes.create.mutate({ title: "From the client", tags: ["rpc"] });
  const page = await authed.notes.list.query({ tag: "rpc" });
  expect(page.items.map((item) => item.id)).toEqual([note.id]);
  expect(await authed.notes.list.query()).toMatchObject({ total: 1, page: 1, size: 20 });
  const updated = await authed.notes.update.mutate({ id: note.id, content: "edited" });
  expect(updated.content).toBe("edited");
  await authed.notes.delete.mutate({ id: note.id });

  const missing = await authed.notes.get.query({ id: note.id }).catch((error: unknown) => error);
  expect(missing).toBeInstanceOf(TRPCClientError);
  expect((missing as TRPCClientError<AppRouter>).data?.code).toBe("NOT_FOUND");

  const invalid = await authed.notes.create.mutate({ title: "" }).catch((error: unknown) => error);
  expect((invalid as TRPCClientError<AppRouter>).data?.httpStatus).toBe(400);

  const export_ = await authed.notes.export.mutate({}).catch((error: unknown) => error);
  expect((export_ as TRPCClientError<AppRouter>).message).toContain("POST /api/notes/export");

  await authed.auth.logout.mutate();
  const loggedOut = await authed.auth.me.query().catch((error: unknown) => error);
  expect((loggedOut as TRPCClientError<AppRouter>).data?.code).toBe("UNAUTHORIZED");
});

test("over /trpc, another user's notes, versions, trash, shares, webhooks and files are NOT_FOUND to every operation, and none of them changes", async () => {
  const { api: aliceApi } = await new Api(server.url).newUser("rpc-owner");
  const { api: bobApi } = await new Api(server.url).newUser("rpc-other");
  const alice = client(aliceApi.token);
  const bob = client(bobApi.token);
  const note = await alice.notes.create.mutate({ title: "Alice's plan", content: "first draft", tags: ["mine"] });
  await alice.notes.update.mutate({ id: note.id, content: "second draft" });
  const trashed = await alice.notes.create.mutate({ title: "Alice's trashed note", content: "gone for now" });
  await alice.notes.delete.mutate({ id: trashed.id });
  const share = await alice.shares.create.mutate({ id: note.id });
  const hook = await alice.webhooks.create.mutate({ url: "https://hooks.example.com/alice", events: ["note.created"] });
  const file = (await aliceApi.request("POST", "/api/files", { body: imageBytes("png"), headers: { "content-type": "image/png" } })).body;
  const before = {
    note: await alice.notes.get.query({ id: note.id }),
    versions: await alice.history.versions.query({ id: note.id }),
    trash: await alice.history.trash.query(),
    shares: await alice.shares.list.query({ id: note.id }),
    hook: await alice.webhooks.get.query({ id: hook.id }),
  };
  expect(before.versions.total).toBe(1); // the positive control: there is a version to reach for

  const attempts: [string, () => Promise<unknown>][] = [
    ["notes.get", () => bob.notes.get.query({ id: note.id })],
    ["notes.update", () => bob.notes.update.mutate({ id: note.id, title: "Bob was here" })],
    ["notes.delete", () => bob.notes.delete.mutate({ id: note.id })],
    ["history.versions", () => bob.history.versions.query({ id: note.id })],
    ["history.version", () => bob.history.version.query({ id: note.id, version: 1 })],
    ["history.diff", () => bob.history.diff.query({ id: note.id, version: 1 })],
    ["history.restoreVersion", () => bob.history.restoreVersion.mutate({ id: note.id, version: 1 })],
    ["history.restoreFromTrash", () => bob.history.restoreFromTrash.mutate({ id: trashed.id })],
    ["history.purge", () => bob.history.purge.mutate({ id: trashed.id })],
    ["shares.list", () => bob.shares.list.query({ id: note.id })],
    ["shares.create", () => bob.shares.create.mutate({ id: note.id })],
    ["shares.revoke", () => bob.shares.revoke.mutate({ id: share.id })],
    ["webhooks.get", () => bob.webhooks.get.query({ id: hook.id })],
    ["webhooks.update", () => bob.webhooks.update.mutate({ id: hook.id, url: "https://hooks.example.com/bob" })],
    ["webhooks.test", () => bob.webhooks.test.mutate({ id: hook.id })],
    ["webhooks.deliveries", () => bob.webhooks.deliveries.query({ id: hook.id })],
    ["webhooks.delete", () => bob.webhooks.delete.mutate({ id: hook.id })],
    ["search.related", () => bob.search.related.query({ id: note.id })],
    ["files.get", () => bob.files.get.query({ id: file.id })],
  ];
  const answers: Record<string, string | undefined> = {};
  for (const [name, call] of attempts) answers[name] = (await trpcFailure(call())).code;
  expect(answers).toEqual(Object.fromEntries(attempts.map(([name]) => [name, "NOT_FOUND"])));
  // Bob's own lists show nothing of Alice's.
  expect((await bob.notes.list.query()).total).toBe(0);
  expect((await bob.history.trash.query()).total).toBe(0);
  expect((await bob.webhooks.list.query()).items).toEqual([]);

  expect({
    note: await alice.notes.get.query({ id: note.id }),
    versions: await alice.history.versions.query({ id: note.id }),
    trash: await alice.history.trash.query(),
    shares: await alice.shares.list.query({ id: note.id }),
    hook: await alice.webhooks.get.query({ id: hook.id }),
  }).toEqual(before);
});
