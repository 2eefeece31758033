/**
 * The deposit domain in small pieces: no module of `shared/deposits/` is over 300 lines and no
 * function in it over 60, so that a reader finds each step, decision and rule by its name. A planted
 * long function is named, so that the measure is known to see one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 60;

/** Each function of `text` (declared, arrow, method, expression) over `max` lines, by name and length. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name?.getText(source) ?? `(line ${first + 1})`;
      if (last - first + 1 > max) found.push(`${file} ${name}: ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the deposit domain in small pieces', () => {
  const files = readdirSync(join(root, 'shared', 'deposits'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({
      file: join('shared', 'deposits', file),
      text: readFileSync(join(root, 'shared', 'deposits', file), 'utf8'),
    }));

  it(`keeps every module within ${MAX_FILE_LINES} lines`, () => {
    expect(files.length).toBeGreaterThan(30);
    const long = files.filter(({ text }) => text.split('\n').length > MAX_FILE_LINES).map(({ file }) => file);
    expect(long).toEqual([]);
  });

  it(`keeps every function within ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap(({ file, text }) => longFunctions(file, text, MAX_FUNCTION_LINES))).toEqual([]);
  });

  it('names a planted long function', () => {
    const body = Array.from({ length: 61 }, (_, line) => `  const a${line} = ${line};`).join('\n');
    const planted = `export function planted() {\n${body}\n}\nexport const short = () => 1;\n`;

    expect(longFunctions('planted.ts', planted, MAX_FUNCTION_LINES)).toEqual([
      'planted.ts planted: 63 lines',
    ]);
  });
});
