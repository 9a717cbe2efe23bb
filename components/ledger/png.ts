/**
 * PNG text chunks, so an exported slide carries its figures in machine-readable form too (a reader
 * of the file, or a test, can check what the picture says without reading pixels). Each chunk is a
 * standard `tEXt` (keyword, NUL, Latin-1 text) placed right after the IHDR chunk.
 */

let table: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const b of bytes) c = (table[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Text outside Latin-1 is written as \uXXXX so the chunk stays a valid tEXt. */
function latin1(text: string): Uint8Array {
  const safe = text.replace(/[^\u0020-\u007e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return Uint8Array.from(safe, (c) => c.charCodeAt(0));
}

function chunk(keyword: string, text: string): Uint8Array {
  const data = new Uint8Array([...latin1(keyword), 0, ...latin1(text)]);
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set([0x74, 0x45, 0x58, 0x74], 4); // "tEXt"
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The PNG `png` with one tEXt chunk per entry of `texts`, after its header. */
export function withText(png: Uint8Array, texts: Record<string, string>): Uint8Array {
  // 8-byte signature, then IHDR: 4 length + 4 type + 13 data + 4 crc.
  const ihdrEnd = 8 + 4 + 4 + new DataView(png.buffer, png.byteOffset).getUint32(8) + 4;
  const chunks = Object.entries(texts).map(([k, v]) => chunk(k, v));
  const out = new Uint8Array(png.length + chunks.reduce((s, c) => s + c.length, 0));
  out.set(png.subarray(0, ihdrEnd), 0);
  let at = ihdrEnd;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  out.set(png.subarray(ihdrEnd), at);
  return out;
}

export function dataUrlBytes(url: string): Uint8Array {
  const b64 = url.slice(url.indexOf(',') + 1);
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
