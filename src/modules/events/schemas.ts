import { z } from "zod";

export const eventTicketSchema = z
  .object({
    ticket: z.string().describe("Pass as `GET /api/events?ticket=<ticket>`; works once, within 60 s, on that route only"),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: "EventTicket" });
