// Every test file gets the same 60 s default timeout, whether run by `npm test` or a bare `bun test`:
// Bun 1.4's bunfig.toml has no [test] timeout key, and setDefaultTimeout holds only for the file that
// calls it, so each test file is loaded with that call in front (on its first line: line numbers stay).
import { plugin } from "bun";

export const TEST_TIMEOUT_MS = 60_000;

plugin({
  name: "test timeout",
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
      contents: `import { setDefaultTimeout as setDefaultTestTimeout } from "bun:test"; setDefaultTestTimeout(${TEST_TIMEOUT_MS}); ${await Bun.file(path).text()}`,
      loader: "ts",
    }));
  },
});
