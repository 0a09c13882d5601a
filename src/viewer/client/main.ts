// The page: log in, then the notes app (`/`, client/app/) or the graph view (`/graph`): draw the
// user's knowledge graph, explore it, build it, follow the build.
import { ApiError, get, post, whenUnauthorized } from "./api";
import { setUpNotesApp } from "./app/notes-app";
import { markNav, pathOf, placeShared, viewOfPath, type ViewName } from "./app/views";
import { resolveWikilink } from "./app/wikilinks";
import { setUpAsk } from "./ask";
import { ConceptList } from "./concept-list";
import { renderDetails, renderDetailsMessage } from "./details";
import { button, byId } from "./dom";
import { followEvents, type EventStream } from "./events";
import { renderLegend, renderTypeOptions } from "./filters";
import { GraphView, webglAvailable } from "./graph-view";
import { around, cachedLayout, computeLayout, LayoutSuperseded, saveLayout, seededPositions, type LayoutKey, type Point } from "./layout";
import { setUpLogin } from "./login";
import { setUpNoteSearch } from "./note-search";
import { setUpNoteView } from "./note-view";
import { accessTokensRegion } from "./settings/access-tokens";
import { accountRegion } from "./settings/account";
import { saveAnywhereRegion } from "./settings/save-anywhere";
import { sessionsRegion } from "./settings/sessions";
import { searchStatusRegion } from "./settings/search-status";
import { setUpSettings } from "./settings/settings-view";
import { webhooksRegion } from "./settings/webhooks";
import { twoFactorRegion } from "./settings/two-factor";
import { setUpTrash } from "./trash/trash-view";
import { setUpFeeds } from "./feeds/feeds-view";
import { keepUpToDate } from "./offline/app-updates";
import { setOfflineAccount, unreachable } from "./offline/account";
import { setUpOutbox } from "./offline/outbox";
import { setUpSaveView } from "./save/save-view";
import { forgetToken, readToken, rememberUser, rememberedUser, restoreKeptLogin } from "./session";
import { describeStatus } from "./status-line";
import type { BuildStatus, GraphData, GraphNode, NodeDetail, Task, User } from "./types";

const loginView = byId("login-view");
const graphView = byId("graph-view");
const notesView = byId("notes-view");
const trashView = byId("trash-view");
const feedsView = byId("feeds-view");
const settingsView = byId("settings-view");
const saveView = byId("save-view");
const nav = byId("views");
const account = byId("account");
const statusLine = byId("status");
const graphElement = byId("graph");
const graphMessage = byId("graph-message");
const showing = byId("showing");
const limitSelect = byId<HTMLSelectElement>("limit");
const typeSelect = byId<HTMLSelectElement>("type-filter");
const legend = byId<HTMLUListElement>("legend");
const details = byId("details");
const buildButton = byId<HTMLButtonElement>("build");
const count = new Intl.NumberFormat("en");
const TITLES: Record<ViewName, string> = { notes: "Notes", graph: "Knowledge graph", feeds: "Feeds", trash: "Trash", settings: "Settings", save: "Save" };

let user: User | null = null;
let currentView: ViewName = viewOfPath(location.pathname);
/** The graph is fetched and drawn the first time its view is shown after logging in. */
let graphReady: Promise<void> | null = null;
let view: GraphView | null = null;
let events: EventStream | null = null;
let status: BuildStatus | null = null;
let liveProgressNote = "";
/** The build whose graph is drawn; a newer completed build redraws. */
let drawnBuild: number | null = null;
let totalNodes = 0;
let selection = 0;
let loading = 0;
const nodes = new Map<number, GraphNode>();
const positions = new Map<number, Point>();

const concepts = new ConceptList(byId<HTMLUListElement>("concepts"), byId<HTMLInputElement>("search"), (id) => void select(id, true));
const notes = setUpNoteView({ edit: (note) => app.edit(note), mayOpen: () => currentView !== "notes" || app.yieldPane() });
const app = setUpNotesApp(notes, { showNotes: () => go("notes") });
// In the notes app, `Search notes` filters `Notes`; in the graph view it lists `Search results`.
const noteSearch = setUpNoteSearch((id) => void notes.open(id), () => (currentView === "notes" ? app.search : null));
// The concepts a question named light up in the graph; the first is selected, with its details.
const asking = setUpAsk({
  openNote: (id, quote) => void notes.open(id, quote),
  showConcepts: (ids) => {
    view?.highlight(ids);
    const first = ids.find((id) => nodes.has(id));
    if (first !== undefined) void select(first, true);
  },
});
const trash = setUpTrash({ restored: () => app.refresh() });
const following = setUpFeeds();
const saving = setUpSaveView();
const outbox = setUpOutbox({
  noteSaved: () => app.refresh(),
  taskCreated: (task) => app.task(task),
  conflict: (save) => {
    go("notes");
    app.conflict(save);
  },
});
const settings = setUpSettings([
  accountRegion({ deleted: () => leave("Your account and everything in it are deleted.") }),
  sessionsRegion({ endedHere: () => leave("Logged out.") }),
  webhooksRegion(),
  searchStatusRegion(),
  saveAnywhereRegion(),
  twoFactorRegion(),
  accessTokensRegion(),
]);
const login = setUpLogin(() => void enter());
whenUnauthorized(() => leave("Your session has ended: log in again."));

limitSelect.addEventListener("change", () => void loadGraph());
typeSelect.addEventListener("change", () => view?.filterKind(typeSelect.value || null));
buildButton.addEventListener("click", () => void startBuild());
byId("logout").addEventListener("click", () => void logOut());

for (const link of nav.querySelectorAll<HTMLAnchorElement>("a")) {
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return; // a new tab is the browser's
    event.preventDefault();
    go(viewOfPath(new URL(link.href).pathname));
  });
}
window.addEventListener("popstate", () => show(viewOfPath(location.pathname)));
// `[[wikilinks]]` anywhere on the page (a note's view, a concept's passages) lead to their note or concept.
document.addEventListener("click", (event) => {
  const link = (event.target as Element | null)?.closest?.<HTMLAnchorElement>("a.wikilink");
  if (!link || !user) return;
  event.preventDefault();
  void follow(link.dataset.wikilink ?? "", link.closest("#note") !== null);
});

show(currentView);
keepUpToDate();
void restoreKeptLogin().then(() => (readToken() ? enter() : leave("")));
// Entered without a network: once it is back, the app starts again for real (status, events, outbox).
let enteredOffline = false;
window.addEventListener("online", () => {
  if (enteredOffline && user) void enter();
});

/** Shows a view and records it in the address bar, so Back returns to the other. */
function go(view: ViewName) {
  if (view === currentView) return;
  history.pushState(null, "", pathOf(view) + (location.hash.startsWith("#note=") ? "" : location.hash));
  show(view);
}

function show(next: ViewName) {
  currentView = next;
  placeShared(next);
  markNav(next);
  document.title = `Rhizome · ${TITLES[next]}`;
  if (!user) return;
  notesView.hidden = next !== "notes";
  graphView.hidden = next !== "graph";
  trashView.hidden = next !== "trash";
  feedsView.hidden = next !== "feeds";
  settingsView.hidden = next !== "settings";
  saveView.hidden = next !== "save";
  if (next === "graph") {
    view?.wake();
    void startGraph();
  } else if (next === "notes") {
    // The editor holds the pane: a note opened meanwhile in the graph view gives way.
    if (app.editing()) notes.close();
    app.start();
  } else if (next === "trash") trash.show();
  else if (next === "feeds") following.show();
  else if (next === "save") saving.show();
  else settings.show(user);
  if (next === "notes" || next === "graph") noteSearch.again();
}

function startGraph(): Promise<void> {
  graphReady ??= loadGraph();
  return graphReady;
}

async function follow(title: string, fromNote: boolean) {
  const say = (message: string, action?: HTMLElement) => (fromNote ? notes.say(message, action) : showMessage(message));
  let target;
  try {
    target = await resolveWikilink(title);
  } catch {
    return say(`“${title}” could not be looked up: the server could not be reached.`);
  }
  if (!target) return say(`No note or concept is called “${title}” yet.`, button("Write it", () => app.newNote(title)));
  if ("note" in target) {
    if (currentView === "notes") app.openNote(target.note);
    else void notes.open(target.note);
    return;
  }
  go("graph");
  await startGraph();
  if (nodes.has(target.concept)) await select(target.concept, true);
  else await expand(target.concept);
}

async function enter() {
  let offline = false;
  try {
    user = await get<User>("/api/auth/me");
    void rememberUser(user);
  } catch (error) {
    // Without a network, the account last seen with this login opens on the notes kept here.
    const kept = unreachable(error) ? await rememberedUser() : null;
    if (!kept) {
      if (!(error instanceof ApiError && error.status === 401)) leave("The server could not be reached. Try again.");
      return;
    }
    user = kept;
    offline = true;
  }
  enteredOffline = offline;
  setOfflineAccount(user.id);
  loginView.hidden = true;
  // Out of the page while logged in: Settings has Password and Code fields of its own, and each label names one thing.
  loginView.remove();
  account.hidden = false;
  nav.hidden = false;
  if (offline) {
    show(currentView);
    statusLine.textContent = "Offline: the notes kept on this device can be read, and what you write is sent once you are back online.";
    return;
  }
  const statusRead = get<BuildStatus>("/api/knowledge-graph/status").then(showStatus, () => {
    statusLine.textContent = "The build status could not be read.";
  });
  // The notes need no build status: they load while it is read. The graph waits for it (its
  // cached layout is kept per build).
  if (currentView === "notes") show("notes");
  outbox.start(user);
  await statusRead;
  if (!user) return;
  events?.close();
  events = followEvents({
    graph: (update) => {
      showStatus(update);
      if (update.status === "completed" && update.build_id !== drawnBuild && graphReady) graphReady = loadGraph();
    },
    task: (task) => app.task(task as Task),
    unavailable: (message) => {
      liveProgressNote = message;
      if (status) showStatus(status);
    },
  });
  show(currentView);
  if (currentView === "graph") await startGraph();
  openLinkedNote();
}

/** `/graph#note=<id>` opens that note (the link MCP's `search` and `fetch` give an agent's user). */
function openLinkedNote() {
  const linked = /^#note=(\d+)$/.exec(location.hash);
  if (!linked || !user) return;
  if (currentView === "notes") app.openNote(Number(linked[1]));
  else void notes.open(Number(linked[1]));
}
window.addEventListener("hashchange", openLinkedNote);

/** Back to the login form, with nothing of the last account left in the page. */
function leave(message: string) {
  loading++;
  selection++;
  events?.close();
  events = null;
  view?.kill();
  view = null;
  user = null;
  graphReady = null;
  status = null;
  drawnBuild = null;
  nodes.clear();
  positions.clear();
  concepts.setNodes([]);
  byId<HTMLInputElement>("search").value = "";
  legend.replaceChildren();
  renderDetailsMessage(details, "");
  notes.close();
  noteSearch.reset();
  asking.reset();
  app.reset();
  trash.reset();
  following.reset();
  settings.reset();
  saving.reset();
  outbox.stop();
  setOfflineAccount(null);
  enteredOffline = false;
  showing.textContent = "";
  showMessage("");
  delete graphElement.dataset.drawn;
  delete graphElement.dataset.layout;
  login.reset();
  graphView.hidden = true;
  notesView.hidden = true;
  trashView.hidden = true;
  feedsView.hidden = true;
  settingsView.hidden = true;
  saveView.hidden = true;
  account.hidden = true;
  nav.hidden = true;
  loginView.hidden = false;
  document.body.insertBefore(loginView, notesView);
  login.offerAccounts();
  statusLine.textContent = message;
  byId<HTMLInputElement>("username").focus();
}

async function logOut() {
  try {
    await post("/api/auth/logout");
  } catch {
    // The token is forgotten either way.
  }
  forgetToken();
  leave("Logged out.");
}

function showStatus(update: BuildStatus) {
  status = update;
  statusLine.textContent = describeStatus(update) + (liveProgressNote ? ` (${liveProgressNote})` : "");
  buildButton.disabled = update.status === "building";
}

async function startBuild() {
  buildButton.disabled = true;
  try {
    showStatus(await post<BuildStatus>("/api/knowledge-graph/build", { mode: "incremental" }));
  } catch (error) {
    statusLine.textContent = error instanceof ApiError ? `The build did not start: ${error.message}` : "The server could not be reached.";
    buildButton.disabled = false;
  }
}

/** Fetches the heaviest nodes (the chosen limit) and draws them; a newer load makes an older one stop. */
async function loadGraph() {
  const attempt = ++loading;
  const limit = Number(limitSelect.value);
  const buildId = status?.build_id ?? null;
  drawnBuild = buildId;
  try {
    const data = await get<GraphData>(`/api/knowledge-graph?limit=${limit}`);
    if (attempt !== loading || !user) return;
    totalNodes = data.stats.total_nodes;
    nodes.clear();
    for (const node of data.nodes) nodes.set(node.id, node);
    renderTypeOptions(typeSelect, data.nodes);
    renderLegend(legend, data.nodes, (community) => view?.isolateCommunity(community));
    renderDetailsMessage(details, data.nodes.length ? "Select a concept in the graph or the list." : "No concepts yet.");
    if (currentView === "graph") notes.close();
    updateShowing();
    showMessage(data.nodes.length ? "" : "Your graph is empty: write some notes, then press Build graph.");
    await draw(data, { userId: user.id, buildId: buildId ?? 0, view: `limit=${limit}` }, attempt);
    // After the first drawing: thousands of list items would otherwise hold it back.
    if (attempt === loading) concepts.setNodes(data.nodes);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return; // the login form is back
    if (attempt === loading) showMessage(`The graph could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Draws the graph (from cached or seeded positions), then lets the layout settle in the background. */
async function draw(data: GraphData, key: LayoutKey, attempt: number) {
  if (!view && !createView()) return;
  const shown = view!;
  const cached = cachedLayout(key, data.nodes);
  positions.clear();
  for (const [id, point] of cached ?? seededPositions(data.nodes)) positions.set(id, point);
  delete graphElement.dataset.layout;
  await shown.show(data.nodes, data.edges, positions);
  if (attempt !== loading) return;
  graphElement.dataset.drawn = String(data.nodes.length);
  if (cached || data.nodes.length === 0) graphElement.dataset.layout = "settled";
  else void settle(data, key, attempt, shown);
}

/** Computes the layout in the worker, keeps it for next time, and glides the nodes there. */
async function settle(data: GraphData, key: LayoutKey, attempt: number, shown: GraphView) {
  let laidOut: Map<number, Point>;
  try {
    laidOut = await computeLayout(data.nodes, data.edges, positions, (node) => shown.sizeOf(node));
  } catch (error) {
    if (!(error instanceof LayoutSuperseded)) showMessage(`The layout could not be computed: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  if (attempt !== loading || view !== shown) return;
  saveLayout(key, data.nodes, laidOut);
  for (const [id, point] of laidOut) positions.set(id, point);
  await shown.moveTo(laidOut, true);
  if (attempt === loading) graphElement.dataset.layout = "settled";
}

function showMessage(message: string) {
  graphMessage.textContent = message;
  graphMessage.hidden = message === "";
}

/** The sigma renderer, or the concept list alone with a message when this browser has no WebGL. */
function createView(): boolean {
  if (webglAvailable()) {
    try {
      view = new GraphView(graphElement, { select: (id) => void select(id, false), expand: (id) => void expand(id) });
      return true;
    } catch {
      graphElement.replaceChildren();
    }
  }
  graphElement.dataset.drawn = "none";
  showMessage("This browser cannot draw the graph (WebGL is unavailable). Use the Concepts list to explore it.");
  return false;
}

/** Selects a concept: highlights it and its neighbours, flies there when asked, and shows its details. */
async function select(id: number | null, fly: boolean) {
  const attempt = ++selection;
  view?.select(id);
  concepts.markCurrent(id);
  if (id === null) return;
  if (fly) view?.focus(id);
  try {
    const detail = await get<NodeDetail>(`/api/knowledge-graph/nodes/${id}`);
    if (attempt === selection) renderDetails(details, detail, { pick: (next) => void select(next, true), expand: (next) => void expand(next), openNote: (note) => void notes.open(note) });
  } catch (error) {
    if (attempt === selection) renderDetailsMessage(details, error instanceof ApiError ? error.message : "The server could not be reached.");
  }
}

/** Adds a concept's neighbourhood (depth 1) to the drawing, new nodes placed around it. */
async function expand(id: number) {
  let data: GraphData;
  try {
    data = await get<GraphData>(`/api/knowledge-graph?node=${id}&depth=1`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) showMessage(`The neighbourhood could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const centre = positions.get(id) ?? { x: 0, y: 0 };
  for (const node of data.nodes) {
    if (!positions.has(node.id)) positions.set(node.id, around(centre, node.id, 15));
    nodes.set(node.id, node);
  }
  view?.add(data.nodes, data.edges, positions);
  const all = [...nodes.values()];
  concepts.setNodes(all);
  renderTypeOptions(typeSelect, all);
  updateShowing();
  await select(id, true);
}

function updateShowing() {
  showing.textContent = `showing ${count.format(nodes.size)} of ${count.format(totalNodes)} concepts`;
}
