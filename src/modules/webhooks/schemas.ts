import { z } from "zod";
import { EVENT_TYPES } from "../events/change";
import { noteIdSchema, pageEnvelope, pageQuery } from "../notes/schemas";

export const MAX_WEBHOOKS_PER_USER = 20;
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_UNITS = 500;

export const webhookIdSchema = noteIdSchema;
export const webhookIdInput = z.object({ id: webhookIdSchema });

export const eventTypeSchema = z.enum(EVENT_TYPES).meta({
  id: "WebhookEventType",
  description: "A change other systems can subscribe to; `webhook.test` is sent only by `POST /api/webhooks/{id}/test`",
});

const urlSchema = z
  .url({ protocol: /^https?$/, error: "Must be an http(s) URL, e.g. https://hooks.example.com/rhizome" })
  .max(MAX_URL_LENGTH)
  .refine((url) => {
    if (!URL.canParse(url)) return true; // the URL check above has said so
    const parsed = new URL(url);
    return !parsed.username && !parsed.password;
  }, "A webhook URL may not carry a user name or password")
  .describe("Where deliveries are POSTed: public addresses on the default ports or 8080/8443 unless the operator sets IMPORT_ALLOW_PRIVATE_NETWORKS (checked at each delivery)")
  .meta({ example: "https://hooks.example.com/rhizome" });

const eventsSchema = z
  .array(eventTypeSchema)
  .min(1, "Subscribe to at least one event")
  .max(EVENT_TYPES.length * 4)
  .transform((events) => [...new Set(events)])
  .meta({ example: ["note.created", "note.updated"] });

const descriptionSchema = z
  .string()
  .trim()
  .refine((text) => text.length <= MAX_DESCRIPTION_UNITS, `Too big: expected at most ${MAX_DESCRIPTION_UNITS} UTF-16 code units`)
  .nullable()
  .meta({ maxLength: MAX_DESCRIPTION_UNITS, description: "What it is for, for you; at most 500 characters" });

export const createWebhookInput = z.object({ url: urlSchema, events: eventsSchema, description: descriptionSchema.optional() });

export const updateWebhookInput = z.object({
  id: webhookIdSchema,
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
  description: descriptionSchema.optional(),
  enabled: z.boolean().optional().describe("false pauses deliveries; true turns a paused or auto-disabled webhook back on"),
});

export const webhookSchema = z
  .object({
    id: z.number().int().positive(),
    url: z.string(),
    events: z.array(eventTypeSchema),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe("Why the service turned it off (3 days of failed deliveries, or the access token that set it up was revoked or expired); null otherwise"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Webhook" });

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z.string().describe("`whsec_` + base64: the signing key of the Standard Webhooks signature; shown only in this answer"),
  })
  .meta({ id: "CreatedWebhook" });

export const webhookListSchema = z.object({ items: z.array(webhookSchema) }).meta({ id: "WebhookList" });

export const deliveriesInput = z.object({ id: webhookIdSchema, ...pageQuery });

export const deliverySchema = z
  .object({
    id: z.number().int().positive(),
    event_id: z.string().describe("The `webhook-id` header: the same on every attempt of one event"),
    type: z.string().describe("The event type, or `webhook.test`"),
    attempt: z.number().int().positive(),
    status_code: z.number().int().nullable().describe("The receiver's HTTP status; null when there was no answer"),
    duration_ms: z.number().int().min(0),
    error: z.string().nullable().describe("Why the attempt failed (`timeout after 10 s`, `blocked address 127.0.0.1`, `HTTP 500`, …); null on success"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "WebhookDelivery" });

export const deliveryPageSchema = pageEnvelope(deliverySchema, "WebhookDeliveryPage");

export const testQueuedSchema = z
  .object({ event_id: z.string().describe("The `webhook-id` of the queued `webhook.test` delivery; follow it in the delivery log") })
  .meta({ id: "WebhookTestQueued" });
