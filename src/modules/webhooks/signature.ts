import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes, as Standard Webhooks' libraries expect. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** A new `webhook-id`: `msg_` + 128 random bits. */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification: `v1,` + base64 of
 * HMAC-SHA256 over `id.timestamp.body`, keyed with the secret's base64-decoded bytes.
 */
export function signDelivery(secret: string, eventId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${eventId}.${timestampSeconds}.${body}`).digest("base64")}`;
}
