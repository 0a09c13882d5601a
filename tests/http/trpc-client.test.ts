import { expect, test } from "bun:test";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/root";
import { serverForThisFile } from "../support/server";

const { server } = await serverForThisFile();

function client(token?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) })],
  });
}

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
