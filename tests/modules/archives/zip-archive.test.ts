import { expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { BrokenArchiveError, ZipArchive } from "../../../src/modules/archives/zip-archive";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-zip-");

test("every entry reads back exactly, small ones sharing a cached block and large ones across and past it", async () => {
  const files: Record<string, Uint8Array> = {};
  let seed = 7;
  const noise = (length: number) => Uint8Array.from({ length }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24));
  for (let index = 0; index < 400; index++) files[`notes/${index}.md`] = strToU8(`# Note ${index}\n\n${"words ".repeat(index % 50)}`);
  files["big/stored.bin"] = noise(200 * 1024);
  files["big/compressible.md"] = strToU8("line of text\n".repeat(30_000));
  for (let index = 400; index < 600; index++) files[`notes/${index}.md`] = strToU8(`after the big ones ${index}`);
  const file = path.join(dir, "vault.zip");
  fs.writeFileSync(file, zipSync(files, { level: 6 }));

  const zip = await ZipArchive.open(file);
  const seen = new Map<string, Uint8Array>();
  try {
    for await (const entry of zip.entries()) seen.set(entry.name, await zip.read(entry, 10 * 1024 * 1024));
  } finally {
    zip.close();
  }
  expect([...seen.keys()].sort()).toEqual(Object.keys(files).sort());
  for (const [name, bytes] of Object.entries(files)) expect(Buffer.compare(Buffer.from(seen.get(name)!), Buffer.from(bytes))).toBe(0);
});

test("a truncated archive is a BrokenArchiveError, not a crash", async () => {
  const whole = zipSync({ "a.md": strToU8("a".repeat(100_000)), "b.md": strToU8("b") }, { level: 0 });
  const file = path.join(dir, "truncated.zip");
  fs.writeFileSync(file, whole.subarray(0, 50_000));
  await expect(ZipArchive.open(file)).rejects.toBeInstanceOf(BrokenArchiveError);
});
