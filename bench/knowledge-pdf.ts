/**
 * PDFs of a chosen size for the knowledge bench, generated in seconds and the same every run (seeded).
 *
 * - `images` (the realistic large file): a real 20-50 MB PDF is mostly pictures, so every page carries
 *   one incompressible image (a raw RGB XObject of seeded random bytes, different on every page) and a
 *   few paragraphs of text. The size grows with the pages while the nodes stay in the low thousands.
 * - `text` (the node-heavy case): pages of text lines only, spaced so that nearly every line is its own
 *   paragraph; about 15,000 nodes a MB, so tens of MB mean hundreds of thousands of nodes.
 */
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  type PDFFont,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
} from 'pdf-lib';

export type BenchPdfKind = 'images' | 'text';
export const BENCH_PDF_KINDS = ['images', 'text'] as const satisfies readonly BenchPdfKind[];

const MB = 1024 * 1024;
const WORDS =
  'renewal pricing onboarding security migration support contract seats discount integration latency roadmap'.split(
    ' ',
  );
/** The image on every `images` page: 256 x 256 RGB, 192 KiB of random samples. */
const IMAGE_SIDE = 256;
const PARAGRAPHS_PER_IMAGE_PAGE = 5;
const LINES_PER_PARAGRAPH = 4;
/** Pages laid out first to learn a page's size, from which the page count for the target size follows. */
const SAMPLE_PAGES = 8;

/** xorshift32: fast seeded bytes (the same file every run, and nothing a compressor could shrink). */
function seededBytes(length: number, seed: number): Uint8Array {
  const words = new Uint32Array(Math.ceil(length / 4));
  let x = seed >>> 0 || 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer, 0, length);
}

const wordsLine = (seed: number, count: number): string =>
  Array.from({ length: count }, (_, i) => WORDS[(seed * 7 + i * 5 + ((seed >> 3) % 11)) % WORDS.length]).join(' ');

/** One page of the `images` kind: a picture at the top, paragraphs of text under it. */
function imagePage(pdf: PDFDocument, font: PDFFont, number: number): void {
  const page = pdf.addPage([612, 792]);
  const image = pdf.context.register(
    pdf.context.stream(seededBytes(IMAGE_SIDE * IMAGE_SIDE * 3, number + 1), {
      Type: 'XObject',
      Subtype: 'Image',
      Width: IMAGE_SIDE,
      Height: IMAGE_SIDE,
      ColorSpace: 'DeviceRGB',
      BitsPerComponent: 8,
    }),
  );
  const name = page.node.newXObject('Im', image);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(IMAGE_SIDE, 0, 0, IMAGE_SIDE, 178, 500),
    drawObject(name),
    popGraphicsState(),
  );
  // Lines 14 pt apart within a paragraph, 30 pt between paragraphs: the parser's paragraph gap is 1.6 lines.
  let y = 470;
  for (let p = 0; p < PARAGRAPHS_PER_IMAGE_PAGE; p++) {
    for (let line = 0; line < LINES_PER_PARAGRAPH; line++, y -= 14) {
      const seed = number * 100 + p * 10 + line;
      drawLine(page, font, `${line === 0 ? `Page ${number}, note ${p}: ` : ''}${wordsLine(seed, 11)}.`, y);
    }
    y -= 16;
  }
}

/** One page of the `text` kind: 40 lines, unevenly spaced so that most lines become a paragraph each. */
function textPage(pdf: PDFDocument, font: PDFFont, number: number): void {
  const page = pdf.addPage([612, 792]);
  for (let line = 0; line < 40; line++)
    drawLine(
      page,
      font,
      `${number}.${line} ${wordsLine(number * 40 + line, 12)}.`,
      760 - line * (line % 5 === 4 ? 24 : 18),
    );
}

function drawLine(page: PDFPage, font: PDFFont, text: string, y: number): void {
  page.drawText(text, { x: 40, y, size: 10, font });
}

/**
 * A PDF of about `mb` megabytes (within a page's size) of the given kind: a few sample pages are laid
 * out and saved to learn a page's size, then the rest of the pages are added and the file saved once.
 */
export async function benchPdf(kind: BenchPdfKind, mb: number): Promise<{ bytes: Uint8Array; pages: number }> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const addPage = kind === 'images' ? imagePage : textPage;
  for (let n = 1; n <= SAMPLE_PAGES; n++) addPage(pdf, font, n);
  const sample = await pdf.save({ useObjectStreams: false });
  const empty = await (await PDFDocument.create()).save({ useObjectStreams: false });
  const perPage = (sample.length - empty.length) / SAMPLE_PAGES;
  const pages = Math.max(SAMPLE_PAGES, Math.round((mb * MB - empty.length) / perPage));
  for (let n = SAMPLE_PAGES + 1; n <= pages; n++) addPage(pdf, font, n);
  return { bytes: await pdf.save({ useObjectStreams: false }), pages };
}
