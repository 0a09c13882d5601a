// A user's data read back through the REST API, as a client would: every note in full, a stored
// file's bytes, the ZIP export.
import { expect } from "bun:test";
import { unzipSync } from "fflate";
import type { Api } from "./api";

/** Every note of the user, each as GET /api/notes/{id} returns it, by id. */
export async function allNotes(client: Api): Promise<any[]> {
  const notes = [];
  for (let page = 1; ; page++) {
    const { body } = await client.get(`/api/notes?size=100&page=${page}`);
    for (const item of body.items) notes.push((await client.get(`/api/notes/${item.id}`)).body);
    if (page >= body.pages) return notes.sort((a, b) => a.id - b.id);
  }
}

/** The bytes of a stored file (`/api/files/{id}`), which must answer 200. */
export async function fileBytes(client: Api, url: string): Promise<Uint8Array> {
  const response = await fetch(`${client.baseUrl}${url}`, { headers: { authorization: `Bearer ${client.token}` } });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** POST /api/notes/export with `body` (none: an empty request); `files` are the ZIP's entries when it answered 200. */
export async function exportZip(client: Api, body?: unknown): Promise<{ response: Response; bytes: Uint8Array; files: Record<string, Uint8Array> }> {
  const response = await fetch(`${client.baseUrl}/api/notes/export`, {
    method: "POST",
    headers: { authorization: `Bearer ${client.token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { response, bytes, files: response.status === 200 ? unzipSync(bytes) : {} };
}
