import type { Database } from "../db/client";
import type { SecretBox } from "./auth/secret-box";
import type { ChangePublisher } from "./events/change";
import type { Session, SessionUser } from "./auth/sessions";
import type { AskSettings } from "./ask/answers/create-answerer";
import type { ExtractorSettings } from "./graph/create-extractor";
import type { GraphQueue } from "./graph/graph-queue";
import type { FileStorage } from "./files/blob-store";
import type { ImportQueue } from "./imports/import-queue";
import type { Credential } from "./tokens/credential";
import type { WebhookQueue } from "./webhooks/webhook-queue";
import type { SemanticSettings } from "./semantic/semantic-search";
import type { FeedServices } from "./feeds/feed-services";

/** What business functions need from the outside world; no HTTP or tRPC objects. */
export interface ServiceContext {
  db: Database;
  secretBox: SecretBox;
  importQueue: ImportQueue;
  graphQueue: GraphQueue;
  /** Tells open event streams (in every API process) that a task or build changed. */
  changes: ChangePublisher;
  /** Which extractor builds graphs (for status, dry runs and a build's default budget). */
  graphSettings: ExtractorSettings;
  /** Where stored images live; without it, file uploads answer 503 and deletes leave files alone. */
  files?: FileStorage;
  /** Queues webhook deliveries (test events); without it, a test event answers 503. */
  webhookQueue?: WebhookQueue;
  /** The service's external origin (PUBLIC_URL, else where it listens), for share links; none: links are paths. */
  publicUrl?: () => string;
  /** How questions are answered (ASK_MAX_INPUT_TOKENS); the defaults when absent. */
  askSettings?: AskSettings;
  /** Search by meaning (EMBEDDINGS_*); without it, search and ask are lexical. */
  semantic?: SemanticSettings;
  /** REGISTRATION: `closed` refuses new accounts once one exists; open when absent. */
  registration?: "open" | "closed";
  /** Following feeds: the guarded fetcher and the queue; without it, feed operations answer 503. */
  feeds?: FeedServices;
  /** Where uploads wait for their tasks (archives; recordings when STT is set up): a deleted account's go with it. */
  uploadDirs?: { archivesDir?: string; mediaDir?: string };
}

export interface RequestContext extends ServiceContext {
  /** The peer address, for per-address throttling; looked up only when asked (the server's lookup is not free). */
  clientAddress: () => string;
  /** The request's User-Agent (kept with a login session to tell sessions apart); absent outside HTTP. */
  userAgent?: () => string | null;
}

export interface AuthedContext extends RequestContext {
  user: SessionUser;
  userId: number;
  /** The login session or access token the request carried. */
  credential: Credential;
}

/** For operations only a login session may call (logout, TOTP, token management). */
export interface SessionContext extends AuthedContext {
  session: Session;
}
