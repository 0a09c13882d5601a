// `npm run bench:transcripts`: a 3-hour recording (AAC-LC 44.1 kHz, ~64 kbit/s, as Bilibili's lowest
// audio stream) uploaded to POST /api/tasks/audio on one service process (API + worker), transcribed
// by the stand-in speech-to-text server (running here, in the bench process, so its work is not
// counted). Prints the service's CPU seconds for the whole task (upload, cutting into pieces by
// packet copy, the requests, joining, the note), the time it spent waiting for the server, and its
// peak RSS growth; the baseline is the same upload again, answered from the kept transcript.
import path from "node:path";
import { recordingBytes } from "../../tests/support/aac-audio";
import { startFakeStt } from "../../tests/support/fake-stt";
import { benchScratch, cpuSeconds, loadAverage, residentBytes, watchResidentMemory } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const SECONDS = Number(process.env.BENCH_TRANSCRIPTS_SECONDS ?? 3 * 3600);
const CHUNK_SECONDS = 600;
const TARGET = { cpuSeconds: 5, rssGrowthMiB: 64 };
const MiB = 1024 * 1024;

const scratch = benchScratch("rhizome-bench-transcripts-");
const progress = (message: string) => console.error(`[bench:transcripts] ${message}`);

async function transcribe(session: Session, recording: Uint8Array<ArrayBuffer>, title: string): Promise<{ seconds: number; messages: number }> {
  const started = performance.now();
  const created = await fetch(`${session.baseUrl}/api/tasks/audio?title=${encodeURIComponent(title)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.token}`, "content-type": "audio/mp4" },
    body: recording,
  });
  if (created.status !== 201) throw new Error(`upload answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: number };
  const messages = new Set<string>();
  for (;;) {
    const task = (await (await fetch(`${session.baseUrl}/api/tasks/${id}`, { headers: { authorization: `Bearer ${session.token}` } })).json()) as { status: string; error: string | null; message: string; failures: unknown[] };
    messages.add(task.message);
    if (task.status === "failed") throw new Error(`the task failed: ${task.error}`);
    if (task.status === "completed") {
      if (task.failures.length) throw new Error(`the transcript failed: ${JSON.stringify(task.failures)}`);
      return { seconds: (performance.now() - started) / 1000, messages: messages.size };
    }
    await Bun.sleep(100);
  }
}

async function main() {
  const stt = startFakeStt();
  const environment = {
    ROLE: "all",
    DATA_DIR: path.join(scratch.workDir, "service"),
    DATABASE_URL: "",
    LIBSQL_URL: "",
    STT_BASE_URL: stt.baseUrl,
    STT_MODEL: "bench-whisper",
    STT_CHUNK_SECONDS: String(CHUNK_SECONDS),
  };
  const service = await scratch.start("service", "service-server.ts", environment);
  progress(`service pid ${service.pid} on ${service.url}`);
  const session = await registerAndLogin(service.url, "bench_transcripts");
  progress(`writing a ${SECONDS / 3600} h recording`);
  const recording = await recordingBytes({ seconds: SECONDS, sampleRate: 44100, padding: 176 });
  progress(`recording: ${(recording.length / MiB).toFixed(1)} MiB`);
  // A short recording first loads mediabunny and the transcription code, outside the measurement.
  await transcribe(session, await recordingBytes({ seconds: 60, sampleRate: 44100, padding: 176, offsetSeconds: 90_000 }), "warm-up");
  Bun.gc(true);
  await Bun.sleep(2_000);

  const idle = residentBytes(service.pid);
  const watcher = watchResidentMemory(service.pid, 50);
  const [cpuBefore, load, requestsBefore] = [cpuSeconds(service.pid), loadAverage(), stt.state.uploads.length];
  const full = await transcribe(session, recording, "three hours");
  const cpu = cpuSeconds(service.pid) - cpuBefore;
  const peak = watcher.stop();
  const uploads = stt.state.uploads.slice(requestsBefore);
  const requests = uploads.length;
  const uploadedBytes = uploads.reduce((sum, upload) => sum + upload.bytes, 0);
  // What the service waited for: the stand-in reading each piece and answering.
  const waitedSeconds = uploads.reduce((sum, upload) => sum + upload.handledMs, 0) / 1000;

  Bun.gc(true);
  await Bun.sleep(2_000);
  const idleAgain = residentBytes(service.pid);
  const baselineWatcher = watchResidentMemory(service.pid, 50);
  const cpuBaseline = cpuSeconds(service.pid);
  const cached = await transcribe(session, recording, "three hours again");
  const baselineCpu = cpuSeconds(service.pid) - cpuBaseline;
  const baselineGrowthMiB = (baselineWatcher.stop() - idleAgain) / MiB;
  stt.stop();

  const growthMiB = (peak - idle) / MiB;
  console.log(`3-hour recording (${(recording.length / MiB).toFixed(1)} MiB): ${requests} requests of ${CHUNK_SECONDS} s (expected ${Math.ceil(SECONDS / CHUNK_SECONDS)}), ${(uploadedBytes / MiB).toFixed(1)} MiB uploaded; task done in ${full.seconds.toFixed(1)} s wall, ${waitedSeconds.toFixed(1)} s of it the server answering; load average ${load.toFixed(1)} at the start`);
  console.log(`progress messages seen while polling: ${full.messages}`);
  console.log(`service CPU for the task: ${cpu.toFixed(2)} s (${((cpu / (SECONDS / 3600)) * 1000).toFixed(0)} ms per hour of audio)`);
  console.log(`baseline, the same upload answered from the kept transcript: ${baselineCpu.toFixed(2)} s CPU, ${cached.seconds.toFixed(1)} s wall, RSS growth ${baselineGrowthMiB.toFixed(1)} MiB; CPU ratio ${(cpu / Math.max(baselineCpu, 0.01)).toFixed(1)}×`);
  console.log(`service (API + worker) RSS: idle ${(idle / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${growthMiB.toFixed(1)} MiB`);
  console.log(`${cpu <= TARGET.cpuSeconds ? "PASS" : "FAIL"} our own work ≤ ${TARGET.cpuSeconds} s of CPU for 3 hours of audio`);
  console.log(`${growthMiB <= TARGET.rssGrowthMiB ? "PASS" : "FAIL"} peak RSS growth ≤ ${TARGET.rssGrowthMiB} MiB`);
}

try {
  await main();
} finally {
  await scratch.cleanUp();
}
