/**
 * The docs' pictures (Mermaid, which GitHub renders) say what the code does: the architecture in
 * docs/design.md names every queue, API and table of the topology by its key, and the deposit's
 * state machine in docs/deposits.md has every step, and between steps exactly the moves the steps
 * table beside it gives ("Next").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DepositStep } from '#shared/deposits/model/deposit';
import { depositsApi, operatorApi, queues, sandboxApi, tables } from '#shared/topology';

const root = join(import.meta.dirname, '..', '..');
const page = (name: string) => readFileSync(join(root, 'docs', name), 'utf8');

/** The page's Mermaid blocks whose first line starts with `kind`. */
function diagrams(text: string, kind: string): string[] {
  return [...text.matchAll(/```mermaid\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .filter((body) => body.trimStart().startsWith(kind));
}

describe('the architecture picture (docs/design.md)', () => {
  const [flowchart = ''] = diagrams(page('design.md'), 'flowchart');
  /** Every node's id: a name right before its shape (`[`, `(`), labels taken out first. */
  const nodes = new Set(
    [...flowchart.replace(/"[^"]*"/g, '""').matchAll(/(\w+)[[(]/g)].map((match) => match[1]),
  );

  it('is there, once', () => {
    expect(diagrams(page('design.md'), 'flowchart')).toHaveLength(1);
  });

  it('names every queue, API and table of the topology, and the scheduler, sweeper, relay and notifier', () => {
    const expected = [
      ...Object.keys(queues),
      ...[depositsApi, operatorApi, sandboxApi].map((api) => `${api.name}Api`),
      ...Object.keys(tables).map((table) => `${table}Table`),
      'scheduler',
      'sweeper',
      'outbox',
      'notifier',
    ];

    expect(expected.filter((node) => !nodes.has(node))).toEqual([]);
  });
});

describe("the deposit's state machine (docs/deposits.md)", () => {
  const text = page('deposits.md');
  const [diagram = ''] = diagrams(text, 'stateDiagram');
  /** Each state's id and the step its label names (its first word). */
  const stepOf = new Map(
    [...diagram.matchAll(/^\s*state "([\w-]+)[^"]*" as (\w+)/gm)].map((match) => [match[2], match[1]]),
  );
  const moves = [...diagram.matchAll(/^\s*(\w+) --> (\w+)/gm)]
    .map(([, from = '', to = '']) => [stepOf.get(from), stepOf.get(to)])
    .filter(
      (move): move is [string, string] =>
        DepositStep.options.includes(move[0] as never) && DepositStep.options.includes(move[1] as never),
    );
  /** The steps table's Next column: the steps named in backticks, by step. */
  const section = text.slice(text.indexOf('### Statuses and steps'), text.indexOf('### Webhooks'));
  const next = new Map(
    [...section.matchAll(/^\| `([\w-]+)` \|.*\|([^|]*)\|$/gm)]
      .filter(([, step]) => DepositStep.options.includes(step as never))
      .map(([, step = '', cell = '']) => [
        step,
        [...cell.matchAll(/`([\w-]+)`/g)]
          .map((match) => match[1] ?? '')
          .filter((name) => DepositStep.options.includes(name as never)),
      ]),
  );

  it('has every step of the code as a state', () => {
    expect(
      [...new Set(stepOf.values())].filter((step) => DepositStep.options.includes(step as never)).sort(),
    ).toEqual([...DepositStep.options].sort());
  });

  it("moves between steps exactly as the steps table's Next column says", () => {
    for (const step of DepositStep.options) {
      const drawn = moves.filter(([from]) => from === step).map(([, to]) => to);
      expect([step, [...new Set(drawn)].sort()]).toEqual([step, [...new Set(next.get(step) ?? [])].sort()]);
    }
    expect(next.size).toBe(DepositStep.options.length);
  });
});
