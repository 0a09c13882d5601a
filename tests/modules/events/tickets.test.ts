import { beforeAll, describe, expect, test } from "bun:test";
import type { NotesDatabase } from "../../../src/db/client";
import { eventTickets } from "../../../src/db/schema";
import { createSession } from "../../../src/modules/auth/sessions";
import { authenticateEventStream } from "../../../src/modules/events/authenticate-stream";
import { issueEventTicket, redeemEventTicket } from "../../../src/modules/events/tickets";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const notes = await notesDatabaseForThisFile();
let ctx: { db: NotesDatabase["db"]; userId: number; session: { id: string } };
let token: string;

beforeAll(async () => {
  const result = await notes.client.execute("insert into users (username, username_key, password_hash, created_at) values ('ada', 'ada', 'x', 0) returning id");
  const userId = Number(result.rows[0]!.id);
  const created = await createSession(notes.db, userId, { pendingTotp: false });
  token = created.token;
  ctx = { db: notes.db, userId, session: { id: created.session.id } };
});

describe("event tickets", () => {
  test("a ticket works once, for its user", async () => {
    const { ticket } = await issueEventTicket({ ctx, now: 1_000 });
    expect(await redeemEventTicket(notes.db, ticket, 1_001)).toEqual({ userId: ctx.userId, sessionId: ctx.session.id });
    expect(await redeemEventTicket(notes.db, ticket, 1_002)).toBeNull();
  });

  test("a ticket is valid for 60 s: at 59.999 s it works, at 60 s it does not", async () => {
    const early = await issueEventTicket({ ctx, now: 0 });
    expect(early.expires_at).toBe(new Date(60_000).toISOString());
    expect((await redeemEventTicket(notes.db, early.ticket, 59_999))?.userId).toBe(ctx.userId);
    const late = await issueEventTicket({ ctx, now: 0 });
    expect(await redeemEventTicket(notes.db, late.ticket, 60_000)).toBeNull();
  });

  test("only the ticket's hash is stored, and expired ones are swept when the next is issued", async () => {
    const { ticket } = await issueEventTicket({ ctx, now: 10_000_000 });
    const stored = await notes.db.select().from(eventTickets);
    expect(stored.map((row) => row.id)).not.toContain(ticket);
    expect(JSON.stringify(stored)).not.toContain(ticket);
    await issueEventTicket({ ctx, now: 10_000_000 + 60_000 });
    expect((await notes.db.select().from(eventTickets)).length).toBe(1);
  });

  test("tickets are random: 200 of them are all different", async () => {
    const tickets = new Set<string>();
    for (let i = 0; i < 200; i++) tickets.add((await issueEventTicket({ ctx })).ticket);
    expect(tickets.size).toBe(200);
  });

  test("the stream takes a ticket or a bearer header, and never a token in the URL; either way it lives by the login session", async () => {
    const { ticket } = await issueEventTicket({ ctx });
    const query = (text: string) => new URLSearchParams(text);
    const bySession = { userId: ctx.userId, credential: { kind: "session" as const, sessionId: ctx.session.id } };
    expect(await authenticateEventStream({ db: notes.db, authorization: null, query: query(`ticket=${ticket}`) })).toEqual(bySession);
    expect(await authenticateEventStream({ db: notes.db, authorization: `Bearer ${token}`, query: query("") })).toEqual(bySession);
    for (const url of [`ticket=${token}`, `token=${token}`, `access_token=${token}`, "ticket="]) {
      await expect(authenticateEventStream({ db: notes.db, authorization: `Bearer ${token}`, query: query(url) })).rejects.toThrow(/ticket|URL/);
    }
    await expect(authenticateEventStream({ db: notes.db, authorization: `Bearer ${ticket}x`, query: query("") })).rejects.toThrow("Invalid or expired token");
  });
});
