import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';

/**
 * Hostile documents, generated in memory: small files that inflate or split far past what one
 * document may cost (functions/knowledge/ingest-limits.ts). Each has a small sibling made the same
 * way that parses, so a test refusing the bomb cannot pass because the construction itself is broken.
 */

const MiB = 1024 * 1024;
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

interface ZipPart {
  name: string;
  data: Uint8Array;
  /** The size the zip says the part inflates to (a lie when it differs from data's). */
  declaredSize?: number;
}

/** A zip of deflated parts, written by hand so its declared sizes can be whatever a test needs. */
export function zip(parts: readonly ZipPart[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const compressed = deflateRawSync(part.data);
    const declared = part.declaredSize ?? part.data.length;
    const crc = crc32(part.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** The document.xml of `paragraphs` repetitions of one short paragraph. */
function documentXml(paragraphs: number): Buffer {
  const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`;
  const paragraph = '<w:p><w:r><w:t>Renewals are reviewed early.</w:t></w:r></w:p>';
  const tail = '</w:body></w:document>';
  const body = Buffer.alloc(paragraph.length * paragraphs, paragraph);
  return Buffer.concat([Buffer.from(head), body, Buffer.from(tail)]);
}

/** A minimal DOCX (content types, package relationships, document) whose document has `paragraphs` paragraphs. */
export function minimalDocx(
  paragraphs: number,
  options: { declaredDocumentSize?: number; media?: ZipPart } = {},
): Uint8Array {
  const text = (s: string) => new Uint8Array(Buffer.from(s));
  return zip([
    {
      name: '[Content_Types].xml',
      data: text(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
    },
    {
      name: '_rels/.rels',
      data: text(
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
    },
    {
      name: 'word/document.xml',
      data: new Uint8Array(documentXml(paragraphs)),
      ...(options.declaredDocumentSize !== undefined ? { declaredSize: options.declaredDocumentSize } : {}),
    },
    ...(options.media ? [options.media] : []),
  ]);
}

/** The reported attack: a DOCX of about 60 KB whose 616,800 paragraphs inflate to about 40 MB of XML. */
export const docxParagraphBomb = (): Uint8Array => minimalDocx(616_800);

/**
 * A DOCX whose zip lies: its one picture is declared at 1 KB but inflates to 130 MiB, more than any
 * document may (checked while inflating, since the declared size says nothing).
 */
export const docxLyingZipBomb = (): Uint8Array =>
  minimalDocx(3, { media: { name: 'word/media/image1.png', data: new Uint8Array(130 * MiB), declaredSize: 1024 } });

/** A DOCX whose zip declares a 1 GiB document (refused before anything is inflated). */
export const docxDeclaredZipBomb = (): Uint8Array => minimalDocx(10, { declaredDocumentSize: 1024 * MiB });

/**
 * A PDF whose one page's content stream is a flate stream inflating to `inflatedMib` MiB of text
 * operators (a flate bomb of about 130 KB at 130 MiB), or to one line for its small sibling;
 * `layers` deflates it that many times over (a FlateDecode filter chain).
 */
export async function pdfFlateBomb(inflatedMib: number, layers = 1): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const line = 'BT /F1 11 Tf 50 700 Td (Renewals are reviewed ninety days before the term ends.) Tj ET\n';
  const lines = Math.max(1, Math.floor((inflatedMib * MiB) / line.length));
  let compressed: Buffer = Buffer.alloc(lines * line.length, line);
  for (let i = 0; i < layers; i++) compressed = deflateSync(compressed, { level: 9 });
  const stream = pdf.context.stream(compressed, {
    Filter: layers === 1 ? 'FlateDecode' : Array.from({ length: layers }, () => 'FlateDecode'),
    Length: compressed.length,
  });
  const page = pdf.addPage([612, 792]);
  page.node.setFontDictionary(PDFName.of('F1'), font.ref);
  page.node.set(PDFName.of('Contents'), pdf.context.register(stream));
  return pdf.save({ useObjectStreams: false });
}

/** Markdown of `count` short paragraphs (one node each). */
/**
 * Markdown of `count` headings, each its own section node (headings are never gathered): a document
 * that splits into exactly `count` nodes, whatever its size.
 */
export const manySections = (count: number): Uint8Array =>
  new TextEncoder().encode(Array.from({ length: count }, (_, i) => `# Section ${i}`).join('\n'));

export const manyParagraphs = (count: number): Uint8Array =>
  new TextEncoder().encode(Array.from({ length: count }, (_, i) => `Paragraph number ${i}.`).join('\n\n'));
