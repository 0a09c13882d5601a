// Part of `npm run bench:files`, in its own process so its RSS is its own: a 100 MiB body (ten times
// the per-picture cap, which is lifted here) read through the imports' guarded downloader into the
// files room's staging (hash, write, fsync) while the consumer is slow. Prints this process's peak
// RSS growth: a body held whole would grow it by at least 100 MiB.
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { stageBlob } from "../../src/modules/files/blob-store";
import { createSafeDownloader } from "../../src/modules/imports/safe-fetch/download-file";

const BODY_BYTES = 100 * 1024 * 1024;
const MiB = 1024 * 1024;
const hostCode = `const body = new Uint8Array(${BODY_BYTES}); const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(body) }); console.log(s.port);`;
const host = Bun.spawn([process.execPath, "-e", hostCode], { stdout: "pipe" });
const port = Number(new TextDecoder().decode((await host.stdout.getReader().read()).value).trim());
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-bench-files-stream-"));
try {
  const download = createSafeDownloader({ allowPrivateNetworks: true, maxBodyBytes: BODY_BYTES + 1, timeoutMs: 120_000 });
  Bun.gc(true);
  const idle = process.memoryUsage.rss();
  let peak = idle;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const started = performance.now();
  let chunks = 0;
  const staged = await download(`http://127.0.0.1:${port}/big`, {}, (body) =>
    stageBlob(dir, (async function* () {
      for await (const chunk of body) {
        // A disk slower than the network: every 64th chunk waits, so unread bytes would pile up if they could.
        if (++chunks % 64 === 0) await Bun.sleep(20);
        yield chunk;
      }
    })(), BODY_BYTES + 1),
  );
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  await staged.discard();
  console.log(`streaming: ${BODY_BYTES / MiB} MiB through the downloader to disk in ${((performance.now() - started) / 1000).toFixed(2)} s; this process's RSS idle ${(idle / MiB).toFixed(1)} MiB, peak growth ${((peak - idle) / MiB).toFixed(1)} MiB`);
} finally {
  host.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}
