/** `npm run docs:tables`: writes each generated table into its page of `docs/` (`tables.ts`). */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rewrite } from './markdown.ts';
import { docTables } from './tables.ts';

const folder = join(import.meta.dirname, '../../docs');
const tables = docTables();
for (const name of await readdir(folder)) {
  if (!name.endsWith('.md')) continue;
  const path = join(folder, name);
  const page = await readFile(path, 'utf8');
  const written = rewrite(page, tables);
  if (written !== page) {
    await writeFile(path, written);
    console.log(`docs/${name}: tables written`);
  }
}
