import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Libsql from "libsql";
import { holdBackupLock } from "../../src/modules/history/backup-lock";
import { listBackups, restoreBackup, takeBackup, takeDueBackup, type BackupPlace } from "../../src/modules/history/backups";
import { Api } from "../support/api";
import { startFakeEmbeddings, type FakeEmbeddings } from "../support/fake-embeddings";
import { imageBytes } from "../support/images";
import { readLine } from "../support/read-line";
import { startTestServer, type TestServer } from "../support/server";
import { until } from "../support/until";

const ROOT = path.resolve(import.meta.dir, "../..");
let embeddings: FakeEmbeddings;
/** Search by meaning is on: the backups hold its vectors and their DiskANN indexes. */
let MEANING: Record<string, string>;
let server: TestServer;
let api: Api;
let scratch: string;

beforeAll(async () => {
  embeddings = startFakeEmbeddings({ dimensions: 64, dense: true });
  MEANING = { EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed" };
  server = await startTestServer(MEANING);
  api = new Api(server.url);
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-backups-"));
});
afterAll(async () => {
  await server.stop();
  await embeddings.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

function place(name: string, keep = 7): BackupPlace {
  return { dbFile: server.dbFile, filesDir: path.join(server.dataDir, "files"), backupDir: path.join(scratch, name), keep };
}

/** Waits until every one of the user's notes is embedded (the status says so). */
async function embedded(user: Api) {
  return until(
    async () => {
      const status = (await user.get("/api/search/status")).body;
      return status.pending === 0 && status.mode === "hybrid" ? status : null;
    },
    { what: "the user's notes to be embedded", timeoutMs: 30_000, intervalMs: 100 },
  );
}

function integrity(file: string): string {
  const connection = new Libsql(file);
  try {
    return (connection.prepare("PRAGMA integrity_check").raw().all() as string[][]).map((row) => row[0]).join("; ");
  } finally {
    connection.close();
  }
}

describe("backups", () => {
  test("a backup taken while 4 clients write passes integrity_check, and a restore serves every note acknowledged before it began", async () => {
    const { api: user, username, password } = await api.newUser("backup");
    const picture = await user.request("POST", "/api/files", { body: imageBytes("png", 256, 5) as BodyInit, headers: { "content-type": "image/png" } });
    const acknowledged = new Map<number, string>();
    let writing = true;
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let n = 0; writing; n++) {
        const content = `writer ${writer} note ${n} ![p](/api/files/${picture.body.id})`;
        const created = await user.post("/api/notes", { title: `w${writer}-${n}`, content });
        expect(created.status).toBe(201);
        acknowledged.set(created.body.id, content);
      }
    });
    await until(() => acknowledged.size >= 40, { what: "40 notes written", timeoutMs: 30_000 });
    const before = new Map(acknowledged);
    const { dir, manifest } = await takeBackup(place("live"));
    writing = false;
    await Promise.all(writers);
    expect(manifest).toMatchObject({ format: 1, integrity: "ok", files: 1 });
    expect(manifest.notes).toBeGreaterThanOrEqual(before.size);
    expect(fs.existsSync(path.join(dir, "rhizome.db"))).toBe(true);

    const restoredDir = path.join(scratch, "restored");
    restoreBackup(dir, { dbFile: path.join(restoredDir, "rhizome.db"), filesDir: path.join(restoredDir, "files") });
    const restored = await startTestServer({ DATA_DIR: restoredDir, ...MEANING });
    try {
      const client = new Api(restored.url);
      const again = client.withToken(await client.login(username, password));
      for (const [id, content] of before) expect((await again.get(`/api/notes/${id}`)).body.content).toBe(content);
      expect((await again.get(`/api/files/${picture.body.id}`)).status).toBe(200);
    } finally {
      await restored.stop();
    }
  });

  test("with search by meaning on, a backup passes integrity_check, and its restore finds notes by meaning with the vectors and index it kept", async () => {
    const { api: user } = await api.newUser("meaning");
    const car = (await user.post("/api/notes", { title: "Weekend plans", content: "Thinking about purchasing an automobile before the holidays." })).body.id;
    await user.post("/api/notes", { title: "Sourdough", content: "Bake the loaf in a hot oven for forty minutes." });
    await embedded(user);
    const { dir, manifest } = await takeBackup(place("meaning"));
    expect(manifest.integrity).toBe("ok");
    expect(integrity(path.join(dir, "rhizome.db"))).toBe("ok");

    const restoredDir = path.join(scratch, "meaning-restored");
    restoreBackup(dir, { dbFile: path.join(restoredDir, "rhizome.db"), filesDir: path.join(restoredDir, "files") });
    // The DiskANN index came along: asked for the note's own title vector, it names that note.
    const copy = new Libsql(path.join(restoredDir, "rhizome.db"));
    try {
      const [table] = copy.prepare("select table_name from semantic_spaces").raw().get() as [string];
      const nearest = copy
        .prepare(`select t.note_id from vector_top_k('${table}_ann', (select embedding from ${table} where note_id = ? and kind = 'title'), 5) v join ${table} t on t.id = v.id`)
        .raw()
        .all(car) as number[][];
      expect(nearest.map(([noteId]) => noteId)).toContain(car);
    } finally {
      copy.close();
    }
    const embeddedBefore = embeddings.embedded().length;
    const restored = await startTestServer({ DATA_DIR: restoredDir, ...MEANING });
    try {
      const again = new Api(restored.url).withToken(user.token);
      expect((await again.get("/api/search/status")).body).toMatchObject({ mode: "hybrid", notes_total: 2, pending: 0 });
      const found = (await again.get(`/api/notes?q=${encodeURIComponent("buy a car")}&mode=semantic`)).body;
      expect(found.mode).toBe("semantic");
      expect(found.items[0].id).toBe(car);
      // By the vectors the backup kept: the restored service embedded the question, no note again.
      expect(embeddings.embedded().slice(embeddedBefore).filter((text) => text.includes("automobile") || text.includes("loaf"))).toEqual([]);
    } finally {
      await restored.stop();
    }
  });

  test("two backups started at once both succeed, the second taken once the first is done", async () => {
    const together = place("together");
    const taken = await Promise.all([takeBackup(together), takeBackup(together)]);
    const [first, second] = taken.sort((a, b) => a.manifest.created_at.localeCompare(b.manifest.created_at));
    expect(listBackups(together.backupDir)).toEqual([second!.dir, first!.dir]);
    for (const { dir } of taken) expect(integrity(path.join(dir, "rhizome.db"))).toBe("ok");
    // The second began, and took its name, after the first had written its manifest: it waited.
    expect(Date.parse(second!.manifest.created_at)).toBeGreaterThanOrEqual(Math.floor(fs.statSync(path.join(first!.dir, "manifest.json")).mtimeMs));
  });

  test("the scheduled backup that waited for another takes none when that one leaves it not due", async () => {
    const scheduled = place("scheduled");
    const [taken, due] = await Promise.all([takeBackup(scheduled), takeDueBackup(scheduled, 24)]);
    expect(due).toBeNull();
    expect(listBackups(scheduled.backupDir)).toEqual([taken.dir]);
  });

  test("`bun run backup` started while another backup runs says so, waits for it, then takes its own", async () => {
    const backupDir = path.join(scratch, "cli-wait");
    const running = await holdBackupLock(backupDir);
    const environment = { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "", LIBSQL_URL: "", FILES_DIR: "", BACKUP_DIR: backupDir };
    const cli = Bun.spawn([process.execPath, "run", "backup"], { cwd: ROOT, env: environment, stdout: "pipe", stderr: "pipe" });
    let releasedAt: number;
    try {
      expect(await readLine(cli.stdout)).toBe(`Another backup is running in ${backupDir}; this one starts when it ends`);
      expect(listBackups(backupDir)).toEqual([]);
    } finally {
      releasedAt = Date.now();
      running.release();
    }
    expect({ code: await cli.exited, err: (await new Response(cli.stderr).text()).replace(/^\$ .*\n/, "") }).toEqual({ code: 0, err: "" });
    const [made] = listBackups(backupDir);
    expect(Date.parse(JSON.parse(fs.readFileSync(path.join(made!, "manifest.json"), "utf8")).created_at)).toBeGreaterThanOrEqual(releasedAt);
  });

  test("the newest BACKUP_KEEP backups are kept", async () => {
    const rotation = place("rotation", 2);
    for (let n = 0; n < 3; n++) await takeBackup(rotation, { now: new Date(Date.UTC(2026, 0, 1, n)) });
    expect(listBackups(rotation.backupDir).map((dir) => path.basename(dir))).toEqual(["rhizome-20260101T020000000Z", "rhizome-20260101T010000000Z"]);
  });

  test("`bun run backup` works beside the running service, and `bun run restore` into a stopped DATA_DIR", async () => {
    const { api: user } = await api.newUser("backupcli");
    const note = (await user.post("/api/notes", { title: "From the CLI", content: "kept" })).body;
    const backupDir = path.join(scratch, "cli");
    const environment = { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: "", LIBSQL_URL: "", FILES_DIR: "", BACKUP_DIR: backupDir };
    const backup = Bun.spawnSync([process.execPath, "run", "backup"], { cwd: ROOT, env: environment });
    // `bun run` echoes the script's command on stderr; anything else there is a failure.
    expect({ code: backup.exitCode, err: backup.stderr.toString().replace(/^\$ .*\n/, "") }).toEqual({ code: 0, err: "" });
    expect(backup.stdout.toString()).toMatch(/^Backup written to .*: \d+ notes, \d+ files, \d+ bytes; PRAGMA integrity_check ok/);
    const [made] = listBackups(backupDir);

    const target = path.join(scratch, "cli-target");
    const restore = Bun.spawnSync([process.execPath, "run", "restore", made!], { cwd: ROOT, env: { ...environment, DATA_DIR: target, BACKUP_DIR: "" } });
    expect({ code: restore.exitCode, err: restore.stderr.toString().replace(/^\$ .*\n/, "") }).toEqual({ code: 0, err: "" });
    const revived = await startTestServer({ DATA_DIR: target, ...MEANING });
    try {
      const client = new Api(revived.url);
      const { body } = await client.withToken(user.token).get(`/api/notes/${note.id}`);
      // Sessions are in the database too: the same login works on the restored copy.
      expect(body.content).toBe("kept");
    } finally {
      await revived.stop();
    }

    // Into the DATA_DIR of a service that runs (this test's, whose queue is not in that DATA_DIR): refused, nothing replaced.
    const live = Bun.spawnSync([process.execPath, "run", "restore", made!], { cwd: ROOT, env: environment });
    expect(live.exitCode).toBe(2);
    expect(live.stderr.toString()).toContain(`Process ${process.pid} has ${server.dbFile}`);
    expect(fs.readdirSync(server.dataDir).filter((name) => name.includes("before-restore"))).toEqual([]);

    const missing = Bun.spawnSync([process.execPath, "run", "restore", path.join(scratch, "nothing-here")], { cwd: ROOT, env: environment });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.toString()).toContain("is not a backup");
  });
});
