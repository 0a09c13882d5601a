import type { Clock } from "../../src/modules/events/coalescer";

/** A clock the test moves by hand: timers fire only inside `advance`, in time order. */
export function manualClock() {
  let now = 0;
  let timers: { at: number; callback: () => void; handle: number }[] = [];
  let next = 0;
  const clock: Clock = {
    now: () => now,
    setTimeout: (callback, ms) => {
      timers.push({ at: now + ms, callback, handle: ++next });
      return next;
    },
    clearTimeout: (handle) => void (timers = timers.filter((timer) => timer.handle !== handle)),
  };
  return {
    clock,
    /** How far off each timer set and not yet fired or cleared is, soonest first. */
    pending: () => timers.map((timer) => timer.at - now).sort((a, b) => a - b),
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((timer) => timer !== due);
        now = due.at;
        due.callback();
        await Bun.sleep(0); // let what the timer started run
      }
      now = until;
    },
  };
}
