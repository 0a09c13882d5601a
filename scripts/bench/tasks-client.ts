// The few API calls the task benchmark makes: account set-up, create, get and list tasks.

export interface Session {
  baseUrl: string;
  userId: number;
  token: string;
}

/** The fields of an import task the benchmark reads (times are ISO strings from the server's clock). */
export interface TaskView {
  id: number;
  platform: string;
  status: "pending" | "running" | "completed" | "failed";
  error: string | null;
  note_id: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const isTerminal = (task: TaskView) => task.status === "completed" || task.status === "failed";

/** Every benchmark account's password. */
export const BENCH_PASSWORD = "bench-password-123";

export async function registerAndLogin(baseUrl: string, username: string): Promise<Session> {
  const password = BENCH_PASSWORD;
  // No keep-alive: an idle socket of ours would be counted among a load run's connections.
  const registered = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    keepalive: false,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  if (registered.status !== 201) throw new Error(`register ${username}: ${registered.status} ${await registered.text()}`);
  const { id } = (await registered.json()) as { id: number };
  const login = await fetch(`${baseUrl}/api/auth/login`, {
    method: "POST",
    keepalive: false,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }).toString(),
  });
  if (login.status !== 200) throw new Error(`login ${username}: ${login.status} ${await login.text()}`);
  const { access_token: token } = (await login.json()) as { access_token: string };
  return { baseUrl, userId: id, token };
}

const auth = (session: Session) => ({ authorization: `Bearer ${session.token}` });

/** POST /api/tasks; never throws: a network error is status 0. */
export async function createTask(session: Session, body: string): Promise<{ status: number; task?: TaskView; error?: string }> {
  try {
    const response = await fetch(`${session.baseUrl}/api/tasks`, {
      method: "POST",
      headers: { ...auth(session), "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    if (response.status !== 201) return { status: response.status, error: text.slice(0, 300) };
    return { status: response.status, task: JSON.parse(text) as TaskView };
  } catch (error) {
    return { status: 0, error: String(error) };
  }
}

export async function getTask(session: Session, id: number): Promise<TaskView | undefined> {
  try {
    const response = await fetch(`${session.baseUrl}/api/tasks/${id}`, { headers: auth(session) });
    if (response.status !== 200) {
      await response.arrayBuffer();
      return undefined;
    }
    return (await response.json()) as TaskView;
  } catch {
    return undefined;
  }
}

export async function listTasks(session: Session, page: number, size = 100): Promise<{ items: TaskView[]; pages: number }> {
  const response = await fetch(`${session.baseUrl}/api/tasks?page=${page}&size=${size}`, { headers: auth(session) });
  if (response.status !== 200) throw new Error(`GET /api/tasks?page=${page}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { items: TaskView[]; pages: number };
}

/** The user's tasks with the given ids, read newest first a page (of 100) at a time until all are found. */
export async function findTasks(session: Session, ids: Iterable<number>): Promise<Map<number, TaskView>> {
  const wanted = new Set(ids);
  const found = new Map<number, TaskView>();
  for (let page = 1; found.size < wanted.size; page++) {
    const { items, pages } = await listTasks(session, page);
    for (const task of items) if (wanted.has(task.id)) found.set(task.id, task);
    if (page >= pages) break;
  }
  return found;
}
