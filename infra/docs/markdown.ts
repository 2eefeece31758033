/**
 * The docs' generated tables in their pages: a table sits between `<!-- generated: NAME -->` and
 * `<!-- /generated -->`, and `npm run docs:tables` writes it there again from the code
 * (`tables.ts`); a test fails when a page holds another text than the code gives.
 */

/** A markdown table: a header row, then one row per entry; pipes inside cells escaped. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `text` in backticks. */
export const code = (text: string) => `\`${text}\``;

const block = /<!-- generated: ([a-z-]+) -->\n([\s\S]*?)<!-- \/generated -->/g;

/** The generated blocks of a page, by name, as they stand there. */
export function blocksOf(page: string): Map<string, string> {
  return new Map([...page.matchAll(block)].map((match) => [match[1] ?? '', (match[2] ?? '').trimEnd()]));
}

/** The page with each generated block written again from `tables`; a block no table names stays. */
export function rewrite(page: string, tables: Readonly<Record<string, string>>): string {
  return page.replace(block, (whole, name: string) => {
    const text = tables[name];
    return text === undefined ? whole : `<!-- generated: ${name} -->\n${text}\n<!-- /generated -->`;
  });
}
