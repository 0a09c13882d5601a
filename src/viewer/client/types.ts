// The API shapes the page reads (CONTRACT.md "Knowledge graph", "Notes", "Live progress").

export interface GraphNode {
  id: number;
  label: string;
  type: string;
  description: string;
  weight: number;
  degree: number;
  community: number;
  note_ids: number[];
  /** Other names of the concept; not every server sends them. */
  aliases?: string[];
}

export interface GraphEdge {
  id: number;
  source: number;
  target: number;
  label: string;
  weight: number;
  note_ids: number[];
}

export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
  stats: { nodes: number; edges: number; total_nodes: number; total_edges: number; communities: number };
}

export interface NodeDetail {
  node: GraphNode;
  neighbours: GraphNode[];
  edges: GraphEdge[];
  notes: { id: number; title: string; excerpt: string }[];
}

export interface BuildStatus {
  status: "idle" | "building" | "completed" | "failed";
  progress: number;
  message: string | null;
  mode: string | null;
  build_id: number | null;
  notes_total: number;
  notes_processed: number;
  nodes: number;
  edges: number;
  error: string | null;
  usage: { llm_calls: number; input_tokens: number; output_tokens: number };
}

export interface Note {
  id: number;
  title: string;
  content: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  source?: { platform: string; url: string | null; author: string | null } | null;
}

/** An item of `Notes` (GET /api/notes): no content; `snippet` and `highlights` only with `q`. */
export interface NoteListItem {
  id: number;
  title: string;
  tags: string[];
  excerpt: string;
  updated_at: string;
  snippet?: string;
  highlights?: [number, number][];
}

export interface NotePage {
  items: NoteListItem[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

/** An import task (CONTRACT.md "Import tasks"). */
export interface Task {
  id: number;
  platform: string;
  url: string | null;
  status: "pending" | "running" | "completed" | "failed";
  progress: number;
  message: string | null;
  error: string | null;
  note_id: number | null;
  created_at: string;
}

export interface User {
  id: number;
  username: string;
  created_at: string;
  totp_enabled: boolean;
  usage: { llm_calls: number; input_tokens: number; output_tokens: number; transcribed_seconds: number; stt_requests: number };
  storage: { files: number; bytes: number };
}

export interface TokenAnswer {
  access_token: string;
  totp_required: boolean;
}
