// The embeddings stand-in in a process of its own, for benchmarks; EMBED_RATE bounds it to that many
// inputs a second; EMBED_DENSE=1 gives vectors spread over every dimension, as real models give.
import { startFakeEmbeddings } from "../../tests/support/fake-embeddings";

const server = startFakeEmbeddings({ dimensions: 384, dense: process.env.EMBED_DENSE === "1" });
if (process.env.EMBED_RATE) server.mode.inputsPerSecond = Number(process.env.EMBED_RATE);
// The parent waits for this one line before it sends any request.
console.log(JSON.stringify({ port: Number(new URL(server.url).port) }));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.stop();
    process.exit(0);
  });
}
