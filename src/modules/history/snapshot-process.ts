// Run as its own process by takeBackup: `VACUUM INTO` and `PRAGMA integrity_check` are synchronous
// in libsql's local binding, and on a large database they would hold the event loop of the
// process that asked (the API itself, with ROLE=all) for seconds. Prints the check's result as JSON.
import { createClient } from "@libsql/client";
import { checkSnapshot } from "./backups";

const [source, target] = process.argv.slice(2);
const client = createClient({ url: `file:${source}` });
try {
  await client.execute("PRAGMA busy_timeout = 5000");
  const started = performance.now();
  await client.execute({ sql: "VACUUM INTO ?", args: [target!] });
  const snapshotMs = performance.now() - started;
  console.log(JSON.stringify({ snapshotMs, ...(await checkSnapshot(target!)) }));
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  client.close();
}
