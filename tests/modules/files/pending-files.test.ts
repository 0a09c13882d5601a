// An import's pictures are rows pending for its task until the note claims them: a retry reuses
// them, a task that ends without its note drops them (and their bytes), and a picture some note
// already names is never dropped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { blobPath, type FileStorage } from "../../../src/modules/files/blob-store";
import { releasePendingFiles } from "../../../src/modules/files/release-files";
import { storeFile } from "../../../src/modules/files/store-file";
import { markTaskFailed } from "../../../src/modules/imports/run-import";
import { createSafeDownloader } from "../../../src/modules/imports/safe-fetch/download-file";
import { storeNoteImages } from "../../../src/modules/imports/store-images";
import { unheardChanges } from "../../support/changes";
import { insertNote, insertUser } from "../../support/graph-seed";
import { imageBytes } from "../../support/images";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const host = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) => new Response(imageBytes("png", 5000, Number(new URL(request.url).pathname.replace(/\D/g, "")) || 1)),
});
const origin = `http://127.0.0.1:${host.port}`;
const download = createSafeDownloader({ allowPrivateNetworks: true });

const database = await notesDatabaseForThisFile();
const { dir } = database;
let storage: FileStorage;
let userId: number;

beforeAll(async () => {
  storage = { dir: path.join(dir, "files"), maxBytesPerUser: 1024 ** 3 };
  userId = await insertUser(database.db, "pending");
});
afterAll(() => {
  host.stop(true);
});

async function runningTask(): Promise<number> {
  const row = await database.db.get<{ id: number }>(
    sql`insert into import_tasks (user_id, platform, status, message, created_at, updated_at) values (${userId}, 'web', 'running', 'Storing', 0, 0) returning id`,
  );
  return row.id;
}

const store = (taskId: number, markdown: string) =>
  storeNoteImages({ db: database.db, storage, download, userId, taskId, referer: undefined, signal: new AbortController().signal }, markdown);

const rows = () => database.db.all<{ id: number; sha256: string; pending_task_id: number | null }>(sql`select id, sha256, pending_task_id from files order by id`);

describe("pictures pending for their import", () => {
  test("a retry of the task reuses them; a task that fails without its note drops the rows and the bytes", async () => {
    const taskId = await runningTask();
    const markdown = `![](${origin}/p11.png) ![](${origin}/p12.png)`;
    const first = await store(taskId, markdown);
    expect((await rows()).map((row) => row.pending_task_id)).toEqual([taskId, taskId]);
    // The worker died after storing them; the retry stores the same pictures again.
    const retry = await store(taskId, markdown);
    expect(retry.fileIds).toEqual(first.fileIds);
    expect(await rows()).toHaveLength(2);
    const hashes = (await rows()).map((row) => row.sha256);

    await markTaskFailed(database.db, taskId, "gave up", unheardChanges, storage);
    expect(await rows()).toEqual([]);
    for (const sha256 of hashes) expect(fs.existsSync(blobPath(storage.dir, sha256))).toBe(false);
  });

  test("a picture pending for a failing import is kept when another import or an upload takes it meanwhile", async () => {
    const failing = await runningTask();
    const other = await runningTask();
    const first = await store(failing, `![](${origin}/p31.png) ![](${origin}/p32.png)`);
    const taken = await store(other, `![](${origin}/p31.png)`);
    expect(taken.fileIds).toEqual([first.fileIds[0]!]);
    const uploaded = await storeFile({ db: database.db, storage }, { userId, body: [imageBytes("png", 5000, 32)] });
    expect(uploaded.id).toBe(first.fileIds[1]!);
    await markTaskFailed(database.db, failing, "gave up", unheardChanges, storage);
    const left = await database.db.all<{ id: number; pending_task_id: number | null }>(sql`select id, pending_task_id from files where id in (${first.fileIds[0]!}, ${first.fileIds[1]!}) order by id`);
    expect(left).toEqual([
      { id: first.fileIds[0]!, pending_task_id: other },
      { id: first.fileIds[1]!, pending_task_id: null },
    ]);
    await releasePendingFiles({ db: database.db, storage }, other);
  });

  test("a pending picture that a note already names is kept", async () => {
    const taskId = await runningTask();
    const stored = await store(taskId, `![](${origin}/p21.png) ![](${origin}/p22.png)`);
    const [named, unnamed] = stored.fileIds as [number, number];
    await insertNote(database.db, userId, { title: "Another import's note", content: `![](/api/files/${named})` });
    await releasePendingFiles({ db: database.db, storage }, taskId);
    expect((await rows()).map((row) => row.id).filter((id) => id === named || id === unnamed)).toEqual([named]);
    expect(unnamed).not.toBe(named);
  });
});
