import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { BlobTooLargeError, blobPath, stageBlob, sweepStaleTemps } from "../../../src/modules/files/blob-store";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-blobs-");

async function* chunks(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

describe("the blob store", () => {
  test("a staged blob is hashed as it streams and appears under its address only when committed", async () => {
    const staged = await stageBlob(dir, chunks("hello ", "world"));
    expect(staged.sha256).toBe(createHash("sha256").update("hello world").digest("hex"));
    expect(staged.size).toBe(11);
    expect(Buffer.from(staged.head).toString()).toBe("hello world");
    expect(fs.existsSync(blobPath(dir, staged.sha256))).toBe(false);
    await staged.commit();
    expect(fs.readFileSync(blobPath(dir, staged.sha256), "utf8")).toBe("hello world");
    // Removed meanwhile (a concurrent delete): committing again, as a writer does after its row, restores it.
    fs.rmSync(blobPath(dir, staged.sha256));
    await staged.commit();
    expect(fs.readFileSync(blobPath(dir, staged.sha256), "utf8")).toBe("hello world");
    await staged.discard();
    expect(fs.readdirSync(path.join(dir, "tmp"))).toEqual([]);
    // The same bytes again: the stored file stays, the temporary one goes.
    const again = await stageBlob(dir, chunks("hello world"));
    await again.commit();
    await again.discard();
    expect(fs.readdirSync(path.join(dir, "tmp"))).toEqual([]);
    expect(fs.readFileSync(blobPath(dir, staged.sha256), "utf8")).toBe("hello world");
  });

  test("past the limit it stops reading and leaves nothing behind", async () => {
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled++;
        yield new Uint8Array(1024);
      }
    }
    await expect(stageBlob(dir, endless(), 4096)).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(pulled).toBe(5);
    expect(fs.readdirSync(path.join(dir, "tmp"))).toEqual([]);
  });

  test("the sweep removes what dead processes left, and never a live writer's file", async () => {
    const tmp = path.join(dir, "tmp");
    fs.writeFileSync(path.join(tmp, "999999999-dead"), "half");
    fs.writeFileSync(path.join(tmp, `${process.pid}-mine`), "in progress");
    const old = path.join(tmp, `${process.ppid}-old`);
    fs.writeFileSync(old, "left for hours");
    const hoursAgo = new Date(Date.now() - 3 * 60 * 60 * 1000);
    fs.utimesSync(old, hoursAgo, hoursAgo);
    expect(await sweepStaleTemps(dir)).toBe(2);
    expect(fs.readdirSync(tmp)).toEqual([`${process.pid}-mine`]);
    fs.rmSync(path.join(tmp, `${process.pid}-mine`));
  });
});
