import { createTOTPKeyURI, generateHOTP } from "@oslojs/otp";
import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { constantTimeEqual } from "@oslojs/crypto/subtle";

// RFC 6238 as the contract fixes it: 30 s steps, 6 digits, HMAC-SHA-1, one step of skew either way.
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
const SKEW_STEPS = 1;

/** A new 160-bit secret, base32 as authenticator apps expect it. */
export function generateTotpSecret(): string {
  return encodeBase32UpperCaseNoPadding(crypto.getRandomValues(new Uint8Array(20)));
}

export function totpUri(username: string, secret: string): string {
  return createTOTPKeyURI("Rhizome", username, decodeBase32IgnorePadding(secret), TOTP_PERIOD_SECONDS, TOTP_DIGITS);
}

export function currentTotpStep(now = Date.now()): number {
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The time step a code belongs to, if it matches one within the skew window and is newer than
 * `lastUsedStep` (a code is accepted once, and never one older than the last accepted); else null.
 */
export function matchTotpStep(secret: string, code: string, lastUsedStep: number | null, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = decodeBase32IgnorePadding(secret);
  const expected = new TextEncoder().encode(code);
  const current = currentTotpStep(now);
  for (let step = current - SKEW_STEPS; step <= current + SKEW_STEPS; step++) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue;
    const candidate = new TextEncoder().encode(generateHOTP(key, BigInt(step), TOTP_DIGITS));
    if (constantTimeEqual(candidate, expected)) return step;
  }
  return null;
}

/** The code an authenticator shows at `now`; used by tests and the seed script. */
export function totpCodeAt(secret: string, now = Date.now()): string {
  return generateHOTP(decodeBase32IgnorePadding(secret), BigInt(currentTotpStep(now)), TOTP_DIGITS);
}
