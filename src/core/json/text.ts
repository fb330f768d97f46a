/** Positions as VS Code counts them: 0-based line, UTF-16 code unit within the line. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** Turns string offsets into positions; lines end at \n, \r\n or a lone \r (as in VS Code). */
export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.lineStarts.push(i + 1);
      } else if (c === 10 /* \n */) {
        this.lineStarts.push(i + 1);
      }
    }
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid] <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: clamped - this.lineStarts[low] };
  }

  rangeAt(offset: number, length: number): Range {
    return { start: this.positionAt(offset), end: this.positionAt(offset + length) };
  }
}

/** Whether two ranges start and end at the same positions. */
export function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character
    && a.end.line === b.end.line && a.end.character === b.end.character;
}

export const EMPTY_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export type DecodeResult = { ok: true; text: string } | { ok: false; reason: string };

/** Decodes as VS Code does for JSON: UTF-8 (BOM stripped), or UTF-16 LE/BE with a BOM. */
export function decodeText(bytes: Uint8Array): DecodeResult {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return decodeUtf16(bytes.subarray(2), true);
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    return decodeUtf16(bytes.subarray(2), false);
  }
  const body = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body) };
  } catch {
    return { ok: false, reason: 'the file is not valid UTF-8' };
  }
}

function decodeUtf16(body: Uint8Array, littleEndian: boolean): DecodeResult {
  if (body.length % 2 !== 0) return { ok: false, reason: 'the UTF-16 file has an odd number of bytes' };
  const units = new Uint16Array(body.length / 2);
  for (let i = 0; i < units.length; i++) {
    units[i] = littleEndian ? body[2 * i] | (body[2 * i + 1] << 8) : (body[2 * i] << 8) | body[2 * i + 1];
  }
  let text = '';
  for (let i = 0; i < units.length; i += 8192) text += String.fromCharCode(...units.subarray(i, i + 8192));
  return { ok: true, text };
}
