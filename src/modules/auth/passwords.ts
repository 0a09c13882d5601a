// argon2id at OWASP's minimum (19 MiB, t=2, p=1); Bun.password runs it off the main thread.
const ARGON2 = { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 } as const;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, ARGON2);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}

// Made once at start-up, so even the first unknown-user login costs no more than a real check.
const dummyHash = hashPassword(crypto.randomUUID());

/** Spends the same time as a real check, so an unknown username cannot be told apart by timing. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, await dummyHash);
  return false;
}
