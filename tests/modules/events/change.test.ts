import { describe, expect, test } from "bun:test";
import { setLogLevel } from "../../../src/log";
import { encodeChange, parseChange } from "../../../src/modules/events/change";
import { batchedNotify, createChangePublisher } from "../../../src/modules/events/change-publisher";

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

describe("the change publisher", () => {
  test("a failing NOTIFY is logged and swallowed, so the import or build that published goes on", async () => {
    setLogLevel("silent");
    const sent: [string, string][] = [];
    const working = createChangePublisher(async (channel, payloads) => void sent.push(...payloads.map((payload): [string, string] => [channel, payload])));
    await working.publish({ userId: 3, kind: "task", id: 9 });
    expect(sent).toEqual([["rhizome_changes", '{"u":3,"k":"task","id":9}']]);
    const broken = createChangePublisher(async () => {
      throw new Error("connection refused");
    });
    expect(await broken.publish({ userId: 3, kind: "graph" })).toBeUndefined();
  });
});

describe("batched NOTIFY", () => {
  test("what is published while a statement is in flight goes out in the next one, each payload once, and every caller learns when it went", async () => {
    const statements: string[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    const send = batchedNotify(async (payloads) => {
      statements.push([...payloads]);
      if (statements.length === 1) await firstHeld;
    });
    const first = send("a");
    await Bun.sleep(0);
    expect(statements).toEqual([["a"]]);
    const rest = ["b", "c", "b", "d"].map((payload) => send(payload));
    await Bun.sleep(10);
    expect(statements).toHaveLength(1); // nothing more while the first is on its way
    release();
    await Promise.all([first, ...rest]);
    expect(statements).toEqual([["a"], ["b", "c", "d"]]);
    await send("e");
    expect(statements).toEqual([["a"], ["b", "c", "d"], ["e"]]);
  });

  test("a failed statement fails only its own callers; the next batch goes out", async () => {
    let calls = 0;
    const send = batchedNotify(async () => {
      if (++calls === 1) throw new Error("connection lost");
    });
    await expect(send("a")).rejects.toThrow("connection lost");
    expect(await send("b")).toBeUndefined();
    expect(calls).toBe(2);
  });
});

