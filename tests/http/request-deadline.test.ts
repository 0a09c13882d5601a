import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { initTRPC } from "@trpc/server";
import { z } from "zod";
import { setLogLevel } from "../../src/log";
import type { TrpcContext } from "../../src/trpc/context";
import type { Meta } from "../../src/trpc/init";
import { startHttpApp, type HttpApp } from "../support/http-app";

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

// Real HTTP on loopback, on the real services. A deadline far past the tests' own timeout, so only the
// rejection itself can end the request; and a short one.
let longDeadline: HttpApp;
let shortDeadline: HttpApp;
beforeAll(async () => {
  longDeadline = await startHttpApp({ router: testRouter, requestDeadlineMs: 60_000 });
  shortDeadline = await startHttpApp({ router: testRouter, requestDeadlineMs: 200 });
});
afterAll(async () => {
  await longDeadline.stop();
  await shortDeadline.stop();
});

async function expectGeneric500(response: Response) {
  expect(response.status).toBe(500);
  expect(await response.json()).toEqual({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
}

// A hang fails these tests by their own timeout, well before the suite's.
describe("every JSON request ends", () => {
  test("a REST request whose handler rejects is a generic 500 with the error body", async () => {
    await expectGeneric500(await fetch(`${longDeadline.url}/api/broken`));
  }, 5_000);

  test("a REST request that gets no answer is a 500 with the error body once the deadline passes", async () => {
    await expectGeneric500(await fetch(`${shortDeadline.url}/api/stuck`));
  }, 5_000);

  test("a tRPC request that gets no answer is a 500 with the error body once the deadline passes", async () => {
    await expectGeneric500(await fetch(`${shortDeadline.url}/trpc/stuck`));
  }, 5_000);
});
