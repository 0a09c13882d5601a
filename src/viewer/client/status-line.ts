import type { BuildStatus } from "./types";

const count = new Intl.NumberFormat("en");

/** The `role="status"` line: the status word first, then progress, the build's message, notes and tokens. */
export function describeStatus(status: BuildStatus): string {
  if (status.status === "idle") return "Graph idle: not built yet. Press Build graph.";
  const parts = [`Graph ${status.status}`, `${status.progress}%`];
  if (status.status === "failed" && status.error) parts.push(status.error);
  else if (status.message) parts.push(status.message);
  parts.push(`${count.format(status.notes_processed)} of ${count.format(status.notes_total)} notes processed`);
  parts.push(`${count.format(status.usage.input_tokens + status.usage.output_tokens)} tokens used`);
  return parts.join(" · ");
}
