/**
 * docs/performance.md stands on a real run of `npm run bench`: the one `test/bench/last-run.json`
 * keeps. That run is written up in `docs/runs/bench-<date>-<hhmm>.md` (its date and its figures: the
 * headline, the costs with the caller's reads apart, the bundles, the throughput, the key model), and
 * the page links it and states each target from it, so a new run that is not written up, or a page
 * edited away from its run, fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const run = JSON.parse(readFileSync(resolve(root, 'test/bench/last-run.json'), 'utf8'));
const date = new Date(run.date).toISOString();
const runFile = `bench-${date.slice(0, 10)}-${date.slice(11, 13)}${date.slice(14, 16)}.md`;
const runPath = resolve(root, 'docs/runs', runFile);
// The texts, their line breaks as spaces.
const page = readFileSync(resolve(root, 'docs/performance.md'), 'utf8').replace(/\s+/g, ' ');
const lastRun = existsSync(runPath) ? readFileSync(runPath, 'utf8').replace(/\s+/g, ' ') : '';
const targets = page.slice(
  page.indexOf('## Where each target stands'),
  page.indexOf('## The levers in place'),
);

const ms = (value: number) => `${Math.round(value)} ms`;
const usd = (value: number) => value.toFixed(2);

describe('the performance page', () => {
  it('is written from a full run that holds every figure the issue asks for', () => {
    expect(run.mode).toBe('full');
    expect(run.headline.runs).toBeGreaterThanOrEqual(15);
    expect(run.cost.totals.SANDBOX_BENEFICIARY).toMatchObject({
      first: expect.any(Number),
      repeat: expect.any(Number),
      callerRead: expect.any(Number),
    });
    expect(run.bundles.figures.length).toBeGreaterThan(30);
    expect(run.scale).toMatchObject({ users: 200, fractionOfCeiling: expect.any(Number) });
    expect(run.scale.cpuByProcess).toBeDefined();
    expect(run.keyModel.partitions.length).toBeGreaterThan(5);
    expect(lastRun.length).toBeGreaterThan(1_000);
  });

  it('links that run, written up in docs/runs/, and states the targets from it', () => {
    expect(existsSync(runPath), `docs/runs/${runFile}`).toBe(true);
    expect(page).toContain(`(runs/${runFile})`);
    const { first, repeat } = run.headline;
    const cost = run.cost.totals.SANDBOX_BENEFICIARY;
    expect(targets).toContain(`${ms(first.overheadP50)} over`);
    expect(targets).toContain(`${ms(repeat.overheadP50)} over`);
    expect(targets).toContain(`**${usd(cost.first)}**`);
    expect(targets).toContain(`**${usd(cost.repeat)}**`);
    expect(targets).toContain(`${Math.round(100 * run.scale.fractionOfCeiling)}%`);
  });

  it('shows that run in its file: its date, headline, costs, bundles, throughput and key model', () => {
    expect(lastRun).toContain(`${date.slice(0, 10)} ${date.slice(11, 16)} UTC`);
    const { first, repeat } = run.headline;
    const headline = [
      `${Math.round(first.orchestrated.p50)} / ${ms(first.orchestrated.p95)}`,
      `${Math.round(first.direct.p50)} / ${ms(first.direct.p95)}`,
      `${ms(first.overheadP50)}`,
      `${Math.round(repeat.orchestrated.p50)} / ${ms(repeat.orchestrated.p95)}`,
      `${Math.round(repeat.transferCall.p50)} / ${ms(repeat.transferCall.p95)}`,
      `${ms(repeat.overheadP50)}`,
    ];
    for (const figure of headline) expect(lastRun).toContain(figure);
    const cost = run.cost.totals.SANDBOX_BENEFICIARY;
    expect(lastRun).toContain(`**${usd(cost.first)}**`);
    expect(lastRun).toContain(`**${usd(cost.repeat)} USD**`);
    expect(lastRun).toContain(`${usd(cost.callerRead)} a million reads`);
    const largest = Math.max(...run.bundles.figures.map((figure: { bytes: number }) => figure.bytes));
    expect(lastRun).toContain(`${Math.round(largest / 1024)} KiB`);
    expect(lastRun).toContain(`${run.scale.depositsPerSecond.toFixed(1)} deposits/s`);
    expect(lastRun).toContain(`**${Math.round(100 * run.scale.fractionOfCeiling)}%**`);
    const busiest = Math.max(
      ...run.keyModel.partitions.map((partition: { ofLimit: number }) => partition.ofLimit),
    );
    expect(lastRun).toContain(`takes ${Math.round(100 * busiest)}% of its limit`);
  });
});
