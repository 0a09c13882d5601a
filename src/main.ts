import { ConfigError, loadConfig } from "./config";
import { log, setLogLevel } from "./log";
import { startServer } from "./server";

try {
  const config = loadConfig();
  setLogLevel(config.logLevel);
  const server = await startServer(config);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, async () => {
      log.info(`${signal}: shutting down`);
      await server.stop();
      process.exit(0);
    });
  }
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  log.error("start-up failed", error);
  process.exit(1);
}
