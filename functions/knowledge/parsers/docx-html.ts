import mammoth from 'mammoth';

/**
 * A Word document's body as semantic HTML (headings, paragraphs, tables; images as empty <img>). A port
 * because mammoth's conversion is one synchronous stretch of work that cannot yield: in-process here (a
 * Worker, tests), on a worker thread where the runtime has them (docx-thread.ts, passed in by the Node
 * entry), so the event loop keeps answering while a large document converts.
 */
export type DocxToHtml = (bytes: Uint8Array) => Promise<string>;

/** Images become empty <img> elements: their bytes are never read (nor inflated, nor turned into data URIs). */
const skipImages = mammoth.images.imgElement(async () => ({ src: '' }));

export const inProcessDocxToHtml: DocxToHtml = async (bytes) => {
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // mammoth's Node build reads `buffer`, its browser build (what a Worker bundles) `arrayBuffer`:
  // both get the same bytes, so one call works on either runtime.
  const input = { arrayBuffer, buffer: arrayBuffer } as unknown as Parameters<typeof mammoth.convertToHtml>[0];
  return (await mammoth.convertToHtml(input, { convertImage: skipImages })).value;
};
