import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import Libsql from "libsql";
import { holdBackupLock } from "../../src/modules/history/backup-lock";
import { listBackups, takeBackup, takeDueBackup, type BackupPlace } from "../../src/modules/history/backups";
import { restoreBackup } from "../../src/modules/history/restore-backup";
import { Api } from "../support/api";
import { awaitEmbedded as embedded } from "../support/await-embedded";
import { startFakeEmbeddings } from "../support/fake-embeddings";
import { imageBytes } from "../support/images";
import { readLine } from "../support/read-line";
import { sha256Hex } from "../support/sha256";
import { serverForThisFile, startTestServer } from "../support/server";
import { directoryForThisFile } from "../support/temporary-directory";
import { until } from "../support/until";

const ROOT = path.resolve(import.meta.dir, "../..");
const embeddings = startFakeEmbeddings({ dimensions: 64, dense: true });
afterAll(() => embeddings.stop());
/** Search by meaning is on: the backups hold its vectors and their DiskANN indexes. */
const MEANING: Record<string, string> = { EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed" };
const { server, api } = await serverForThisFile(MEANING);
const scratch = directoryForThisFile("rhizome-backups-");

function place(name: string, keep = 7): BackupPlace {
  return { dbFile: server.dbFile, filesDir: path.join(server.dataDir, "files"), backupDir: path.join(scratch, name), keep };
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

  test("a scheduled backup waiting for another stops waiting when its job is stopped", async () => {
    const stopping = place("stopping");
    const running = await holdBackupLock(stopping.backupDir);
    const job = new AbortController();
    const waiting = takeDueBackup(stopping, 24, job.signal);
    job.abort(new Error("the worker stops"));
    running.release();
    await expect(waiting).rejects.toThrow("the worker stops");
    expect(listBackups(stopping.backupDir)).toEqual([]);
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

  test("a backup can be entered by the service's user only, and its database read by it only", async () => {
    const { dir } = await takeBackup(place("private"));
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, "rhizome.db")).mode & 0o777).toBe(0o600);
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

describe("a restore from a hostile backup is refused with the reason, and DATA_DIR stays as it was", () => {
  const picture = imageBytes("png", 300, 11);
  /** A stored file the genuine backup holds, by its SHA-256. */
  const stored = sha256Hex(picture);
  let genuine: string;
  /** A file outside every backup, that a hostile one points at. */
  let outside: string;
  let installed: string;

  beforeAll(async () => {
    const { api: user } = await api.newUser("hostile");
    expect((await user.request("POST", "/api/files", { body: picture as BodyInit, headers: { "content-type": "image/png" } })).status).toBe(201);
    genuine = (await takeBackup(place("genuine"))).dir;
    expect(fs.existsSync(path.join(genuine, "files", stored.slice(0, 2), stored))).toBe(true);
    outside = path.join(scratch, "outside");
    fs.mkdirSync(path.join(outside, stored.slice(0, 2)), { recursive: true });
    fs.writeFileSync(path.join(outside, "secret.txt"), "not for any backup");
    fs.writeFileSync(path.join(outside, stored.slice(0, 2), stored), "not for any backup");
    // An installation to restore over: a database, and a store holding another file.
    installed = path.join(scratch, "installed");
    fs.mkdirSync(path.join(installed, "files", "00"), { recursive: true });
    fs.copyFileSync(path.join(genuine, "rhizome.db"), path.join(installed, "rhizome.db"));
    fs.writeFileSync(path.join(installed, "files", "00", sha256Hex("other")), "other");
  });

  /** Every entry under `dir` (with its bytes' SHA-256, or a link's target), or null when there is no `dir`. */
  function contents(dir: string): Record<string, string> | null {
    if (!fs.existsSync(dir)) return null;
    const found: Record<string, string> = {};
    for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
      const entry = path.join(dir, name);
      const stat = fs.lstatSync(entry);
      found[name] = stat.isSymbolicLink() ? `-> ${fs.readlinkSync(entry)}` : stat.isDirectory() ? "dir" : sha256Hex(fs.readFileSync(entry));
    }
    return found;
  }

  /** A copy of the genuine backup, changed by `tamper`. */
  function hostile(name: string, tamper: (dir: string) => void): string {
    const dir = path.join(scratch, "hostile", name);
    fs.cpSync(genuine, dir, { recursive: true });
    tamper(dir);
    return dir;
  }

  const storedFile = (dir: string) => path.join(dir, "files", stored.slice(0, 2), stored);

  const cases: [string, (dir: string) => void, string][] = [
    ["its manifest is not a backup's", (dir) => fs.writeFileSync(path.join(dir, "manifest.json"), '{"format": 2}'), "its manifest.json is not a backup's manifest"],
    ["its database is not a SQLite file", (dir) => fs.writeFileSync(path.join(dir, "rhizome.db"), "<html>not a database</html>\n".repeat(200)), "its rhizome.db is not a SQLite database"],
    [
      "its database fails PRAGMA integrity_check",
      (dir) => {
        const file = path.join(dir, "rhizome.db");
        const connection = new Libsql(file);
        const [pageSize] = connection.prepare("PRAGMA page_size").raw().get() as [number];
        const [root] = connection.prepare("select rootpage from sqlite_schema where type = 'index' and name = 'notes_user_id_idx'").raw().get() as [number];
        connection.close();
        const fd = fs.openSync(file, "r+");
        fs.writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (root - 1) * pageSize);
        fs.closeSync(fd);
      },
      "its rhizome.db is not a sound notes database: the snapshot failed PRAGMA integrity_check",
    ],
    ["its database is a symbolic link to another", (dir) => (fs.rmSync(path.join(dir, "rhizome.db")), fs.symlinkSync(server.dbFile, path.join(dir, "rhizome.db"))), "its rhizome.db is not a plain file"],
    ["a stored file is a symbolic link out of the files", (dir) => (fs.rmSync(storedFile(dir)), fs.symlinkSync(path.join(outside, "secret.txt"), storedFile(dir))), `files/${stored.slice(0, 2)}/${stored} is not a plain file`],
    [
      "a directory of stored files is a symbolic link out of the files",
      (dir) => (fs.rmSync(path.dirname(storedFile(dir)), { recursive: true }), fs.symlinkSync(path.join(outside, stored.slice(0, 2)), path.dirname(storedFile(dir)))),
      `files/${stored.slice(0, 2)} is not a directory of stored files`,
    ],
    ["a name in the files is not a stored file's", (dir) => fs.writeFileSync(path.join(path.dirname(storedFile(dir)), "..%2f..%2frhizome.db"), "x"), "is not named as a stored file is"],
    ["a stored file holds other bytes than its name says", (dir) => fs.writeFileSync(storedFile(dir), "swapped"), `files/${stored.slice(0, 2)}/${stored} does not hold what its name says`],
    ["a stored file its notes show is missing", (dir) => fs.rmSync(storedFile(dir)), `its notes show 1 stored file(s) it does not hold, e.g. files/${stored.slice(0, 2)}/${stored}`],
  ];

  for (const [what, tamper, reason] of cases) {
    test(`${what}: refused over an installation and into an empty DATA_DIR`, () => {
      const backup = hostile(what.replace(/\W+/g, "-"), tamper);
      const before = contents(installed);
      expect(() => restoreBackup(backup, { dbFile: path.join(installed, "rhizome.db"), filesDir: path.join(installed, "files") })).toThrow(reason);
      expect(contents(installed)).toEqual(before);
      const empty = path.join(scratch, "empty-data-dir");
      expect(() => restoreBackup(backup, { dbFile: path.join(empty, "rhizome.db"), filesDir: path.join(empty, "files") })).toThrow(reason);
      expect(fs.existsSync(empty)).toBe(false);
    });
  }

  test("`bun run restore` names the reason and says nothing was changed", () => {
    const backup = hostile("cli", (dir) => fs.writeFileSync(path.join(dir, "rhizome.db"), "not a database"));
    const target = path.join(scratch, "cli-hostile-target");
    const restore = Bun.spawnSync([process.execPath, "run", "restore", backup], { cwd: ROOT, env: { ...process.env, DATA_DIR: target, DATABASE_URL: "", LIBSQL_URL: "", FILES_DIR: "", BACKUP_DIR: "" } });
    expect(restore.exitCode).toBe(1);
    expect(restore.stderr.toString()).toContain(`The backup ${backup} is refused, and nothing was changed: its rhizome.db is not a SQLite database`);
    expect(fs.existsSync(target)).toBe(false);
  });
});
