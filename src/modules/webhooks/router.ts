import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/procedures";
import { listDeliveries } from "./list-deliveries";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from "./manage-webhooks";
import * as s from "./schemas";
import { sendTestEvent } from "./send-test";

const tags = ["webhooks"];
const access = "webhooks";

export const webhooksRouter = router({
  create: protectedProcedure
    .meta({
      access,
      openapi: {
        method: "POST",
        path: "/webhooks",
        tags,
        summary: "Subscribe a URL to change events (the signing secret is shown once)",
        description:
          "Deliveries follow the Standard Webhooks specification: a POST of JSON `{type, timestamp, data}` with `webhook-id` (stable across retries), `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the secret's base64 part). Any 2xx is success; anything else, a timeout (10 s) or a connection error is retried after each delay of WEBHOOK_RETRY_DELAYS (default 10s,1m,10m,1h,6h,12h). Redirects are not followed. The URL obeys the import address rules at each delivery. A webhook whose deliveries have all failed for 3 days is disabled (`disabled_reason`). At most 20 per account (409). A webhook carries only what its creator may read: an access token needs, beside `webhooks`, the read scope of each event family it subscribes to (`note.*` notes:read, `task.*` imports, `graph.*` graph:read; 403 naming the one missing), here and on every change; a webhook set up or last changed by an access token is turned off (`disabled_reason`) once that token is revoked or expires.",
      },
      successStatus: 201,
    })
    .input(s.createWebhookInput)
    .output(s.createdWebhookSchema)
    .mutation(({ ctx, input }) => createWebhook({ ctx, input })),

  list: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/webhooks", tags, summary: "Your webhooks (never their secrets)" } })
    .input(z.void())
    .output(s.webhookListSchema)
    .query(({ ctx }) => listWebhooks({ ctx })),

  get: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/webhooks/{id}", tags, summary: "One webhook" } })
    .input(s.webhookIdInput)
    .output(s.webhookSchema)
    .query(({ ctx, input }) => getWebhook({ ctx, input })),

  update: protectedProcedure
    .meta({ access, openapi: { method: "PATCH", path: "/webhooks/{id}", tags, summary: "Change a webhook's URL, events or description, or turn it off or on (omitted fields keep their value)", description: "An access token needs the read scope of every event family the webhook will carry (as for creation), whatever it changes; the webhook is then bound to that token (or, changed from a login session, to the account)." } })
    .input(s.updateWebhookInput)
    .output(s.webhookSchema)
    .mutation(({ ctx, input }) => updateWebhook({ ctx, input })),

  delete: protectedProcedure
    .meta({ access, openapi: { method: "DELETE", path: "/webhooks/{id}", tags, summary: "Delete a webhook, its queued deliveries and its log" }, successStatus: 204 })
    .input(s.webhookIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteWebhook({ ctx, input })),

  test: protectedProcedure
    .meta({ access, openapi: { method: "POST", path: "/webhooks/{id}/test", tags, summary: "Send a `webhook.test` event now (queued: follow it in the delivery log); 409 while the webhook is turned off" }, successStatus: 202 })
    .input(s.webhookIdInput)
    .output(s.testQueuedSchema)
    .mutation(({ ctx, input }) => sendTestEvent({ ctx, input })),

  deliveries: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/webhooks/{id}/deliveries", tags, summary: "The delivery log: one record per attempt, newest first" } })
    .input(s.deliveriesInput)
    .output(s.deliveryPageSchema)
    .query(({ ctx, input }) => listDeliveries({ ctx, input })),
});
