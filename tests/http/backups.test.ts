import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { listBackups, restoreBackup, takeBackup } from "../../src/modules/history/backups";
import { Api } from "../support/api";
import { imageBytes } from "../support/images";
import { serverForThisFile, startTestServer } from "../support/server";
import { directoryForThisFile } from "../support/temporary-directory";
import { until } from "../support/until";

const ROOT = path.resolve(import.meta.dir, "../..");
const { server, api } = await serverForThisFile();
const scratch = directoryForThisFile("rhizome-backups-");

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
    const backupDir = path.join(scratch, "live");
    const { dir, manifest } = await takeBackup({ dbFile: server.dbFile, filesDir: path.join(server.dataDir, "files"), backupDir, keep: 7 });
    writing = false;
    await Promise.all(writers);
    expect(manifest).toMatchObject({ format: 1, integrity: "ok", files: 1 });
    expect(manifest.notes).toBeGreaterThanOrEqual(before.size);
    expect(fs.existsSync(path.join(dir, "rhizome.db"))).toBe(true);

    const restoredDir = path.join(scratch, "restored");
    await restoreBackup(dir, { dbFile: path.join(restoredDir, "rhizome.db"), filesDir: path.join(restoredDir, "files") });
    const restored = await startTestServer({ DATA_DIR: restoredDir });
    try {
      const client = new Api(restored.url);
      const again = client.withToken(await client.login(username, password));
      for (const [id, content] of before) expect((await again.get(`/api/notes/${id}`)).body.content).toBe(content);
      expect((await again.get(`/api/files/${picture.body.id}`)).status).toBe(200);
    } finally {
      await restored.stop();
    }
  });

  test("the newest BACKUP_KEEP backups are kept", async () => {
    const backupDir = path.join(scratch, "rotation");
    for (let n = 0; n < 3; n++) await takeBackup({ dbFile: server.dbFile, filesDir: path.join(server.dataDir, "files"), backupDir, keep: 2 }, new Date(Date.UTC(2026, 0, 1, n)));
    expect(listBackups(backupDir).map((dir) => path.basename(dir))).toEqual(["rhizome-20260101T020000000Z", "rhizome-20260101T010000000Z"]);
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
    const revived = await startTestServer({ DATA_DIR: target });
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
