// kill -9 of the whole service (its embedded Postgres included) in the middle of a graph build, then a restart on the
// same data directory: the build resumes and completes, and the extractions saved before the kill are not redone.
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import { createClient } from "@libsql/client";
import { Api } from "../support/api";
import { startFakeAnthropic } from "../support/fake-anthropic";
import { serviceDataDirForThisFile, startServiceProcess, type ServiceProcess } from "../support/service-process";
import { until } from "../support/until";

const NOTES = 40;
const LLM_LATENCY_MS = 400;
/** Saved extractions before the kill: some, but well short of all. */
const PROCESSED_BEFORE_KILL = 12;
const DEADLINE_MS = 60_000;

interface BuildStatus {
  status: "idle" | "building" | "completed" | "failed";
  build_id: number | null;
  notes_total: number;
  notes_processed: number;
  nodes: number;
  error: string | null;
  failed_notes: unknown[];
}

const fake = await startFakeAnthropic({ latencyMs: LLM_LATENCY_MS });
/** Calls the fake has received but not yet answered. */
const callsInFlight = () => fake.calls - fake.requests.length;

const dataDir = serviceDataDirForThisFile("rhizome-crash-graph-");
let service: ServiceProcess | undefined;
const environment = {
  GRAPH_EXTRACTOR: "anthropic",
  ANTHROPIC_API_KEY: "test-key",
  ANTHROPIC_BASE_URL: fake.url,
  GRAPH_LLM_CONCURRENCY: "4",
};

afterAll(() => fake.stop());

async function status(api: Api): Promise<BuildStatus> {
  const response = await api.get("/api/knowledge-graph/status");
  expect(response.status).toBe(200);
  return response.body;
}

/** Extractions this build saved, read from the notes database while the service is down. */
async function savedExtractions(buildId: number): Promise<number> {
  const client = createClient({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  try {
    const { rows } = await client.execute({ sql: "select count(*) as saved from graph_note_extractions where build_id = ?", args: [buildId] });
    return Number(rows[0]!.saved);
  } finally {
    client.close();
  }
}

test(
  "after kill -9 mid-build and a restart, the build completes without redoing saved extractions",
  async () => {
    service = await startServiceProcess({ dataDir, environment });
    const { api } = await new Api(service.url).newUser("crash");
    for (let i = 1; i <= NOTES; i++) {
      const created = await api.post("/api/notes", {
        title: `Field note ${i}`,
        content: `Notes on [[Topic ${i % 7}]] with Ada Lovelace and Charles Babbage, entry ${i}.\n\nTags: crash, note-${i}`,
      });
      expect(created.status).toBe(201);
    }
    const started = await api.post("/api/knowledge-graph/build", { mode: "full" });
    expect(started.status).toBe(202);
    const buildId: number = started.body.build_id;

    await until(() => status(api), {
      timeoutMs: DEADLINE_MS,
      intervalMs: 50,
      what: `${PROCESSED_BEFORE_KILL} notes extracted with more calls in flight`,
      done: (build) => build.notes_processed >= PROCESSED_BEFORE_KILL && callsInFlight() > 0,
    });
    await service.kill();
    const callsBeforeKill = fake.calls;
    const saved = await savedExtractions(buildId);
    expect(saved).toBeGreaterThanOrEqual(PROCESSED_BEFORE_KILL);
    expect(saved).toBeLessThan(NOTES);

    service = await startServiceProcess({ dataDir, environment });
    const again = new Api(service.url, api.token);
    const finished = await until(() => status(again), {
      timeoutMs: DEADLINE_MS,
      intervalMs: 50,
      what: "the build finished after the restart",
      done: (build) => build.status !== "building",
    });

    expect(finished).toMatchObject({ status: "completed", build_id: buildId, notes_total: NOTES, error: null, failed_notes: [] });
    expect(finished.nodes).toBeGreaterThan(0);
    expect(await savedExtractions(buildId)).toBe(NOTES);
    // One call per note: the restarted build asked only about the notes whose extraction was not saved,
    // so the calls answered but unsaved at the kill are the only ones made twice.
    expect(fake.calls - callsBeforeKill).toBe(NOTES - saved);
    expect(fake.calls).toBeLessThanOrEqual(NOTES + (callsBeforeKill - saved));
  },
  { timeout: 240_000 },
);
