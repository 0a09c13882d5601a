// A QR code drawn in the page (uqr computes the modules; one SVG path draws them): what it encodes
// never leaves the page, and SVG made with createElementNS needs no inline style under the CSP.
import { encode } from "uqr";

const SVG = "http://www.w3.org/2000/svg";
/** The quiet zone the QR standard asks for, in modules, so a camera finds the code's edges. */
const QUIET = 4;
/** Whole pixels per module: every module the same size on the screen, which readers like best. */
const MODULE_PX = 4;

export function qrCode(text: string, label: string): SVGSVGElement {
  // Level M: a screen photographed at an angle still reads; the URI fits in a small version.
  const { data, size } = encode(text, { ecc: "M", border: 0 });
  const side = size + 2 * QUIET;
  const image = document.createElementNS(SVG, "svg");
  image.setAttribute("viewBox", `0 0 ${side} ${side}`);
  image.setAttribute("width", String(side * MODULE_PX));
  image.setAttribute("height", String(side * MODULE_PX));
  image.setAttribute("role", "img");
  image.setAttribute("aria-label", label);
  image.setAttribute("shape-rendering", "crispEdges");
  image.classList.add("qr-code");
  const paper = document.createElementNS(SVG, "rect");
  paper.setAttribute("width", String(side));
  paper.setAttribute("height", String(side));
  paper.setAttribute("fill", "#fff");
  let path = "";
  data.forEach((row, y) => row.forEach((dark, x) => {
    if (dark) path += `M${x + QUIET} ${y + QUIET}h1v1h-1z`;
  }));
  const ink = document.createElementNS(SVG, "path");
  ink.setAttribute("d", path);
  ink.setAttribute("fill", "#000");
  image.append(paper, ink);
  return image;
}
