import fs from "node:fs";
import path from "node:path";
import { decodeBase64, encodeBase64, encodeHexLowerCase } from "@oslojs/encoding";

const KEY_FILE = "secret.key";

/**
 * The server's secret key at work, so a copied database hands out nothing: AES-256-GCM sealing of small secrets
 * (TOTP keys) and a keyed hash of short ones that are only ever compared (recovery codes).
 */
export interface SecretBox {
  seal(plaintext: string): Promise<string>;
  open(sealed: string): Promise<string>;
  /** HMAC-SHA-256, hex: without the key, a stolen hash cannot be searched offline however short the input. */
  keyedHash(value: string): Promise<string>;
}

/**
 * The key comes from SECRET_KEY (any ≥32-character string, stretched with HKDF) or from a random
 * key file created under DATA_DIR on first start and reused afterwards.
 */
export async function createSecretBox(options: { secretKey?: string; dataDir: string }): Promise<SecretBox> {
  const material = new Uint8Array(options.secretKey ? new TextEncoder().encode(options.secretKey) : readOrCreateKeyFile(options.dataDir));
  const base = await crypto.subtle.importKey("raw", material, "HKDF", false, ["deriveKey"]);
  // One key per use, each derived with its own label, so neither can stand in for the other.
  const derive = (label: string, algorithm: AesKeyAlgorithm | HmacImportParams, usages: KeyUsage[]) =>
    crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: new TextEncoder().encode(label) },
      base,
      algorithm,
      false,
      usages,
    );
  const key = await derive("rhizome/secret-box/v1", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
  const hashKey = await derive("rhizome/keyed-hash/v1", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);
  return {
    async seal(plaintext) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)));
      return `v1.${encodeBase64(iv)}.${encodeBase64(sealed)}`;
    },
    async open(value) {
      const [version, iv, sealed] = value.split(".");
      if (version !== "v1" || !iv || !sealed) throw new Error("unrecognised sealed secret");
      const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(decodeBase64(iv)) }, key, new Uint8Array(decodeBase64(sealed)));
      return new TextDecoder().decode(plain);
    },
    async keyedHash(value) {
      return encodeHexLowerCase(new Uint8Array(await crypto.subtle.sign("HMAC", hashKey, new TextEncoder().encode(value))));
    },
  };
}

function readOrCreateKeyFile(dataDir: string): Uint8Array {
  const file = path.join(dataDir, KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // "wx" fails if another process created the file first; then we read theirs.
    fs.writeFileSync(file, encodeBase64(crypto.getRandomValues(new Uint8Array(32))) + "\n", { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const key = decodeBase64(fs.readFileSync(file, "utf8").trim());
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}
