import { Document, Packer, Paragraph, HeadingLevel, Table, TableRow, TableCell, TextRun } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Harness } from '../support/harness.js';
import { API_PREFIX } from '../../functions/http/env.js';

/** Real files, generated here: what a client would upload. */

export async function multiPagePdf(pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const paragraphs of pages) {
    const page = pdf.addPage([612, 792]);
    let y = 740;
    for (const text of paragraphs) {
      page.drawText(text, { x: 50, y, size: 11, font });
      y -= 40; // A gap wider than a line: the next text is a new paragraph.
    }
  }
  return pdf.save();
}

export async function docxWithTable(): Promise<Uint8Array> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Pricing guide', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun('Enterprise plans include single sign-on and audit logs.')] }),
          new Table({
            rows: [
              new TableRow({ children: [cell('Plan'), cell('Seats'), cell('Price')] }),
              new TableRow({ children: [cell('Team'), cell('10'), cell('$500')] }),
              new TableRow({ children: [cell('Enterprise'), cell('100'), cell('$9000')] }),
            ],
          }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** A DOCX of a heading and paragraphs (each paragraph one node under the heading's section). */
export async function docxWithParagraphs(heading: string, paragraphs: readonly string[]): Promise<Uint8Array> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: heading, heading: HeadingLevel.HEADING_1 }),
          ...paragraphs.map((text) => new Paragraph({ children: [new TextRun(text)] })),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

export const HTML_WITH_SCRIPT = `<!doctype html><html><head><title>t</title><script>window.stolen = document.cookie;</script></head>
<body><h1>Security policy</h1><p onclick="alert(1)">Customer data is encrypted at rest with AES-256.</p>
<script>alert('xss')</script><style>p{color:red}</style><p>Backups run <b>every night</b>.</p></body></html>`;

/** POST a file as multipart/form-data in `field` (as curl -F would). */
export async function uploadFile(
  h: Harness,
  path: string,
  key: string,
  file: { bytes: Uint8Array; name: string; type?: string },
  field = 'file',
  extra: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  form.append(
    field,
    new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }),
    file.name,
  );
  const response = await h.fetch(`${API_PREFIX}${path}`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
