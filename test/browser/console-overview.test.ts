/**
 * The operator console's overview in Chromium, against a local stack of its own with a webhook
 * receiver: the full-width list with every column (a payment source labelled as one, not a
 * "0 AED" deposit), the counts on the status tabs, the plots of deposits by status over time and
 * time to done by step, a deposit's webhook deliveries with a resend, and countdowns on the stack's
 * clock (moved an hour forward, the countdown an hour shorter). Each view is photographed into
 * `test-results/console-screenshots/` and the picture checked (its size, not blank): never committed.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { appSecret } from '../support/own-stack.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually, launchChromium } from './chromium.ts';
import { type Shot, shoot } from './screenshots.ts';
import { createUser, operatorOf, startStack, type User } from './world.ts';

const viewport = { width: 1600, height: 1100 };
let stack: LocalStack;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** The deposits and the source the console shows, by what they are for. */
const ids = { done: [] as string[], refused: '', cooling: '', source: '' };

const connectionOf = (user: User) => ({
  accessToken: user.accessToken,
  userSecret: user.userSecret,
  appSecret,
});

async function failDeliveriesOf(depositId: string, count: number) {
  await fetch(`${receiver.url}/fail`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count, depositId }),
  });
}

async function received(depositId: string) {
  const response = await fetch(`${receiver.url}/deliveries?depositId=${encodeURIComponent(depositId)}`);
  return (await response.json()) as {
    deliveries: { id: string; verified: boolean }[];
    refusedForDeposit: number;
  };
}

beforeAll(async () => {
  browser = await launchChromium();
  receiver = await startWebhookReceiver();
  stack = await startStack({ WEBHOOK_URL: `${receiver.url}/hooks`, WEBHOOK_SECRET: receiver.secret });
  const client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 30_000 });
  const start = async (bank: string, amount: number) => {
    const user = await createUser(stack, bank);
    const created = await client.create(connectionOf(user), { amount, senderID: user.accountId });
    return { user, id: created.body.operationID };
  };
  // Two done, one whose webhook refuses its first two deliveries, one cooling down for a day, and a
  // payment source cooling down too, all started at once.
  await Promise.all([
    ...[25, 40].map(async (amount) => ids.done.push((await start('SANDBOX_BENEFICIARY', amount)).id)),
    (async () => {
      ids.refused = (await start('SANDBOX_BENEFICIARY', 55)).id;
      await failDeliveriesOf(ids.refused, 2);
    })(),
    (async () => {
      ids.cooling = (await start('SANDBOX_COOLDOWN', 70)).id;
    })(),
    (async () => {
      const sourceUser = await createUser(stack, 'SANDBOX_COOLDOWN');
      ids.source = (await client.createSource(connectionOf(sourceUser))).body.sourceID;
    })(),
  ]);
  const ops = operatorOf(stack);
  let last: unknown;
  await eventually(async () => {
    const states = await Promise.all(
      [...ids.done, ids.refused, ids.cooling, ids.source].map(
        async (operationID) => (await ops('deposits/get', { operationID })).body,
      ),
    );
    last = states.map((d) => [d.operationID, d.status, d.step, d.type]);
    const settled = states.every((deposit) => deposit.status === 'done' || deposit.step === 'wait-cooldown');
    return settled && (await received(ids.refused)).deliveries.length > 0 ? states : undefined;
  }, 60_000).catch((error) => {
    throw new Error(`${error}: ${JSON.stringify(last)} ${JSON.stringify(ids)}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await receiver?.stop();
});

async function openConsole(): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${stack.operatorUrl}/#token=${stack.operatorToken}`);
  return page;
}

const row = (page: Page, operationID: string) =>
  page.locator(`[data-testid="deposit-row"][data-operation-id="${operationID}"]`);

/** A picture worth checking: the size asked, and far from one flat colour. */
function expectDrawn(shot: Shot, size?: { width: number; height: number }) {
  if (size) expect({ width: shot.width, height: shot.height }).toEqual(size);
  expect(shot.width).toBeGreaterThan(200);
  expect(shot.height).toBeGreaterThan(80);
  expect(shot.colours, shot.path).toBeGreaterThan(8);
}

/** `in 23h 59m 10s` (or `4m 05s`, `6s`) as seconds. */
function secondsOf(text: string | null): number {
  const parts = /in (?:(\d+)h )?(?:(\d+)m )?(\d+)s/.exec(text ?? '');
  if (!parts) throw new Error(`not a countdown: ${text}`);
  return Number(parts[1] ?? 0) * 3600 + Number(parts[2] ?? 0) * 60 + Number(parts[3]);
}

describe('the operator console overview', () => {
  // Side by side, each on a page of its own: they read what the set-up made, and change none of it.
  describe.concurrent('its views', () => {
    it('shows the full list on the page’s whole width, every column of each deposit, a source labelled as one', async ({
      expect,
    }) => {
      const page = await openConsole();

      await page.getByTestId('tab-initialized').click();
      await row(page, ids.source).waitFor({ timeout: 15_000 });
      await row(page, ids.cooling).waitFor();

      const headers = await page.getByTestId('deposit-columns').locator('th').allTextContents();
      expect(headers).toEqual([
        'Created (UTC)',
        'Deposit',
        'Kind',
        'Status',
        'Step',
        'Amount',
        'Wallet account',
        'Sender',
        'Client reference',
        'Bank',
        'Connection',
        'Retries',
        'Next wait',
        'Sweeper looks',
        'Failure',
        'Reference',
        'Updated (UTC)',
      ]);
      for (const id of [ids.source, ids.cooling])
        expect(await row(page, id).locator('td').count()).toBe(headers.length);
      // The source says what it is, and moves no money: no "0 AED".
      expect(await row(page, ids.source).getAttribute('data-kind')).toBe('source');
      expect(await row(page, ids.source).getByTestId('row-kind').textContent()).toBe('source');
      expect(await row(page, ids.source).getByTestId('row-amount').textContent()).toBe(
        'payment source (no amount)',
      );
      expect(await row(page, ids.cooling).getByTestId('row-amount').textContent()).toBe('70 AED');
      // Its next wait counts down (the day's cool-down).
      expect(await row(page, ids.cooling).getByTestId('row-wait-resumesAt').textContent()).toMatch(
        /^in 2\dh/,
      );
      // The list takes the page's width, and every column is in view without scrolling.
      const panel = await page.getByTestId('deposits-panel').boundingBox();
      expect(panel?.width).toBeGreaterThan(viewport.width * 0.95);
      const last = await page.getByTestId('deposit-columns').locator('th').last().boundingBox();
      expect((last?.x ?? Number.POSITIVE_INFINITY) + (last?.width ?? 0)).toBeLessThanOrEqual(viewport.width);

      expectDrawn(await shoot(page.getByTestId('deposits-panel'), 'list-initialized'));
      await page.close();
    });

    it('counts the deposits of each status on its tab, as the API counts them', async ({ expect }) => {
      const page = await openConsole();
      const { body: stats } = await operatorOf(stack)('deposits/stats', {});

      const counts = await eventually(async () => {
        const done = await page.getByTestId('tab-count-done').textContent();
        return done ? done : undefined;
      });

      expect(counts).toBe(String(stats.counts.done.count));
      expect(stats.counts.done.count).toBe(3);
      expect(await page.getByTestId('tab-count-initialized').textContent()).toBe('2');
      expect(await page.getByTestId('tab-count-failed').textContent()).toBe('0');
      expectDrawn(await shoot(page.getByTestId('deposits-panel'), 'tab-counts'));
      await page.close();
    });

    it('plots the deposits by status over time and the time to done by step', async ({ expect }) => {
      const page = await openConsole();

      const overTime = page.getByTestId('plot-over-time');
      await overTime.waitFor({ timeout: 15_000 });

      // Five made: three done, a deposit and a source cooling down.
      expect(await overTime.getAttribute('data-total')).toBe('5');
      expect(await overTime.locator('rect.bucket-done').count()).toBeGreaterThan(0);
      expect(await overTime.locator('rect.bucket-initialized').count()).toBeGreaterThan(0);
      const stepRows = page.getByTestId('plot-time-to-done').locator('g.step-row');
      const steps = await stepRows.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-step')));
      expect(steps).toEqual(expect.arrayContaining(['in all', 'resolve-bank', 'transfer']));
      expectDrawn(await shoot(page.getByTestId('overview-panel'), 'plots'));
      await page.close();
    });

    it("shows a deposit's webhook deliveries, each try, and resends one: the same webhook-id again", async ({
      expect,
    }) => {
      const page = await openConsole();
      await page.getByTestId('tab-done').click();
      await row(page, ids.refused).click({ timeout: 15_000 });

      const delivery = page.getByTestId('delivery-row').first();
      await delivery.waitFor({ timeout: 15_000 });
      expect(await delivery.getByTestId('delivery-state').textContent()).toBe('delivered');
      expect(await delivery.getByTestId('delivery-type').textContent()).toBe('deposit.done');
      expect(await delivery.getByTestId('delivery-attempts').locator('summary').textContent()).toBe(
        '3 tries',
      );
      await delivery.getByTestId('resend').click();

      await expect
        .poll(() => page.getByTestId('delivery-row').first().getByTestId('resend-result').textContent(), {
          timeout: 10_000,
        })
        .toBe('Resent (1 in all)');
      await expect
        .poll(
          () =>
            page
              .getByTestId('delivery-row')
              .first()
              .getByTestId('delivery-attempts')
              .locator('summary')
              .textContent(),
          {
            timeout: 15_000,
          },
        )
        .toBe('4 tries');
      expect(
        await page.getByTestId('delivery-row').first().getByTestId('delivery-resends').textContent(),
      ).toMatch(/^1 last by local-operator/);
      const heard = await received(ids.refused);
      expect(heard.refusedForDeposit).toBe(2);
      expect(heard.deliveries.map((d) => d.id)).toEqual([
        await delivery.getAttribute('data-event-id'),
        await delivery.getAttribute('data-event-id'),
      ]);
      expect(heard.deliveries.every((d) => d.verified)).toBe(true);
      expectDrawn(await shoot(page.getByTestId('deliveries-section'), 'deliveries'));
      await page.close();
    });
  });

  // After the others: it moves the stack's clock.
  it("counts down on the stack's clock: moved an hour forward, the cool-down is an hour shorter", async () => {
    const page = await openConsole();
    await page.getByTestId('find-id').fill(ids.cooling);
    await page.getByTestId('find-submit').click();
    const countdown = page.getByTestId('countdown-coolDownUntil');
    await countdown.waitFor({ timeout: 15_000 });
    const before = secondsOf(await countdown.textContent());

    const moved = await fetch(`${stack.depositsUrl}/_local/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 3_600 }),
    });

    expect(moved.status).toBe(200);
    await expect
      .poll(() => page.getByTestId('service-clock').textContent(), { timeout: 15_000 })
      .toMatch(/ahead of this browser by 1h 00m/);
    const after = secondsOf(await countdown.textContent());
    expect(before - after).toBeGreaterThan(3_600 - 60);
    expect(before - after).toBeLessThan(3_600 + 60);
    const whole = await shoot(page, 'console');
    expectDrawn(whole);
    expect(whole.width).toBe(viewport.width);
    await page.close();
  });
});
