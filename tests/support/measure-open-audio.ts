// Opens one recording with openAudio in a process of its own and prints, as JSON, what it held and
// how far its resident memory grew: a memory bound measured where no other test's servers or
// garbage share the heap.
import { openAudio } from "../../src/modules/transcripts/audio-pieces";

const [file, keep] = process.argv.slice(2);
Bun.gc(true);
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
const audio = await openAudio(file!, { keepSeconds: Number(keep) });
const answer = { packets: audio.times.length, end: audio.end };
audio.close();
clearInterval(sampler);
console.log(JSON.stringify({ ...answer, growth: Math.max(peak, process.memoryUsage().rss) - before }));
