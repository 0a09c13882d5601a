import { createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes, as Standard Webhooks' libraries expect. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** A new `webhook-id`: `msg_` + 128 random bits. */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/** The HMAC key of a secret (its base64-decoded bytes), made once for a run of deliveries to one webhook. */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64"));
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification: `v1,` + base64 of
 * HMAC-SHA256 over `id.timestamp.body`, keyed with the secret's base64-decoded bytes.
 */
export function signDelivery(secret: string | KeyObject, eventId: string, timestampSeconds: number, body: string): string {
  const key = typeof secret === "string" ? signingKey(secret) : secret;
  return `v1,${createHmac("sha256", key).update(`${eventId}.${timestampSeconds}.${body}`).digest("base64")}`;
}
