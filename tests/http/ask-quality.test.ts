import { expect, test } from "bun:test";
import { Api } from "../support/api";
import { serverForThisFile } from "../support/server";
import { askEval, seedAskEval } from "../fixtures/ask-eval/through-api";
import { formatScores, LANGUAGES, loadAskEvalSet, scoreAnswers } from "../fixtures/ask-eval/score";

// The figures `bun run bench:ask` printed when retrieval was last tuned (README, "Asking your notes");
// deterministic, so a change that loses any of them fails here. Retrieval follows the concepts the
// question names through the graph: the local extractor's held-out round (issue 46) moved en MRR from
// 0.98 to 0.96 (two questions' note now second) and zh from 0.95 to 0.98; its second round (more key phrases
// a note, repeated word strings, a common English word said once no concept) to 0.91 (four questions' note
// second, one fourth; every answer still in the top five).
const RECORDED = {
  en: { recallAt5: 1, mrr: 0.91, answerHeld: 1 },
  zh: { recallAt5: 1, mrr: 0.98, answerHeld: 1 },
};

const { server } = await serverForThisFile();

test("retrieval over the evaluation set keeps recall@5, MRR and answers held per language", async () => {
  const set = loadAskEvalSet();
  expect(set.questions.length).toBeGreaterThanOrEqual(40);
  const { api } = await new Api(server.url).newUser("asker");
  const noteIds = await seedAskEval(server.url, api.token!, set);
  const answers = [];
  for (const question of set.questions) answers.push((await askEval(server.url, api.token!, noteIds, question.q)).passages);
  const scores = scoreAnswers(set.questions, answers);
  const report = `${formatScores(scores)}\n${LANGUAGES.flatMap((language) => scores[language].misses).join("\n")}`;
  for (const language of LANGUAGES) {
    expect({ language, report, recallAt5: scores[language].recallAt5 >= RECORDED[language].recallAt5 }).toMatchObject({ recallAt5: true });
    expect({ language, report, mrr: scores[language].mrr >= RECORDED[language].mrr }).toMatchObject({ mrr: true });
    expect({ language, report, answerHeld: scores[language].answerHeld >= RECORDED[language].answerHeld }).toMatchObject({ answerHeld: true });
  }
}, 120_000);
