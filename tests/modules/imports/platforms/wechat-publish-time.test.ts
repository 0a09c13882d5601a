import { expect, test } from "bun:test";
import { isoFromUnixSeconds } from "../../../../src/modules/imports/platforms/wechat/publish-time";

test("unix seconds become ISO 8601 only when plausible", () => {
  expect(isoFromUnixSeconds("1762747210")).toBe("2025-11-10T04:00:10.000Z");
  expect(isoFromUnixSeconds("99999999999")).toBeUndefined();
  expect(isoFromUnixSeconds("")).toBeUndefined();
  expect(isoFromUnixSeconds("17627x7210")).toBeUndefined();
});
