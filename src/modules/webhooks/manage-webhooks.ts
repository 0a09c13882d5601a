import { and, asc, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { webhooks } from "../../db/schema";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors";
import type { EventType } from "../events/change";
import type { Credential } from "../tokens/credential";
import { authorizeEvents, settingUpToken } from "./event-scopes";
import * as s from "./schemas";
import { newWebhookSecret } from "./signature";

type Ctx = { db: Database; userId: number };
/** Creating or changing a webhook: what it may carry is checked against this credential, and bound to it. */
type SettingUpCtx = Ctx & { credential: Credential };
type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookRecord = z.infer<typeof s.webhookSchema>;

export function toWebhookRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

/** A new webhook, enabled, bound to the credential that made it (see deliverableWebhook); its secret is in this answer only. */
export async function createWebhook({ ctx, input, now = Date.now() }: { ctx: SettingUpCtx; input: z.infer<typeof s.createWebhookInput>; now?: number }) {
  authorizeEvents(ctx.credential, input.events);
  const secret = newWebhookSecret();
  // Counted and inserted in one statement, so concurrent creations cannot pass the cap together.
  const inserted = await ctx.db.all<{ id: number }>(sql`
    insert into ${webhooks} (user_id, url, events, description, enabled, secret, created_at, updated_at, token_id)
    select ${ctx.userId}, ${input.url}, ${JSON.stringify(input.events)}, ${input.description ?? null}, 1, ${secret}, ${now}, ${now}, ${settingUpToken(ctx.credential)}
    where (select count(*) from ${webhooks} where user_id = ${ctx.userId}) < ${s.MAX_WEBHOOKS_PER_USER}
    returning id`);
  if (inserted.length === 0) {
    throw new ConflictError(`You have ${s.MAX_WEBHOOKS_PER_USER} webhooks, the most an account may hold; delete one first`);
  }
  return { ...toWebhookRecord(await ownWebhook(ctx, inserted[0]!.id)), secret };
}

export async function listWebhooks({ ctx }: { ctx: Ctx }) {
  const rows = await ctx.db.select().from(webhooks).where(eq(webhooks.userId, ctx.userId)).orderBy(asc(webhooks.id));
  return { items: rows.map(toWebhookRecord) };
}

export async function getWebhook({ ctx, input }: { ctx: Ctx; input: { id: number } }): Promise<WebhookRecord> {
  return toWebhookRecord(await ownWebhook(ctx, input.id));
}

/**
 * Omitted fields keep their value; turning it on again clears the failure record, so it gets a
 * fresh 3 days. Any change (a new URL sends the same events elsewhere) needs the scopes of the
 * events it will carry, and binds the webhook to the credential that made it.
 */
export async function updateWebhook({ ctx, input, now = Date.now() }: { ctx: SettingUpCtx; input: z.infer<typeof s.updateWebhookInput>; now?: number }): Promise<WebhookRecord> {
  const { id, url, events, description, enabled } = input;
  if (url === undefined && events === undefined && description === undefined && enabled === undefined) {
    throw new InvalidInputError("Nothing to update: give at least one of url, events, description, enabled");
  }
  // Checked against the events as read, and written only over those: a change by another client in between is read and checked again.
  for (;;) {
    const current = await ownWebhook(ctx, id);
    authorizeEvents(ctx.credential, events ?? (JSON.parse(current.events) as EventType[]));
    const [row] = await ctx.db
      .update(webhooks)
      .set({
        ...(url !== undefined && { url }),
        ...(events !== undefined && { events: JSON.stringify(events) }),
        ...(description !== undefined && { description }),
        ...(enabled !== undefined && { enabled, disabledReason: null, ...(enabled && { failingSince: null }) }),
        tokenId: settingUpToken(ctx.credential),
        updatedAt: now,
      })
      .where(and(eq(webhooks.id, id), eq(webhooks.userId, ctx.userId), eq(webhooks.events, current.events)))
      .returning();
    if (row) return toWebhookRecord(row);
  }
}

/** Its queued deliveries find it gone and stop; its delivery log goes with it. */
export async function deleteWebhook({ ctx, input }: { ctx: Ctx; input: { id: number } }): Promise<void> {
  const deleted = await ctx.db.delete(webhooks).where(and(eq(webhooks.id, input.id), eq(webhooks.userId, ctx.userId))).returning({ id: webhooks.id });
  if (deleted.length === 0) throw new NotFoundError(`Webhook ${input.id}`);
}

/** The user's own webhook; another user's is missing. */
export async function ownWebhook(ctx: Ctx, id: number): Promise<WebhookRow> {
  const [row] = await ctx.db.select().from(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.userId, ctx.userId)));
  if (!row) throw new NotFoundError(`Webhook ${id}`);
  return row;
}
