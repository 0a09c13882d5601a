import { expect } from "bun:test";
import type { Api } from "./api";
import { settleTask } from "./settle-task";

/** POST /api/tasks/archive with a raw ZIP body (the answer is returned, whatever its status). */
export function uploadArchive(client: Api, zip: Uint8Array | string, format?: string) {
  return client.request("POST", `/api/tasks/archive${format ? `?format=${format}` : ""}`, {
    body: zip as BodyInit,
    headers: { "content-type": "application/zip" },
  });
}

/** Uploads an archive (a fresh archive task is answered 201, pending) and waits for its task to end. */
export async function importArchive(client: Api, zip: Uint8Array, format?: string) {
  const created = await uploadArchive(client, zip, format);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ platform: "archive", status: "pending", counts: null, failures: [] });
  return settleTask(client, created.body.id);
}
