import { describe, expect, test } from "bun:test";
import { encodeChange, parseChange } from "../../../src/modules/events/change";

describe("change notifications", () => {
  test("a change survives the NOTIFY payload round trip, in a few bytes", () => {
    for (const change of [{ userId: 1, kind: "task", id: 5 } as const, { userId: 2_000_000, kind: "graph" } as const]) {
      const payload = encodeChange(change);
      expect(payload.length).toBeLessThan(50); // pg_notify allows 8000
      expect(parseChange(payload)).toEqual(change);
    }
    expect(encodeChange({ userId: 1, kind: "task", id: 5 })).toBe('{"u":1,"k":"task","id":5}');
  });

  test("a payload this version does not understand is ignored, not trusted", () => {
    for (const payload of ["", "not json", "null", '{"u":1}', '{"u":1,"k":"task"}', '{"u":0,"k":"graph"}', '{"u":"1","k":"graph"}', '{"u":1,"k":"note","id":3}']) {
      expect(parseChange(payload)).toBeNull();
    }
  });
});
