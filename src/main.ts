import { ConfigError, loadConfig } from "./config";
import { log, setLogLevel } from "./log";
import { startServer } from "./server";
import { describeStartupFailure } from "./startup-error";

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
  // One line saying what is wrong and what to do; the stack only for whoever asks with LOG_LEVEL=debug.
  console.error(error instanceof ConfigError ? error.message : describeStartupFailure(error));
  log.debug("start-up failure", error);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
