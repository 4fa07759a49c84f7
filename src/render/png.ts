// Just enough PNG to compare two renderings pixel by pixel: chromium's screenshots are 8-bit RGB or RGBA,
// non-interlaced (anything else is refused, never guessed at).
import zlib from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, row after row. */
  rgba: Buffer;
}

export function decodePng(png: Buffer): Pixels {
  if (png.length < 33 || png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (at + 8 <= png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      const color = data[9];
      if (depth !== 8 || (color !== 2 && color !== 6) || data[12] !== 0) throw new Error('only 8-bit RGB/RGBA, non-interlaced PNG');
      channels = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rgba = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels]! : 0;
      const b = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      const add = filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : filter === 4 ? paeth(a, b, c) : 0;
      line[i] = (line[i]! + add) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      rgba[o] = line[x * channels]!;
      rgba[o + 1] = line[x * channels + 1]!;
      rgba[o + 2] = line[x * channels + 2]!;
      rgba[o + 3] = channels === 4 ? line[x * channels + 3]! : 255;
    }
    prev = line;
  }
  return { width, height, rgba };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Pixels that differ between two renderings of one width; rows only one of them has all count as different. */
export function comparePng(a: Buffer, b: Buffer): { differentPixels: number; totalPixels: number } {
  const pa = decodePng(a);
  const pb = decodePng(b);
  const width = Math.max(pa.width, pb.width);
  const height = Math.max(pa.height, pb.height);
  let diff = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inA = x < pa.width && y < pa.height;
      const inB = x < pb.width && y < pb.height;
      if (!inA || !inB) {
        diff++;
        continue;
      }
      const oa = (y * pa.width + x) * 4;
      const ob = (y * pb.width + x) * 4;
      if (pa.rgba.readUInt32BE(oa) !== pb.rgba.readUInt32BE(ob)) diff++;
    }
  return { differentPixels: diff, totalPixels: width * height };
}
