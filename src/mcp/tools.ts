import type { AnyRouter } from "@trpc/server";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { getInputOutputParsers, instanceofZodTypeLikeVoid } from "trpc-to-openapi";
import type { z } from "zod";
import type { Meta } from "../trpc/init";
import { validationIssues } from "../trpc/init";
import { callProcedure, errorOfCall, procedureAt, type ErrorBody } from "../trpc/call-procedure";
import type { Access } from "../modules/tokens/scopes";
import type { Caller } from "./caller";
import { toolSchema } from "./json-schema";
import type { ToolSpec } from "./tool-catalogue";

/** A tool ready to list and call: its MCP definition, computed once, and the access its procedure declares. */
export interface McpTool {
  spec: ToolSpec;
  access: Access;
  definition: Tool;
  /** The narrowed input, parsed before the procedure parses its own. */
  inputParser?: z.ZodType;
  /** False for procedures without input (`whoami`): the agent's `{}` is not passed on. */
  takesInput: boolean;
}

/** Every tool of the catalogue, from its procedure's meta and Zod schemas. */
export function buildTools(router: AnyRouter, catalogue: ToolSpec[]): Map<string, McpTool> {
  const tools = new Map<string, McpTool>();
  for (const spec of catalogue) {
    const procedure = procedureAt(router, spec.procedure);
    if (!procedure) throw new Error(`MCP tool ${spec.name}: no procedure ${spec.procedure}`);
    const meta = procedure._def.meta as Meta | undefined;
    const { inputParser, outputParser } = getInputOutputParsers(procedure) as { inputParser: z.ZodType; outputParser: z.ZodType };
    const narrowed = spec.input?.(inputParser);
    const description = spec.description ?? [meta?.openapi?.summary, meta?.openapi?.description].filter(Boolean).join(". ");
    tools.set(spec.name, {
      spec,
      access: meta?.access ?? "session",
      inputParser: narrowed,
      takesInput: !instanceofZodTypeLikeVoid(inputParser),
      definition: {
        name: spec.name,
        title: spec.title,
        description,
        inputSchema: toolSchema(narrowed ?? inputParser, "input") as Tool["inputSchema"],
        outputSchema: toolSchema(spec.output?.schema ?? outputParser, "output") as Tool["outputSchema"],
        annotations: { title: spec.title, ...spec.annotations },
        ...(spec.meta && { _meta: spec.meta }),
      },
    });
  }
  return tools;
}

/**
 * Calls the tool's procedure as the token's user, through the same code as REST. A caller's
 * mistake (bad input, not found, a missing scope, a conflict, a throttle) is an `isError` result
 * whose text is the error body's message, never a protocol error.
 */
export async function callTool(router: AnyRouter, tool: McpTool, caller: Caller, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  let input: unknown = args ?? {};
  if (tool.inputParser) {
    const parsed = tool.inputParser.safeParse(input);
    if (!parsed.success) return errorResult({ code: "BAD_REQUEST", message: "Input validation failed", issues: validationIssues(parsed.error) });
    input = parsed.data;
  }
  const procedureInput = !tool.takesInput ? undefined : tool.spec.toProcedureInput ? tool.spec.toProcedureInput(input) : input;
  let answer: unknown;
  try {
    answer = await callProcedure(router, tool.spec.procedure, caller, procedureInput);
  } catch (cause) {
    return errorResult(errorOfCall(router, cause, { path: tool.spec.procedure, ctx: caller, input: procedureInput }).body);
  }
  const structured = (tool.spec.output ? tool.spec.output.from(answer, input) : answer) as Record<string, unknown>;
  const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  if (tool.spec.linksNote) {
    const note = structured as { id: number; title: string };
    result.content.push({ type: "resource_link", uri: noteUri(note.id), name: note.title, mimeType: "text/markdown" });
  }
  return result;
}

export const noteUri = (id: number) => `rhizome://notes/${id}`;

function errorResult(body: ErrorBody): CallToolResult {
  const details = body.issues?.map((issue) => `${issue.path.join(".") || "(input)"}: ${issue.message}`).join("; ");
  return { isError: true, content: [{ type: "text", text: details ? `${body.message}: ${details}` : body.message }] };
}
