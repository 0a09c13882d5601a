// Bytes on disk that no file row claims (a process killed between placing them and writing their
// row, or between deleting the last row and removing them) are removed by the daily sweep once
// they are old enough that no write in progress can own them; claimed bytes are never touched.
import { beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { blobPath, stageBlob, type FileStorage } from "../../../src/modules/files/blob-store";
import { removeUnclaimedBlobs } from "../../../src/modules/files/release-files";
import { storeFile } from "../../../src/modules/files/store-file";
import { createNote } from "../../../src/modules/notes/create-note";
import { sweepUnclaimedBlobs } from "../../../src/modules/files/sweep-unclaimed-blobs";
import { insertUser } from "../../support/graph-seed";
import { imageBytes } from "../../support/images";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
const { dir } = database;
let storage: FileStorage;

beforeAll(async () => {
  storage = { dir: path.join(dir, "files"), maxBytesPerUser: 1024 ** 3 };
});

/** Bytes placed under their address with no row, as a killed writer leaves them. */
async function orphan(seed: number): Promise<string> {
  const staged = await stageBlob(storage.dir, [imageBytes("png", 3000, seed)]);
  await staged.commit();
  await staged.discard();
  return staged.sha256;
}

test("unclaimed bytes older than an hour go; claimed and recent ones stay", async () => {
  const userId = await insertUser(database.db, "sweeper");
  const claimed = await storeFile({ db: database.db, storage }, { userId, body: [imageBytes("png", 3000, 1)] });
  const old = await orphan(2);
  const recent = await orphan(3);
  const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  for (const sha256 of [claimed.sha256, old]) fs.utimesSync(blobPath(storage.dir, sha256), hourAgo, hourAgo);
  // Not a blob: a stray file in a shard and the temporary directory are left alone.
  fs.writeFileSync(path.join(path.dirname(blobPath(storage.dir, old)), "notes.txt"), "keep");

  expect(await sweepUnclaimedBlobs({ db: database.db, storage })).toBe(1);
  expect(fs.existsSync(blobPath(storage.dir, old))).toBe(false);
  expect(fs.existsSync(blobPath(storage.dir, claimed.sha256))).toBe(true);
  expect(fs.existsSync(blobPath(storage.dir, recent))).toBe(true);
  expect(fs.existsSync(path.join(path.dirname(blobPath(storage.dir, old)), "notes.txt"))).toBe(true);
  // The recent one goes once it is old enough.
  expect(await sweepUnclaimedBlobs({ db: database.db, storage }, Date.now() + 2 * 60 * 60 * 1000)).toBe(1);
  expect(fs.existsSync(blobPath(storage.dir, recent))).toBe(false);
  expect(fs.existsSync(blobPath(storage.dir, claimed.sha256))).toBe(true);
});

test("a store that was never written to sweeps nothing", async () => {
  expect(await sweepUnclaimedBlobs({ db: database.db, storage: { dir: path.join(dir, "nothing"), maxBytesPerUser: 1 } })).toBe(0);
});

test("a note written while unclaimed bytes are removed is written once they are, not failed as busy", async () => {
  // The removal holds the write lock; were it to wait on the disk there, the event loop would serve
  // the create meanwhile, whose write waits for that lock synchronously: nothing could finish the
  // removal until the 5 s busy timeout failed the create.
  const userId = await insertUser(database.db, "writer while sweeping");
  const old = await orphan(4);
  const removing = removeUnclaimedBlobs({ db: database.db, storage }, [old]);
  const creating = new Promise((resolve) => setImmediate(resolve)).then(() =>
    createNote({ ctx: { db: database.db, userId }, input: { title: "Written meanwhile", content: "", tags: [] } }),
  );
  const [, note] = await Promise.all([removing, creating]);
  expect(note.title).toBe("Written meanwhile");
  expect(fs.existsSync(blobPath(storage.dir, old))).toBe(false);
});
