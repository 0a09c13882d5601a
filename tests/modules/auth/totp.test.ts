import { describe, expect, test } from "bun:test";
import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { currentTotpStep, generateTotpSecret, matchTotpStep, totpCodeAt, totpUri } from "../../../src/modules/auth/totp";

const STEP_MS = 30_000;
// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890".
const RFC_SECRET = encodeBase32UpperCaseNoPadding(new TextEncoder().encode("12345678901234567890"));

/** A fixed "now" in the middle of a time step, and the code of any step relative to it. */
const NOW = 1_795_000_015_000;
const STEP = currentTotpStep(NOW);
const codeAtOffset = (secret: string, offset: number) => totpCodeAt(secret, (STEP + offset) * STEP_MS);

/** A secret whose codes for the steps around NOW are all different, so no window edge is ambiguous. */
function distinctSecret(): string {
  for (;;) {
    const secret = generateTotpSecret();
    const codes = [-3, -2, -1, 0, 1, 2, 3].map((offset) => codeAtOffset(secret, offset));
    if (new Set(codes).size === codes.length) return secret;
  }
}

describe("RFC 6238 SHA-1 test vectors, truncated to 6 digits", () => {
  // The 8-digit values of appendix B modulo 10^6: the same HMAC and dynamic truncation.
  test.each([
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ])("at T=%p s the code is the last 6 digits of %p", (seconds, eightDigits) => {
    expect(totpCodeAt(RFC_SECRET, seconds * 1000)).toBe(eightDigits.slice(-6));
  });

  test("matchTotpStep accepts the RFC code and names its step", () => {
    expect(matchTotpStep(RFC_SECRET, "287082", null, 59_000)).toBe(1);
  });
});

describe("matchTotpStep", () => {
  const secret = distinctSecret();

  test("accepts the current code and one step either side, returning that step", () => {
    expect(matchTotpStep(secret, codeAtOffset(secret, 0), null, NOW)).toBe(STEP);
    expect(matchTotpStep(secret, codeAtOffset(secret, -1), null, NOW)).toBe(STEP - 1);
    expect(matchTotpStep(secret, codeAtOffset(secret, 1), null, NOW)).toBe(STEP + 1);
  });

  test("refuses codes two or more steps away", () => {
    for (const offset of [-3, -2, 2, 3]) expect(matchTotpStep(secret, codeAtOffset(secret, offset), null, NOW)).toBeNull();
  });

  test("a code from 30 s ago is accepted and one from 60 s ago is refused", () => {
    expect(matchTotpStep(secret, totpCodeAt(secret, NOW - 30_000), null, NOW)).toBe(STEP - 1);
    expect(matchTotpStep(secret, totpCodeAt(secret, NOW - 60_000), null, NOW)).toBeNull();
  });

  test("refuses the step already used and any older one", () => {
    expect(matchTotpStep(secret, codeAtOffset(secret, 0), STEP, NOW)).toBeNull();
    expect(matchTotpStep(secret, codeAtOffset(secret, -1), STEP, NOW)).toBeNull();
    expect(matchTotpStep(secret, codeAtOffset(secret, -1), STEP - 1, NOW)).toBeNull();
  });

  test("accepts a newer step than the last used one", () => {
    expect(matchTotpStep(secret, codeAtOffset(secret, 1), STEP, NOW)).toBe(STEP + 1);
    expect(matchTotpStep(secret, codeAtOffset(secret, 0), STEP - 1, NOW)).toBe(STEP);
  });

  test("after the next step was used, nothing in the window is left", () => {
    for (const offset of [-1, 0, 1]) expect(matchTotpStep(secret, codeAtOffset(secret, offset), STEP + 1, NOW)).toBeNull();
  });

  test.each([["12345"], ["1234567"], ["12345a"], [" 123456"], ["abcde-fghij"], [""]])("refuses the malformed code %p", (code) => {
    expect(matchTotpStep(secret, code, null, NOW)).toBeNull();
  });

  test("a code for another secret is refused", () => {
    const other = distinctSecret();
    const code = codeAtOffset(other, 0);
    const ownCodes = [-1, 0, 1].map((offset) => codeAtOffset(secret, offset));
    if (!ownCodes.includes(code)) expect(matchTotpStep(secret, code, null, NOW)).toBeNull();
  });
});

describe("secrets and URIs", () => {
  test("a secret is 160 random bits in upper-case base32", () => {
    const secrets = Array.from({ length: 20 }, generateTotpSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(decodeBase32IgnorePadding(secret).length).toBe(20);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  test("the otpauth URI names the issuer and account and carries the secret", () => {
    const secret = generateTotpSecret();
    const uri = totpUri("ada.l-ovelace_1", secret);
    expect(uri.startsWith("otpauth://totp/Rhizome:ada.l-ovelace_1?")).toBe(true);
    const params = new URLSearchParams(uri.split("?")[1]);
    expect(params.get("secret")).toBe(secret);
    expect(params.get("issuer")).toBe("Rhizome");
    expect(params.get("algorithm")).toBe("SHA1");
    expect(params.get("digits")).toBe("6");
    expect(params.get("period")).toBe("30");
  });

  test("totpCodeAt gives 6 digits, the same within a step and different across steps", () => {
    const secret = distinctSecret();
    const start = STEP * STEP_MS;
    expect(totpCodeAt(secret, start)).toMatch(/^\d{6}$/);
    expect(totpCodeAt(secret, start + STEP_MS - 1)).toBe(totpCodeAt(secret, start));
    expect(totpCodeAt(secret, start + STEP_MS)).not.toBe(totpCodeAt(secret, start));
  });
});
