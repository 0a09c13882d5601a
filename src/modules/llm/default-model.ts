/**
 * The newest Haiku-class model the installed SDK knows: fast and cheap, enough for extraction and
 * for answers. Its own module, so that naming it (in a build's status, a dry run) loads no SDK.
 */
export const DEFAULT_ANTHROPIC_MODEL = "claude-haiku-5-5";
