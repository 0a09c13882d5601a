import { estimateTextTokens, type TokenRatios, CLAUDE_TOKENS } from "../../llm/estimate-tokens";
import type { AskPassage } from "../schemas";

// What a document costs besides its text: its title, block markup and the citation settings.
const DOCUMENT_OVERHEAD_TOKENS = 30;

/** The best passages, in order, whose estimated tokens fit in `budget` (ASK_MAX_INPUT_TOKENS less the prompt). */
export function passagesWithin(passages: AskPassage[], budget: number, ratios: TokenRatios = CLAUDE_TOKENS): AskPassage[] {
  const kept: AskPassage[] = [];
  let spent = 0;
  for (const passage of passages) {
    const cost = estimateTextTokens(passage.text, ratios) + estimateTextTokens(passage.title, ratios) + DOCUMENT_OVERHEAD_TOKENS;
    if (spent + cost > budget) break;
    kept.push(passage);
    spent += cost;
  }
  return kept;
}
