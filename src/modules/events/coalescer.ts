export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs `flush` at most once per `intervalMs` however often `request` is called, and always once
 * more after the last request, so the newest state is never dropped. Runs never overlap; a run that
 * fails is retried at the next slot.
 */
export class Coalescer {
  #dirty = false;
  #running = false;
  #stopped = false;
  #timer: unknown;
  #lastRun = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly flush: () => Promise<void>,
    private readonly options: { intervalMs: number; clock?: Clock; onError(error: unknown): void },
  ) {}

  request(): void {
    this.#dirty = true;
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  get #clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  #schedule(): void {
    if (this.#stopped || this.#running || this.#timer !== undefined || !this.#dirty) return;
    const wait = this.#lastRun + this.options.intervalMs - this.#clock.now();
    if (wait <= 0) void this.#run();
    else
      this.#timer = this.#clock.setTimeout(() => {
        this.#timer = undefined;
        void this.#run();
      }, wait);
  }

  async #run(): Promise<void> {
    this.#dirty = false;
    this.#running = true;
    this.#lastRun = this.#clock.now();
    try {
      await this.flush();
    } catch (error) {
      this.#dirty = true;
      this.options.onError(error);
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }
}
