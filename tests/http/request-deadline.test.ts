import { describe, expect, test } from "bun:test";
import { initTRPC } from "@trpc/server";
import { z } from "zod";
import { ChangeFeed } from "../../src/modules/events/change-feed";
import { createHttpApp } from "../../src/http/app";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { setLogLevel } from "../../src/log";
import type { ServiceContext } from "../../src/modules/context";
import type { TrpcContext } from "../../src/trpc/context";
import type { Meta } from "../../src/trpc/init";

setLogLevel((process.env.TEST_LOG_LEVEL as "error" | undefined) ?? "silent");

// A router whose error formatter itself fails: the REST adapter's promise rejects instead of answering.
const t = initTRPC
  .context<TrpcContext>()
  .meta<Meta>()
  .create({
    isDev: false,
    errorFormatter: () => {
      throw new Error("the error formatter failed");
    },
  });
const testRouter = t.router({
  broken: t.procedure
    .meta({ openapi: { method: "GET", path: "/broken" } })
    .input(z.void())
    .output(z.object({ ok: z.boolean() }))
    .query(() => {
      throw new Error("the procedure failed");
    }),
  stuck: t.procedure
    .meta({ openapi: { method: "GET", path: "/stuck" } })
    .input(z.void())
    .output(z.object({ ok: z.boolean() }))
    .query(() => new Promise<{ ok: boolean }>(() => {})),
});

const appWith = (requestDeadlineMs: number) =>
  createHttpApp({
    router: testRouter,
    services: {} as ServiceContext,
    document: buildOpenApiDocument(testRouter),
    checkHealth: async () => {},
    requestDeadlineMs,
    // No stream is opened here, so the feed never reads its database.
    events: new ChangeFeed({ db: {} as ServiceContext["db"], graphSettings: { extractor: "local" as const, llmConcurrency: 1, anthropic: {} } }),
  });
// A deadline far past the tests' own timeout, so only the rejection itself can end the request.
const longDeadline = appWith(60_000);
const shortDeadline = appWith(200);

async function expectGeneric500(response: Response) {
  expect(response.status).toBe(500);
  expect(await response.json()).toEqual({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
}

// A hang fails these tests by their own timeout, well before the suite's.
describe("every JSON request ends", () => {
  test("a REST request whose handler rejects is a generic 500 with the error body", async () => {
    await expectGeneric500(await longDeadline.handle(new Request("http://localhost/api/broken")));
  }, 5_000);

  test("a REST request that gets no answer is a 500 with the error body once the deadline passes", async () => {
    await expectGeneric500(await shortDeadline.handle(new Request("http://localhost/api/stuck")));
  }, 5_000);

  test("a tRPC request that gets no answer is a 500 with the error body once the deadline passes", async () => {
    await expectGeneric500(await shortDeadline.handle(new Request("http://localhost/trpc/stuck")));
  }, 5_000);
});
