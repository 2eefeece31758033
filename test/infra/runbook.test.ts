/**
 * The runbook (`docs/operating.md`): every alarm a stage deploys has its entry in the Alarms table, and each entry
 * names the operator console's view or the operator action that answers it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurations, resourcesOf, synthesize, text } from './synth.ts';

const readme = readFileSync(resolve(import.meta.dirname, '../../docs/operating.md'), 'utf8');

/** The Alarms table's rows: the alarm name pattern of the first cell, and the console cell. */
function runbook() {
  const section = readme.slice(readme.indexOf('### Alarms'), readme.indexOf('### Dashboard'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split(' | ');
      const names = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
      // `<queue>-dlq-not-empty` (resolve-bank, ...): the placeholder stands for any of the names listed.
      const listed = /\(([a-z, -]+)\)/.exec(cells[0] ?? '')?.[1]?.split(', ') ?? [];
      const patterns = names.map(
        (name) =>
          new RegExp(
            `-${name
              .replace('<queue>', `(${listed.join('|') || '[a-z-]+'})`)
              .replace('<function>', '[a-z-]+')}$`,
          ),
      );
      return { patterns, console: cells[3] ?? '' };
    });
}

/** What the console offers: its views and its actions, as the console section names them. */
const consoleWords = /tab|panel|timeline|Re-drive|Resolve|Cancel|Open a deposit|envelope/;

describe('the runbook', () => {
  const alarms = [configurations.prodWithoutSandbox, configurations.devWithSandbox].flatMap((context) => {
    const { templates } = synthesize(context);
    return [templates.stateless, templates.stateful, templates.sandbox]
      .filter((template) => template !== undefined)
      .flatMap((template) => resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map(([, alarm]) => alarm.Properties?.AlarmName)
      .map((name) => (typeof name === 'string' ? name : text(name)));
  });
  const rows = runbook();

  it('has an entry for every alarm, naming the console view or operator action that answers it', () => {
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms.filter((name) => !name.includes('-sandbox-'))) {
      const row = rows.find((candidate) => candidate.patterns.some((pattern) => pattern.test(alarm)));
      expect(row, `no runbook entry for ${alarm}`).toBeDefined();
      expect(row?.console, alarm).toMatch(consoleWords);
    }
  });
});
