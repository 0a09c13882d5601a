/**
 * A recognizer's output (`steps` × `classes` probabilities) as text, by CTC's greedy rule: the
 * likeliest class at each step, repeats merged, blanks (class 0) dropped. `characters[i]` is class
 * i + 1. The score is the mean probability of the characters kept (0 when none).
 */
export function decodeCtc(probabilities: Float32Array, steps: number, classes: number, characters: readonly string[]): { text: string; score: number } {
  let text = "";
  let sum = 0;
  let kept = 0;
  let previous = -1;
  for (let step = 0; step < steps; step++) {
    const base = step * classes;
    let best = 0;
    let bestProbability = probabilities[base]!;
    for (let c = 1; c < classes; c++) {
      const p = probabilities[base + c]!;
      if (p > bestProbability) {
        bestProbability = p;
        best = c;
      }
    }
    if (best !== 0 && best !== previous) {
      text += characters[best - 1] ?? "";
      sum += bestProbability;
      kept++;
    }
    previous = best;
  }
  return { text, score: kept === 0 ? 0 : sum / kept };
}
