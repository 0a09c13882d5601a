// REGISTRATION=closed keeps an instance to its owner: the first account can be made, no other.
import { expect, test } from "bun:test";
import { expectError } from "../support/api";
import { serverForThisFile } from "../support/server";
import { uniqueName } from "../support/unique-name";

const { api } = await serverForThisFile({ REGISTRATION: "closed" });

test("closed: the first account is made (one, however many race for it), then registration answers 403 and GET /api/auth/registration says so", async () => {
  const before = await api.get("/api/auth/registration");
  expect(before.status).toBe(200);
  expect(before.body).toEqual({ open: true });
  const password = "password-123";
  const racers = Array.from({ length: 4 }, () => uniqueName("racer"));
  const attempts = await Promise.all(racers.map((username) => api.post("/api/auth/register", { username, password })));
  expect(attempts.map((response) => response.status).sort()).toEqual([201, 403, 403, 403]);
  const owner = racers[attempts.findIndex((response) => response.status === 201)]!;
  expect((await api.get("/api/auth/registration")).body).toEqual({ open: false });

  const refused = await api.post("/api/auth/register", { username: uniqueName("second"), password });
  expectError(refused, 403, "FORBIDDEN");
  expect(refused.body).toEqual({ code: "FORBIDDEN", message: "Registration is closed on this server" });
  // A taken username is refused the same way: nothing is said about who has an account.
  expect((await api.post("/api/auth/register", { username: owner, password })).body.message).toBe("Registration is closed on this server");
  // Bad input is still a 400 first.
  expectError(await api.post("/api/auth/register", { username: "x", password: "short" }), 400, "BAD_REQUEST");
  // The owner logs in as ever.
  expect((await api.loginForm({ username: owner, password })).status).toBe(200);
});
