import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createAccessToken } from "../support/access-tokens";
import { expectError } from "../support/api";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { trpcClient } from "../support/trpc";

// CONTRACT "Import tasks": `platform` omitted or "auto" is chosen from the URL's host. Every task
// here carries pasted content, so nothing is fetched: only the choice is under test.

const { server, api } = await serverForThisFile();
const { api: alice } = await api.newUser("autoplatform");
const pasted = "A short pasted paragraph about the weekend.";

describe("platform chosen from the URL's host", () => {
  test.each([
    ["https://mp.weixin.qq.com/s/abcDEF123", "wechat"],
    ["https://www.xiaohongshu.com/explore/64a1b2c3d4e5f6a7b8c9d0e1", "xiaohongshu"],
    ["https://xhslink.com/a/AbCdEf", "xiaohongshu"],
    ["https://www.bilibili.com/video/BV1xx411c7mD", "bilibili"],
    ["https://m.bilibili.com/video/BV1xx411c7mD", "bilibili"],
    ["https://b23.tv/AbCdEf", "bilibili"],
    ["https://www.douyin.com/video/7300000000000000000", "douyin"],
    ["https://v.douyin.com/AbCdEf/", "douyin"],
    ["https://www.iesdouyin.com/share/video/7300000000000000000/", "douyin"],
    ["https://WWW.BILIBILI.COM./video/BV1xx411c7mD", "bilibili"],
    ["https://example.com/blog/post", "web"],
    ["https://weixin.qq.com/s/abc", "web"],
    ["https://qq.com/s/abc", "web"],
    ["https://notbilibili.com/video/BV1xx411c7mD", "web"],
    ["https://bilibili.com.evil.example/video/BV1xx411c7mD", "web"],
    ["https://mp.weixin.qq.com.evil.example/s/abc", "web"],
    ["https://fakedouyin.com/video/1", "web"],
    ["https://xiaohongshu.co/explore/1", "web"],
  ])("%s → %s, shown on the task record", async (url, platform) => {
    const created = await alice.post("/api/tasks", { content: pasted, url });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform, url });
    expect((await alice.get(`/api/tasks/${created.body.id}`)).body.platform).toBe(platform);
  });

  test('"auto" chooses as an omitted platform does; a named platform is kept whatever the host', async () => {
    const auto = await alice.post("/api/tasks", { platform: "auto", content: pasted, url: "https://www.douyin.com/video/7300000000000000000" });
    expect(auto.status).toBe(201);
    expect(auto.body.platform).toBe("douyin");
    const named = await alice.post("/api/tasks", { platform: "web", content: pasted, url: "https://www.douyin.com/video/7300000000000000000" });
    expect(named.body.platform).toBe("web");
  });

  test("content without a URL is web, and imports as a web note", async () => {
    const created = await alice.post("/api/tasks", { content: pasted });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform: "web", url: null });
    const task = await settleTask(alice, created.body.id);
    expect(task).toMatchObject({ status: "completed", platform: "web" });
    const note = await alice.get(`/api/notes/${task.note_id}`);
    expect(note.body.tags[0]).toBe("web");
    expect(note.body.source).toMatchObject({ platform: "web", url: null });
  });

  test("the chosen platform's parser reads the content: a WeChat URL makes a note tagged wechat", async () => {
    const created = await alice.post("/api/tasks", { content: pasted, url: "https://mp.weixin.qq.com/s/abcDEF123" });
    const task = await settleTask(alice, created.body.id);
    expect(task).toMatchObject({ status: "completed", platform: "wechat" });
    expect((await alice.get(`/api/notes/${task.note_id}`)).body.tags[0]).toBe("wechat");
  });

  test("an unknown platform is still a 400", async () => {
    const response = await alice.post("/api/tasks", { platform: "myspace", content: pasted });
    expectError(response, 400, "BAD_REQUEST");
  });
});

describe("every face that creates tasks chooses the same way", () => {
  test("the tRPC procedure", async () => {
    const task = await trpcClient(server.url, alice.token).tasks.create.mutate({ content: pasted, url: "https://b23.tv/AbCdEf" });
    expect(task.platform).toBe("bilibili");
  });

  test("the MCP import tool", async () => {
    const token = await createAccessToken(alice, ["imports"]);
    const client = new Client({ name: "rhizome-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const tool = (await client.listTools()).tools.find((candidate) => candidate.name === "import")!;
      expect((tool.inputSchema.required ?? []) as string[]).not.toContain("platform");
      const result = (await client.callTool({ name: "import", arguments: { content: pasted, url: "https://www.xiaohongshu.com/explore/1" } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toMatchObject({ platform: "xiaohongshu" });
    } finally {
      await client.close();
    }
  });
});
