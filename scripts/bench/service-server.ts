// The service under test, in its own process so its RSS and CPU can be read from /proc.
import { loadConfig } from "../../src/config";
import { setLogLevel } from "../../src/log";
import { startServer } from "../../src/server";

const config = loadConfig({ ...process.env, PORT: "0", HOST: "127.0.0.1" });
setLogLevel("warn");
const server = await startServer(config);
// The parent waits for this one line before it sends any request.
console.log(JSON.stringify({ port: server.port }));

// SIGINT too: a Ctrl-C in the terminal reaches this process directly, and Postgres must stop with it.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.stop();
    process.exit(0);
  });
}
