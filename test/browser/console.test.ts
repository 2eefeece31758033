/**
 * The operator console in a real headless browser (Debian's Chromium, driven by playwright-core),
 * against the real local stack: the page as the operator gateway serves it, the operator token from
 * the link's fragment. A deposit appears in its status tab and its timeline updates as it moves
 * through a bank's cool-down; an unknown outcome is resolved through the page, and above the approval
 * threshold proposed by one operator and approved by a second (its own link); the queues panel
 * shows the queues and a DLQ that holds a message.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { LocalStack } from '#infra/local/stack';
import { queues } from '#shared/topology';
import { OWN_STACK_PROVIDER_TIMEOUT_MS } from '../support/own-stack.ts';
import { eventually, launchChromium } from './chromium.ts';
import { createUser, depositsOf, operatorOf, setFaults, startStack, transfersOf } from './world.ts';

let stack: LocalStack;
let browser: Browser;

beforeAll(async () => {
  // First: without Chromium there is nothing to test, and the test says so at once.
  browser = await launchChromium();
  stack = await startStack();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** How long the bank holds a transfer's answer that is to be lost: past the provider client's timeout. */
const lostAnswerMs = OWN_STACK_PROVIDER_TIMEOUT_MS + 500;

/** What the page's own content security policy refused, as Chromium reports it. */
const refusedByPolicy: string[] = [];

/** The console as the link `npm start` prints opens it (the second operator's link, with `token`). */
async function openConsole(token = stack.operatorToken): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refusedByPolicy.push(message.text());
  });
  await page.goto(`${stack.operatorUrl}/#token=${token}`);
  return page;
}

const row = (page: Page, operationID: string) =>
  page.locator(`[data-testid="deposit-row"][data-operation-id="${operationID}"]`);
const entries = (page: Page, step?: string) =>
  page.locator(
    step ? `[data-testid="timeline-entry"][data-step="${step}"]` : '[data-testid="timeline-entry"]',
  );

// Side by side: each test has a user, a deposit and a page of its own.
describe.concurrent('the operator console', () => {
  it('shows a new deposit in its status tab, then its timeline as it waits out the cool-down and completes', async ({
    expect,
  }) => {
    // prepare: the console open before the deposit exists, so it is seen arriving
    const page = await openConsole();
    await page.getByTestId('tab-initialized').click();
    // The bank carries the transfer out 4 s after accepting it: the deposit stays in flight (cool-down,
    // then the transfer's outcome read back) for some 9 s, well past the page's first look at it.
    const user = await createUser(stack, 'SANDBOX_COOLDOWN_FAST', { transferDelaySeconds: 4 });
    const deposits = depositsOf(stack, user);

    // act
    const operationID = await deposits.start(30);
    await row(page, operationID).click({ timeout: 15_000 });

    // assess: the token left the address bar; the deposit is open, still in flight
    expect(page.url()).not.toContain(stack.operatorToken);
    await expect.poll(() => page.getByTestId('detail-id').textContent()).toBe(operationID);
    const seenFirst = await entries(page).count();
    expect(await page.getByTestId('detail-status').textContent()).toBe('initialized');
    // the cool-down: its row, with a countdown that ticks between two refreshes of the data
    const countdown = page.getByTestId('countdown-coolDownUntil');
    await countdown.waitFor({ timeout: 15_000 });
    const before = await countdown.textContent();
    await expect.poll(() => countdown.textContent(), { timeout: 3_000 }).not.toBe(before);
    // the timeline goes on, refreshed by the page alone, to the completed transfer
    await entries(page, 'wait-cooldown').first().waitFor({ timeout: 15_000 });
    await entries(page, 'completed').first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('detail-status').textContent()).toBe('done');
    expect(await entries(page).count()).toBeGreaterThan(seenFirst);
    const done = await deposits.get(operationID);
    expect(done.status).toBe('done');
    expect(await page.getByTestId('summary-reference').textContent()).toBe(
      done.status === 'done' ? done.reference : undefined,
    );
    // ... all of it within the page's content security policy.
    expect(refusedByPolicy).toEqual([]);
    await page.close();
  });

  it('refuses to be framed by a page of another origin (frame-ancestors none), and serves its security headers', async ({
    expect,
  }) => {
    // prepare: a page elsewhere that frames the console
    const framer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<iframe id="console" src="${stack.operatorUrl}/"></iframe>`);
    });
    await new Promise<void>((listening) => framer.listen(0, '127.0.0.1', listening));
    const { port } = framer.address() as AddressInfo;
    const page = await browser.newPage();

    // act
    await page.goto(`http://127.0.0.1:${port}/`);
    const served = await fetch(`${stack.operatorUrl}/`);

    // assess: the frame shows Chromium's refusal, not the console
    await expect
      .poll(
        () =>
          page
            .frames()
            .find((frame) => frame !== page.mainFrame())
            ?.url(),
        { timeout: 10_000 },
      )
      .toMatch(/^chrome-error:/);
    expect(served.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(served.headers.get('x-frame-options')).toBe('DENY');
    await page.close();
    framer.close();
  });

  it('resolves an unknown outcome through the page: done, with the reference the bank gave', async ({
    expect,
  }) => {
    // prepare: the bank moves the money, then the answer is lost (past PROVIDER_TIMEOUT_MS)
    const user = await createUser(stack, 'SANDBOX_BENEFICIARY');
    await setFaults(stack, user, [
      {
        path: '/v1/payment/transfer/create',
        outcome: 'timeout',
        timeoutMs: lostAnswerMs,
        phase: 'after',
        times: 1,
      },
    ]);
    const deposits = depositsOf(stack, user);
    const operationID = await deposits.start(42);
    await eventually(async () => {
      const deposit = await deposits.get(operationID);
      return deposit.status === 'failed' && deposit.type === 'TRANSFER_OUTCOME_UNKNOWN' ? deposit : undefined;
    });
    // what the operator finds at the provider: the transfer, with its reference
    const [transfer] = await transfersOf(stack, user);
    if (!transfer) throw new Error('the sandbox recorded no transfer');
    const page = await openConsole();

    // act
    await page.getByTestId('tab-outcome_unknown').click();
    await row(page, operationID).click({ timeout: 15_000 });
    await page.getByTestId('resolve-outcome').selectOption('done');
    await page.getByTestId('resolve-reference').fill(transfer.reference);
    await page.getByTestId('resolve-reason').fill('Transfer found at the provider with this reference');
    await page.getByTestId('resolve-submit').click();

    // assess: the page shows the resolution, and the API agrees
    await expect
      .poll(() => page.getByTestId('detail-status').textContent(), { timeout: 10_000 })
      .toBe('done');
    expect(await page.getByTestId('resolution-facts-by').textContent()).toBe('local-operator');
    await expect
      .poll(() => page.getByTestId('timeline-note').allTextContents())
      .toContainEqual('resolved done by an operator');
    expect(await page.getByTestId('resolve-form').isHidden()).toBe(true);
    expect(await deposits.get(operationID)).toMatchObject({ status: 'done', reference: transfer.reference });
    const { body } = await operatorOf(stack)('deposits/get', { operationID });
    expect(body.resolution).toMatchObject({
      outcome: 'done',
      by: 'local-operator',
      reason: 'Transfer found at the provider with this reference',
    });
    await page.close();
  });

  it('above the approval threshold: one operator proposes done, the page shows it pending, and a second operator approves it', async ({
    expect,
  }) => {
    // prepare: an AED 1,500 deposit (above the test stacks' AED 1,000.00) whose transfer's answer is lost
    const user = await createUser(stack, 'SANDBOX_BENEFICIARY');
    await setFaults(stack, user, [
      {
        path: '/v1/payment/transfer/create',
        outcome: 'timeout',
        timeoutMs: lostAnswerMs,
        phase: 'after',
        times: 1,
      },
    ]);
    const deposits = depositsOf(stack, user);
    const operationID = await deposits.start(1_500);
    await eventually(async () => {
      const deposit = await deposits.get(operationID);
      return deposit.status === 'failed' && deposit.type === 'TRANSFER_OUTCOME_UNKNOWN' ? deposit : undefined;
    });
    const [transfer] = await transfersOf(stack, user);
    if (!transfer) throw new Error('the sandbox recorded no transfer');
    const first = await openConsole();
    const second = await openConsole(stack.secondOperatorToken);

    // act: the first operator proposes, then tries to approve their own; the second approves
    await first.getByTestId('tab-outcome_unknown').click();
    await row(first, operationID).click({ timeout: 15_000 });
    await first.getByTestId('resolve-outcome').selectOption('done');
    await first.getByTestId('resolve-reference').fill(transfer.reference);
    await first.getByTestId('resolve-reason').fill('On the statement');
    await first.getByTestId('resolve-submit').click();
    await expect
      .poll(() => first.getByTestId('action-result').textContent(), { timeout: 10_000 })
      .toContain('proposed; a second, different operator must approve it');
    await first.getByTestId('approve-form').waitFor({ timeout: 10_000 });
    const pendingBy = await first.getByTestId('pending-by').textContent();
    await first.getByTestId('approve-reason').fill('Mine, again');
    await first.getByTestId('approve-submit').click();
    await expect
      .poll(() => first.getByTestId('action-error-type').textContent(), { timeout: 10_000 })
      .toBe('RESOLUTION_NEEDS_ANOTHER_OPERATOR');
    await second.getByTestId('tab-outcome_unknown').click();
    await row(second, operationID).click({ timeout: 15_000 });
    await second.getByTestId('approve-form').waitFor({ timeout: 10_000 });
    const shownToSecond = await second.getByTestId('pending-reference').textContent();
    await second.getByTestId('approve-reason').fill('Checked the statement too');
    await second.getByTestId('approve-submit').click();

    // assess
    expect(pendingBy).toBe('local-operator');
    expect(shownToSecond).toBe(transfer.reference);
    await expect
      .poll(() => second.getByTestId('detail-status').textContent(), { timeout: 10_000 })
      .toBe('done');
    expect(await second.getByTestId('resolution-facts-by').textContent()).toBe('local-operator');
    expect(await second.getByTestId('resolution-facts-approved-by').textContent()).toBe('local-operator-2');
    expect(await second.getByTestId('approve-form').isHidden()).toBe(true);
    expect(await deposits.get(operationID)).toMatchObject({ status: 'done', reference: transfer.reference });
    await first.close();
    await second.close();
  });

  it("shows the API's refusal as it came (type and message)", async ({ expect }) => {
    const page = await openConsole();

    await page.getByTestId('find-id').fill('01NOSUCHDEPOSIT');
    await page.getByTestId('find-submit').click();

    await expect.poll(() => page.getByTestId('error-type').textContent()).toBe('DEPOSIT_NOT_FOUND');
    expect(await page.getByTestId('error-msg').textContent()).toContain('01NOSUCHDEPOSIT');
    await page.close();
  });

  it('shows every queue with its DLQ, and a DLQ holding a message stands out', async ({ expect }) => {
    // prepare: a message in the transfer step's DLQ, as a step that kept failing would leave
    const sqs = new SQSClient({
      endpoint: stack.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const dlqUrl = stack.queueUrls.transfer?.dlqUrl;
    if (!dlqUrl) throw new Error('no transfer DLQ');
    await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: '{"test":"dead letter"}' }));
    sqs.destroy();

    // act
    const page = await openConsole();

    // assess
    for (const queue of Object.values(queues)) {
      await page.getByTestId(`queue-${queue.localName}`).waitFor({ timeout: 10_000 });
    }
    const transferRow = page.getByTestId(`queue-${queues.transfer.localName}`);
    await expect
      .poll(() => transferRow.getByTestId('dlq-depth').textContent(), { timeout: 10_000 })
      .toBe('1');
    expect(await transferRow.getAttribute('class')).toContain('dlq-alert');
    await page.close();
  });
});
