// Documents the tests make themselves: PDFs printed by Debian's Chromium from known HTML (through
// playwright-core's page.pdf, with running headers and footers), PNG pictures, and how far a text
// read back is from the one printed (character error rate).
import { strToU8, zipSync } from "fflate";
import type { Browser } from "playwright-core";
import { encodePng } from "../../src/modules/documents/png";

export interface PrintOptions {
  /** Repeated at the top of every page (Chromium's header template; `<span class="pageNumber">` is the page number). */
  header?: string;
  footer?: string;
}

/** Prints HTML to a PDF (A4, 2 cm margins) with the browser's own PDF writer. */
export async function printPdf(browser: Browser, html: string, options: PrintOptions = {}): Promise<Uint8Array<ArrayBuffer>> {
  const page = await browser.newPage();
  try {
    await page.setContent(html, { waitUntil: "load" });
    const template = (text: string | undefined) => `<div style="font-size:9px;width:100%;text-align:center;font-family:serif">${text ?? ""}</div>`;
    const bytes = await page.pdf({
      format: "A4",
      displayHeaderFooter: Boolean(options.header || options.footer),
      headerTemplate: template(options.header),
      footerTemplate: template(options.footer),
      margin: { top: "2.5cm", bottom: "2.5cm", left: "2cm", right: "2cm" },
    });
    return new Uint8Array(bytes);
  } finally {
    await page.close();
  }
}

/** A PNG of `width` × `height` grey stripes (real pixels, so PDF writers and readers keep it as a picture). */
export function stripedPng(width: number, height: number): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.fill(((x >> 4) + (y >> 4)) % 2 ? 40 : 220, (y * width + x) * 3, (y * width + x) * 3 + 3);
  return new Uint8Array(encodePng({ width, height, channels: 3, data }));
}

/** Levenshtein distance between two texts, by code point, over the expected text's length. */
export function characterErrorRate(expected: string, actual: string): number {
  const a = Array.from(expected);
  const b = Array.from(actual);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return a.length === 0 ? (b.length === 0 ? 0 : 1) : previous[b.length]! / a.length;
}

/**
 * A PDF with page labels added (an incremental update: the catalogue again with `/PageLabels`, a new
 * cross-reference section and trailer), as a book's front matter numbered i, ii then 1, 2, ….
 * `ranges`: from which page (0-based) which style (`r` roman, `D` decimal) starts, from 1.
 */
export function withPageLabels(pdf: Uint8Array, ranges: { from: number; style: "r" | "D" }[]): Uint8Array<ArrayBuffer> {
  const text = Buffer.from(pdf).toString("latin1");
  const trailer = text.slice(text.lastIndexOf("trailer"));
  const root = /\/Root (\d+) 0 R/.exec(trailer)!;
  const size = Number(/\/Size (\d+)/.exec(trailer)![1]);
  const info = /\/Info (\d+) 0 R/.exec(trailer);
  const previous = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf("startxref")))![1]);
  const objectStart = text.search(new RegExp(`(^|\\n)${root[1]} 0 obj`));
  const objectText = text.slice(objectStart, text.indexOf("endobj", objectStart));
  const dictionary = objectText.slice(objectText.indexOf("<<"), objectText.lastIndexOf(">>"));
  const nums = ranges.map((range) => `${range.from} << /S /${range.style} >>`).join(" ");
  const update = `\n${root[1]} 0 obj\n${dictionary} /PageLabels << /Nums [${nums}] >> >>\nendobj\n`;
  const offset = pdf.length + 1;
  const xref = `xref\n0 1\n0000000000 65535 f \n${root[1]} 1\n${String(offset).padStart(10, "0")} 00000 n \ntrailer\n<< /Size ${size} /Root ${root[1]} 0 R${info ? ` /Info ${info[1]} 0 R` : ""} /Prev ${previous} >>\nstartxref\n${pdf.length + update.length}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([Buffer.from(pdf), Buffer.from(update + xref, "latin1")]));
}

export interface EpubChapter {
  /** Its title in the table of contents. */
  title: string;
  /** The chapter's body (XHTML); `images/<name>` refers to a picture of `pictures`. */
  body: string;
}

/**
 * An EPUB 3 zipped as readers expect (`mimetype` first and stored): a package document with
 * `dc:title`, a spine in the order given (listed in the manifest in reverse, so reading order must
 * come from the spine), a navigation document naming each chapter, and pictures under `images/`.
 */
export function buildEpub(options: { title: string; chapters: EpubChapter[]; pictures?: Record<string, Uint8Array> }): Uint8Array<ArrayBuffer> {
  const chapters = options.chapters.map((chapter, index) => ({ ...chapter, id: `c${index + 1}`, href: `text/chapter-${index + 1}.xhtml` }));
  const xhtml = (title: string, body: string) =>
    `<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>${title}</title></head><body>${body}</body></html>`;
  const pictures = Object.entries(options.pictures ?? {});
  const opf = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>${options.title}</dc:title><dc:language>en</dc:language></metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    ${[...chapters].reverse().map((chapter) => `<item id="${chapter.id}" href="${chapter.href}" media-type="application/xhtml+xml"/>`).join("\n    ")}
    ${pictures.map(([name], index) => `<item id="p${index}" href="images/${name}" media-type="image/png"/>`).join("\n    ")}
  </manifest>
  <spine>${chapters.map((chapter) => `<itemref idref="${chapter.id}"/>`).join("")}</spine>
</package>`;
  const nav = xhtml("Contents", `<nav epub:type="toc"><ol>${chapters.map((chapter) => `<li><a href="${chapter.href}">${chapter.title}</a></li>`).join("")}</ol></nav>`);
  return zipSync(
    {
      mimetype: [strToU8("application/epub+zip"), { level: 0 }],
      "META-INF/container.xml": strToU8(`<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
      "OEBPS/content.opf": strToU8(opf),
      "OEBPS/nav.xhtml": strToU8(nav),
      ...Object.fromEntries(chapters.map((chapter) => [`OEBPS/${chapter.href}`, strToU8(xhtml(chapter.title, chapter.body))])),
      ...Object.fromEntries(pictures.map(([name, bytes]) => [`OEBPS/images/${name}`, bytes])),
    },
    { level: 6 },
  ) as Uint8Array<ArrayBuffer>;
}

/** A run of text in a DOCX paragraph. */
export type DocxRun = string | { text: string; bold?: boolean; italic?: boolean; link?: string };

/** One block of a DOCX body. `table`: rows of cells; `headerRow` marks the first row as Word's repeated header row. */
export type DocxBlock =
  | { heading: 1 | 2 | 3; text: string }
  | { paragraph: DocxRun[] }
  | { bullet: string }
  | { numbered: string }
  | { table: string[][]; headerRow?: boolean }
  | { picture: Uint8Array; alt: string };

/**
 * A Word document (Office Open XML) written part by part: styles naming the headings, numbering for
 * bullets and numbered lists, external hyperlinks and pictures as relationships, and the core
 * properties' `dc:title`.
 */
export function buildDocx(options: { title?: string; blocks: DocxBlock[] }): Uint8Array<ArrayBuffer> {
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const relationships: string[] = [];
  const media: Record<string, Uint8Array> = {};
  const relate = (type: string, target: string, external = false) => {
    const id = `rId${relationships.length + 10}`;
    relationships.push(`<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${escape(target)}"${external ? ' TargetMode="External"' : ""}/>`);
    return id;
  };
  const run = (part: DocxRun) => {
    const spec = typeof part === "string" ? { text: part } : part;
    const properties = `${spec.bold ? "<w:b/>" : ""}${spec.italic ? "<w:i/>" : ""}`;
    const xml = `<w:r>${properties ? `<w:rPr>${properties}</w:rPr>` : ""}<w:t xml:space="preserve">${escape(spec.text)}</w:t></w:r>`;
    return spec.link ? `<w:hyperlink r:id="${relate("hyperlink", spec.link, true)}">${xml}</w:hyperlink>` : xml;
  };
  const paragraph = (content: string, properties = "") => `<w:p>${properties ? `<w:pPr>${properties}</w:pPr>` : ""}${content}</w:p>`;
  const body = options.blocks
    .map((block) => {
      if ("heading" in block) return paragraph(run(block.text), `<w:pStyle w:val="Heading${block.heading}"/>`);
      if ("paragraph" in block) return paragraph(block.paragraph.map(run).join(""));
      if ("bullet" in block) return paragraph(run(block.bullet), `<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`);
      if ("numbered" in block) return paragraph(run(block.numbered), `<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr>`);
      if ("table" in block) {
        const rows = block.table.map((cells, index) => `<w:tr>${index === 0 && block.headerRow ? "<w:trPr><w:tblHeader/></w:trPr>" : ""}${cells.map((cell) => `<w:tc>${paragraph(run(cell))}</w:tc>`).join("")}</w:tr>`);
        return `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>${rows.join("")}</w:tbl>`;
      }
      const name = `image${Object.keys(media).length + 1}.png`;
      media[name] = block.picture;
      const id = relate("image", `media/${name}`);
      return paragraph(
        `<w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="${Object.keys(media).length}" name="${name}" descr="${escape(block.alt)}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="${name}" descr="${escape(block.alt)}"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="${id}"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`,
      );
    })
    .join("");
  const namespaces =
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';
  const style = (id: string, name: string) => `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`;
  const level = (format: string, text: string) => `<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${text}"/></w:lvl>`;
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    ),
    "docProps/core.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">${options.title ? `<dc:title>${escape(options.title)}</dc:title>` : ""}<dc:creator>Tests</dc:creator></cp:coreProperties>`,
    ),
    "word/document.xml": strToU8(`<?xml version="1.0" encoding="UTF-8"?><w:document ${namespaces}><w:body>${body}</w:body></w:document>`),
    "word/styles.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">${style("Heading1", "heading 1")}${style("Heading2", "heading 2")}${style("Heading3", "heading 3")}${style("ListParagraph", "List Paragraph")}</w:styles>`,
    ),
    "word/numbering.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:abstractNum w:abstractNumId="0">${level("bullet", "•")}</w:abstractNum><w:abstractNum w:abstractNumId="1">${level("decimal", "%1.")}</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`,
    ),
    "word/_rels/document.xml.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>${relationships.join("")}</Relationships>`,
    ),
    ...Object.fromEntries(Object.entries(media).map(([name, bytes]) => [`word/media/${name}`, bytes])),
  }) as Uint8Array<ArrayBuffer>;
}

/**
 * A one-page PDF written by hand whose Chinese text is set in a font it does not embed
 * (STSong-Light through the predefined CMap UniGB-UCS2-H), as older Chinese PDFs are: a reader
 * without the CMap finds no text on it.
 */
export function pdfWithUnembeddedChineseFont(text: string): Uint8Array<ArrayBuffer> {
  const codes = Array.from(text, (character) => character.codePointAt(0)!.toString(16).padStart(4, "0")).join("");
  const content = `BT /F1 24 Tf 72 700 Td <${codes}> Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>",
    "<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [5 0 R] >>",
    "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor 7 0 R >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>",
  ];
  let pdf = "%PDF-1.4\n";
  const offsets = objects.map((object, index) => {
    const offset = pdf.length;
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(pdf, "latin1"));
}
