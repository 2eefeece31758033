/**
 * The console's screenshots, taken by the browser tests and checked there, never committed: written
 * under `test-results/console-screenshots/` (ignored by git; CONSOLE_SCREENSHOTS names another
 * folder, for a CI that keeps them as artifacts), each read back as a PNG: its size as asked, and
 * drawn (its pixels far from one flat colour), so that a blank or collapsed view fails the test.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import type { Locator, Page } from 'playwright-core';

export const screenshotFolder = resolve(
  process.env.CONSOLE_SCREENSHOTS ?? join(import.meta.dirname, '../../test-results/console-screenshots'),
);

export interface Shot {
  path: string;
  width: number;
  height: number;
  /** Distinct colours among the pixels sampled: a flat (blank) picture has one or two. */
  colours: number;
}

/** What a PNG file holds: its size from IHDR, and a sample of its pixels' colours from IDAT. */
export function readPng(path: string): Omit<Shot, 'path'> {
  const file = readFileSync(path);
  if (file.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error(`${path} is not a PNG`);
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const data: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.subarray(offset + 4, offset + 8).toString('ascii');
    const body = file.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      // Colour type 2 is RGB, 6 RGBA (what Chromium writes), both 8 bits a channel.
      channels = body[9] === 2 ? 3 : 4;
    }
    if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const pixels = unfilter(inflateSync(Buffer.concat(data)), width, height, channels);
  const colours = new Set<string>();
  for (let row = 0; row < height; row += 7) {
    for (let x = 0; x < width; x += 5) {
      const at = (row * width + x) * channels;
      colours.add(pixels.subarray(at, at + 3).toString('hex'));
    }
  }
  return { width, height, colours: colours.size };
}

/** PNG's scanlines back to pixels: each row's filter (none, sub, up, average, Paeth) undone. */
function unfilter(raw: Buffer, width: number, height: number, channels: number): Buffer {
  const rowBytes = width * channels;
  const out = Buffer.alloc(rowBytes * height);
  for (let row = 0; row < height; row += 1) {
    const filter = raw[row * (rowBytes + 1)];
    for (let i = 0; i < rowBytes; i += 1) {
      const value = raw[row * (rowBytes + 1) + 1 + i] ?? 0;
      const left = i >= channels ? (out[row * rowBytes + i - channels] ?? 0) : 0;
      const up = row > 0 ? (out[(row - 1) * rowBytes + i] ?? 0) : 0;
      const upLeft = row > 0 && i >= channels ? (out[(row - 1) * rowBytes + i - channels] ?? 0) : 0;
      const predicted =
        filter === 1
          ? left
          : filter === 2
            ? up
            : filter === 3
              ? (left + up) >> 1
              : filter === 4
                ? paeth(left, up, upLeft)
                : 0;
      out[row * rowBytes + i] = (value + predicted) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** A screenshot of the page (or of one element) into the folder, read back. */
export async function shoot(target: Page | Locator, name: string): Promise<Shot> {
  mkdirSync(screenshotFolder, { recursive: true });
  const path = join(screenshotFolder, `${name}.png`);
  await target.screenshot({ path, ...('goto' in target ? { fullPage: true } : {}) });
  return { path, ...readPng(path) };
}
