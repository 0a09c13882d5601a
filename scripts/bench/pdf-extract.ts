// bench:documents' baseline: PDF.js (through unpdf, with the service's options) reading every page's
// text of the file named on the command line, in a process of its own; prints the seconds it took
// the first time (cold, as the service's reading thread is for each document) and a second time (warm).
import fs from "node:fs";
import { getDocumentProxy } from "unpdf";

async function extract(file: string): Promise<{ seconds: number; characters: number }> {
  const started = performance.now();
  const pdf = await getDocumentProxy(new Uint8Array(fs.readFileSync(file)), { disableFontFace: true, isEvalSupported: false, useSystemFonts: false, verbosity: 0 });
  let characters = 0;
  for (let number = 1; number <= pdf.numPages; number++) {
    const page = await pdf.getPage(number);
    for (const item of (await page.getTextContent()).items) characters += "str" in item ? item.str.length : 0;
    page.cleanup();
  }
  await pdf.destroy();
  return { seconds: (performance.now() - started) / 1000, characters };
}

const cold = await extract(process.argv[2]!);
const warm = await extract(process.argv[2]!);
console.log(JSON.stringify({ cold: cold.seconds, warm: warm.seconds, characters: cold.characters }));
