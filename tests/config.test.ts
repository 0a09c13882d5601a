import { describe, expect, test } from "bun:test";
import path from "node:path";
import { ConfigError, loadConfig } from "../src/config";

describe("configuration", () => {
  test("defaults follow the contract", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe("127.0.0.1");
    expect(config.dataDir).toBe(path.resolve("./data"));
    expect(config.libsqlUrl).toBe(`file:${path.resolve("./data/rhizome.db")}`);
    expect(config.role).toBe("all");
    expect(config.graph.extractor).toBe("local");
    expect(config.imports.allowPrivateNetworks).toBe(false);
    expect(config.ask.maxInputTokens).toBe(8000);
  });

  test("an API key switches the extractor to anthropic unless overridden", () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: "k" }).graph.extractor).toBe("anthropic");
    expect(loadConfig({ ANTHROPIC_API_KEY: "k", GRAPH_EXTRACTOR: "local" }).graph.extractor).toBe("local");
  });

  test.each([
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ ROLE: "both" }, "ROLE"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ LIBSQL_URL: "/tmp/x.db" }, "LIBSQL_URL"],
    [{ SECRET_KEY: "short" }, "SECRET_KEY"],
    [{ IMPORT_ALLOW_PRIVATE_NETWORKS: "maybe" }, "IMPORT_ALLOW_PRIVATE_NETWORKS"],
    [{ GRAPH_EXTRACTOR: "anthropic" }, "GRAPH_EXTRACTOR"],
    [{ ASK_MAX_INPUT_TOKENS: "100" }, "ASK_MAX_INPUT_TOKENS"],
    [{ ASK_MAX_INPUT_TOKENS: "lots" }, "ASK_MAX_INPUT_TOKENS"],
  ])("%j stops start-up with one line naming the variable", (environment, variable) => {
    expect(() => loadConfig(environment)).toThrow(ConfigError);
    try {
      loadConfig(environment);
    } catch (error) {
      expect((error as Error).message).toContain(variable);
      expect((error as Error).message).not.toContain("\n");
    }
  });

  test("the process exits with that line and status 2", () => {
    const result = Bun.spawnSync([process.execPath, "src/main.ts"], { env: { ...process.env, PORT: "nope" }, cwd: path.resolve(import.meta.dir, "..") });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString().trim()).toBe("Invalid configuration: PORT must be a port number from 0 to 65535");
  });
});
