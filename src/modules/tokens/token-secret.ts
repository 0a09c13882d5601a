import { createHash } from "node:crypto";

export const TOKEN_PREFIX = "rhz_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 32 base62 characters: 190 random bits, over the contract's 160. */
const SECRET_LENGTH = 32;
/** The characters after `rhz_` a list shows, so a person can tell tokens apart. */
const SHOWN_LENGTH = 8;

/** `rhz_` and 32 base62 characters, each drawn without modulo bias (bytes of 248 and over are redrawn). */
export function generateAccessToken(): string {
  let secret = "";
  while (secret.length < SECRET_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(SECRET_LENGTH))) {
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  return TOKEN_PREFIX + secret;
}

export function isAccessToken(token: string): boolean {
  return token.startsWith(TOKEN_PREFIX);
}

export function accessTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function shownPrefix(token: string): string {
  return token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + SHOWN_LENGTH);
}
