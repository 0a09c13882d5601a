import { describe, expect, test } from "bun:test";
import { Coalescer } from "../../../src/modules/events/coalescer";
import { manualClock } from "../../support/manual-clock";

describe("Coalescer", () => {
  test("50 requests in one second give 5 flushes, the last after the last request", async () => {
    const { clock, advance } = manualClock();
    let state = 0;
    const flushed: { at: number; state: number }[] = [];
    const coalescer = new Coalescer(async () => void flushed.push({ at: clock.now(), state }), { intervalMs: 250, clock, onError: () => {} });
    for (let i = 1; i <= 50; i++) {
      state = i;
      coalescer.request();
      await advance(20);
    }
    await advance(1_000);
    expect(flushed.map((flush) => flush.at)).toEqual([0, 250, 500, 750, 1000]);
    expect(flushed.at(-1)!.state).toBe(50);
  });

  test("a lone request is flushed at once, and nothing runs without a request", async () => {
    const { clock, advance } = manualClock();
    let flushes = 0;
    const coalescer = new Coalescer(async () => void flushes++, { intervalMs: 250, clock, onError: () => {} });
    await advance(5_000);
    expect(flushes).toBe(0);
    coalescer.request();
    await Bun.sleep(0);
    expect(flushes).toBe(1);
    await advance(5_000);
    expect(flushes).toBe(1);
  });

  test("a request during a slow flush is flushed again after it, never alongside", async () => {
    const { clock, advance } = manualClock();
    let running = 0;
    let overlapped = false;
    let release!: () => void;
    const flushes: number[] = [];
    const coalescer = new Coalescer(
      async () => {
        overlapped ||= running > 0;
        running++;
        if (flushes.length === 0) await new Promise<void>((resolve) => (release = resolve));
        flushes.push(clock.now());
        running--;
      },
      { intervalMs: 250, clock, onError: () => {} },
    );
    coalescer.request();
    coalescer.request();
    await advance(1_000);
    expect(flushes).toEqual([]);
    release();
    await Bun.sleep(0);
    await advance(0);
    await Bun.sleep(0);
    expect(flushes).toEqual([1_000, 1_000]);
    expect(overlapped).toBe(false);
  });

  test("a failed flush is retried at the next slot", async () => {
    const { clock, advance } = manualClock();
    const errors: unknown[] = [];
    let attempts = 0;
    const coalescer = new Coalescer(
      async () => {
        if (++attempts === 1) throw new Error("database busy");
      },
      { intervalMs: 250, clock, onError: (error) => errors.push(error) },
    );
    coalescer.request();
    await advance(300);
    expect(attempts).toBe(2);
    expect(errors).toHaveLength(1);
  });

  test("after stop nothing more runs", async () => {
    const { clock, advance } = manualClock();
    let flushes = 0;
    const coalescer = new Coalescer(async () => void flushes++, { intervalMs: 250, clock, onError: () => {} });
    coalescer.request();
    coalescer.request();
    coalescer.stop();
    await advance(1_000);
    expect(flushes).toBe(1);
  });
});
