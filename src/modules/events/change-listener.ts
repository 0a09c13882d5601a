import pg from "pg";
import { log } from "../../log";
import { CHANGES_CHANNEL, parseChange, type Change } from "./change";

/** How the LISTEN connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "rhizome-events";
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 10_000;
/** A change written just before the connection dropped may have lost its NOTIFY with it. */
const MISSED_MARGIN_MS = 5_000;

export interface ChangeListener {
  /** Resolves once the first LISTEN is in place, or once it failed (then retries go on in the background). */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one LISTEN connection of an API process: a dedicated client (not from a pool, which would
 * recycle it), reconnecting with backoff when it drops. After a reconnect `onMissed` says since
 * when news may have been lost, so streams can read the current state again.
 */
export function listenForChanges(options: {
  connectionString: string;
  onChange(change: Change): void;
  onMissed(since: number): void;
}): ChangeListener {
  let client: pg.Client | null = null;
  let stopped = false;
  let droppedAt: number | null = null;
  let retries = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  async function connect(): Promise<void> {
    const candidate = new pg.Client({ connectionString: options.connectionString, application_name: LISTENER_APPLICATION_NAME, connectionTimeoutMillis: 10_000 });
    candidate.on("notification", (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const change = parseChange(message.payload ?? "");
      if (change) options.onChange(change);
      else log.warn(`ignored a change notification this version does not understand: ${(message.payload ?? "").slice(0, 200)}`);
    });
    candidate.on("error", (error) => {
      if (client === candidate) log.warn(`the events LISTEN connection failed: ${error.message}; reconnecting`);
      dropped(candidate);
    });
    candidate.on("end", () => dropped(candidate));
    try {
      await candidate.connect();
      await candidate.query(`listen ${CHANGES_CHANNEL}`);
    } catch (error) {
      await candidate.end().catch(() => undefined);
      throw error;
    }
    if (stopped) return void (await candidate.end().catch(() => undefined));
    client = candidate;
    retries = 0;
    if (droppedAt !== null) {
      const since = droppedAt - MISSED_MARGIN_MS;
      droppedAt = null;
      log.info("the events LISTEN connection is back");
      options.onMissed(since);
    }
  }

  function dropped(candidate: pg.Client): void {
    if (client !== candidate) return;
    client = null;
    droppedAt ??= Date.now();
    void candidate.end().catch(() => undefined);
    retry();
  }

  function retry(): void {
    if (stopped || retryTimer) return;
    // Exponential with jitter, so the API processes do not all knock at once after a Postgres restart.
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** retries++) * (0.5 + Math.random() / 2);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().catch((error: Error) => {
        log.warn(`cannot LISTEN for changes (${error.message}); trying again`);
        retry();
      });
    }, delay);
  }

  const ready = connect().catch((error: Error) => {
    log.warn(`cannot LISTEN for changes yet (${error.message}); streams get no live updates until it succeeds`);
    droppedAt ??= Date.now();
    retry();
  });

  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
