// The part of the WebExtension API this extension calls, typed here rather than through
// @types/chrome: Chromium's `chrome` and Firefox's `browser` both answer these with promises under
// Manifest V3. Listeners of runtime.onMessage answer through `sendResponse` (returning true), the
// one form both browsers take.

export interface Tab {
  id?: number;
  url?: string;
  title?: string;
}

export interface MessageSender {
  id?: string;
  url?: string;
  tab?: Tab;
}

export interface MenuClick {
  menuItemId: string | number;
  linkUrl?: string;
  srcUrl?: string;
  pageUrl?: string;
  selectionText?: string;
  frameId?: number;
}

interface BrowserEvent<Listener> {
  addListener(listener: Listener): void;
}

export interface InjectionResult<T> {
  frameId: number;
  result?: T;
}

export interface ExtensionApi {
  runtime: {
    id: string;
    getURL(path: string): string;
    sendMessage(message: unknown): Promise<unknown>;
    onMessage: BrowserEvent<(message: unknown, sender: MessageSender, sendResponse: (response: unknown) => void) => boolean | undefined>;
    onInstalled: BrowserEvent<() => void>;
  };
  action: {
    setBadgeText(details: { text: string; tabId?: number }): Promise<void>;
    setBadgeBackgroundColor(details: { color: string; tabId?: number }): Promise<void>;
    setTitle(details: { title: string; tabId?: number }): Promise<void>;
    onClicked: BrowserEvent<(tab: Tab) => void>;
  };
  contextMenus: {
    create(properties: { id: string; title: string; contexts: string[] }): unknown;
    removeAll(): Promise<void>;
    onClicked: BrowserEvent<(info: MenuClick, tab?: Tab) => void>;
  };
  commands: {
    onCommand: BrowserEvent<(command: string, tab?: Tab) => void>;
  };
  scripting: {
    executeScript<Args extends unknown[], Result>(injection: {
      target: { tabId: number; allFrames?: boolean; frameIds?: number[] };
      func: (...args: Args) => Result;
      args?: Args;
    }): Promise<InjectionResult<Awaited<Result>>[]>;
  };
  storage: {
    local: {
      get(keys: string[]): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string[]): Promise<void>;
    };
  };
  identity: {
    getRedirectURL(path?: string): string;
    launchWebAuthFlow(details: { url: string; interactive: boolean }): Promise<string | undefined>;
  };
  notifications: {
    create(id: string, options: { type: "basic"; iconUrl: string; title: string; message: string }): Promise<string>;
    clear(id: string): Promise<boolean>;
    onClicked: BrowserEvent<(id: string) => void>;
  };
  tabs: {
    create(properties: { url: string }): Promise<Tab>;
    query(query: { active: boolean; lastFocusedWindow: boolean }): Promise<Tab[]>;
    get(tabId: number): Promise<Tab>;
  };
}

const scope = globalThis as unknown as { browser?: ExtensionApi; chrome?: ExtensionApi };

/** Firefox's `browser`, else Chromium's `chrome`. */
export const ext: ExtensionApi = (scope.browser ?? scope.chrome)!;
