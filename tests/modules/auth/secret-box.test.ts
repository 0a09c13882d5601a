import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSecretBox } from "../../../src/modules/auth/secret-box";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-secret-box-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

/** Flips one bit of the decoded ciphertext (or IV) and re-encodes it. */
function tamper(sealed: string, part: 1 | 2): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[part]!, "base64");
  bytes[bytes.length - 1]! ^= 0x01;
  parts[part] = bytes.toString("base64");
  return parts.join(".");
}

describe("sealing secrets", () => {
  test("a sealed secret opens to the original", async () => {
    const box = await createSecretBox({ dataDir: tempDir() });
    expect(await box.open(await box.seal(SECRET))).toBe(SECRET);
    expect(await box.open(await box.seal(""))).toBe("");
    expect(await box.open(await box.seal("ünïcødé 🔑"))).toBe("ünïcødé 🔑");
  });

  test("the sealed form is versioned and hides the plaintext", async () => {
    const box = await createSecretBox({ dataDir: tempDir() });
    const sealed = await box.seal(SECRET);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9+/]+=*\.[A-Za-z0-9+/]+=*$/);
    expect(sealed).not.toContain(SECRET);
    expect(Buffer.from(sealed.split(".")[2]!, "base64").toString("latin1")).not.toContain(SECRET);
  });

  test("sealing the same secret twice gives different outputs (fresh IV)", async () => {
    const box = await createSecretBox({ dataDir: tempDir() });
    expect(await box.seal(SECRET)).not.toBe(await box.seal(SECRET));
  });

  test("a tampered ciphertext or IV is refused", async () => {
    const box = await createSecretBox({ dataDir: tempDir() });
    const sealed = await box.seal(SECRET);
    await expect(box.open(tamper(sealed, 2))).rejects.toThrow();
    await expect(box.open(tamper(sealed, 1))).rejects.toThrow();
  });

  test.each([["v2.AAAA.AAAA"], ["v1.AAAA"], ["plain-text"], [""]])("an unrecognised value %p is refused", async (value) => {
    const box = await createSecretBox({ dataDir: tempDir() });
    await expect(box.open(value)).rejects.toThrow();
  });
});

describe("the key file", () => {
  test("is created under DATA_DIR with mode 0600 and holds 32 bytes", async () => {
    const dir = tempDir();
    await createSecretBox({ dataDir: dir });
    const file = path.join(dir, "secret.key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64").length).toBe(32);
  });

  test("creates a missing DATA_DIR", async () => {
    const dir = path.join(tempDir(), "nested", "data");
    await createSecretBox({ dataDir: dir });
    expect(fs.existsSync(path.join(dir, "secret.key"))).toBe(true);
  });

  test("is reused on the next start: secrets sealed before still open", async () => {
    const dir = tempDir();
    const first = await createSecretBox({ dataDir: dir });
    const keyBefore = fs.readFileSync(path.join(dir, "secret.key"), "utf8");
    const sealed = await first.seal(SECRET);
    const second = await createSecretBox({ dataDir: dir });
    expect(fs.readFileSync(path.join(dir, "secret.key"), "utf8")).toBe(keyBefore);
    expect(await second.open(sealed)).toBe(SECRET);
  });

  test("another data directory has another key", async () => {
    const sealed = await (await createSecretBox({ dataDir: tempDir() })).seal(SECRET);
    await expect((await createSecretBox({ dataDir: tempDir() })).open(sealed)).rejects.toThrow();
  });

  test("a key file that does not hold 32 bytes stops start-up", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "secret.key"), Buffer.alloc(16).toString("base64"));
    await expect(createSecretBox({ dataDir: dir })).rejects.toThrow(/32-byte/);
  });
});

describe("SECRET_KEY", () => {
  const secretKey = "an operator supplied secret key of 32+ chars";

  test("is used instead of a key file", async () => {
    const dir = tempDir();
    const box = await createSecretBox({ secretKey, dataDir: dir });
    expect(await box.open(await box.seal(SECRET))).toBe(SECRET);
    expect(fs.existsSync(path.join(dir, "secret.key"))).toBe(false);
  });

  test("opens what another process with the same key sealed, in any data directory", async () => {
    const sealed = await (await createSecretBox({ secretKey, dataDir: tempDir() })).seal(SECRET);
    expect(await (await createSecretBox({ secretKey, dataDir: tempDir() })).open(sealed)).toBe(SECRET);
  });

  test("a different key, or the key file, cannot open it", async () => {
    const dir = tempDir();
    const sealed = await (await createSecretBox({ secretKey, dataDir: dir })).seal(SECRET);
    await expect((await createSecretBox({ secretKey: `${secretKey}!`, dataDir: dir })).open(sealed)).rejects.toThrow();
    await expect((await createSecretBox({ dataDir: dir })).open(sealed)).rejects.toThrow();
  });
});

describe("keyed hashes", () => {
  test("are HMAC-SHA-256 hex, the same for the same key file across restarts", async () => {
    const dir = tempDir();
    const first = await (await createSecretBox({ dataDir: dir })).keyedHash("abcdefghij");
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await (await createSecretBox({ dataDir: dir })).keyedHash("abcdefghij")).toBe(first);
  });

  test("differ under another key, and from the bare SHA-256", async () => {
    const secretKey = "an operator supplied secret key of 32+ chars";
    const hash = await (await createSecretBox({ secretKey, dataDir: tempDir() })).keyedHash("abcdefghij");
    expect(hash).not.toBe(await (await createSecretBox({ secretKey: `${secretKey}!`, dataDir: tempDir() })).keyedHash("abcdefghij"));
    expect(hash).not.toBe(new Bun.CryptoHasher("sha256").update("abcdefghij").digest("hex"));
  });
});
