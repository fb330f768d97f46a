// Re-deflates every entry of a .vsix with zopfli: the same files, byte for byte, in a smaller
// archive (about 3.5% smaller than vsce's zlib deflate), so users download less. The result is
// read back and compared entry by entry before it replaces the original; any difference fails.
//   node scripts/recompress-vsix.mjs some.vsix   (exit 1 over the budget; `npm run package` calls it through package-vsix.mjs)
import { readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { deflate } from '@gfx/zopfli';
import { Zip, ZipPassThrough, unzipSync } from 'fflate';

const zopfli = promisify(deflate);
const DEFLATE = 8;

/** A ZIP entry deflated by zopfli (fflate computes the CRC and size of what is pushed). */
class ZopfliEntry extends ZipPassThrough {
  constructor(name) {
    super(name);
    this.compression = DEFLATE;
    this.parts = [];
  }

  process(chunk, final) {
    this.parts.push(chunk);
    if (!final) return;
    zopfli(Buffer.concat(this.parts), { numiterations: 15 }).then(
      (out) => this.ondata(null, out, true),
      (error) => this.ondata(error, new Uint8Array(0), true),
    );
  }
}

export async function recompressVsix(file) {
  const before = readFileSync(file);
  const files = unzipSync(before);
  const chunks = [];
  await new Promise((resolve, reject) => {
    const zip = new Zip((error, data, final) => {
      if (error) return reject(error);
      chunks.push(data);
      if (final) resolve();
    });
    for (const [name, data] of Object.entries(files)) {
      const entry = new ZopfliEntry(name);
      zip.add(entry);
      entry.push(data, true);
    }
    zip.end();
  });
  const after = Buffer.concat(chunks);
  const back = unzipSync(after);
  const names = Object.keys(files);
  if (Object.keys(back).join('\n') !== names.join('\n') || names.some((n) => !Buffer.from(back[n]).equals(Buffer.from(files[n])))) {
    throw new Error(`recompress-vsix: ${file} would not hold the same files; left as vsce wrote it`);
  }
  writeFileSync(`${file}.tmp`, after);
  renameSync(`${file}.tmp`, file);
  return { before: before.length, after: after.length };
}

/** What a user downloads: the release .vsix stays under this (README, Performance). */
export const BUDGET_BYTES = 300 * 1024;

// Run as a script (a path with spaces or through a link too: else the budget would go unchecked).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const file = process.argv[2];
  const { before, after } = await recompressVsix(file);
  console.log(`${file}: ${(after / 1024).toFixed(1)} KiB (vsce wrote ${(before / 1024).toFixed(1)} KiB; budget ${BUDGET_BYTES / 1024} KiB)`);
  if (after > BUDGET_BYTES) {
    console.error(`${file} is over the ${BUDGET_BYTES / 1024} KiB budget: see README, Performance, for where the bytes go.`);
    process.exitCode = 1;
  }
}
