import { sha256 } from "@oslojs/crypto/sha2";
import { constantTimeEqual } from "@oslojs/crypto/subtle";
import { encodeBase64urlNoPadding, encodeHexLowerCase } from "@oslojs/encoding";

const encoder = new TextEncoder();

/** A prefix and 256 random bits, base64url: codes, refresh tokens, page logins, CSRF tokens. */
export function randomSecret(prefix = ""): string {
  return prefix + encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)));
}

/** What the database keeps of a secret. */
export function secretHash(secret: string): string {
  return encodeHexLowerCase(sha256(encoder.encode(secret)));
}

export function sameSecret(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && constantTimeEqual(left, right);
}

/** RFC 7636 S256: the challenge is base64url(SHA-256(verifier)) without padding. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return sameSecret(encodeBase64urlNoPadding(sha256(encoder.encode(verifier))), challenge);
}

/** RFC 7636 section 4.1: 43..128 unreserved characters (a challenge of S256 is 43 of base64url). */
export const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
export const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
