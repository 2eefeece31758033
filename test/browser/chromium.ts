/** What both browser tests share: Debian's Chromium, driven by playwright-core, and patience. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { eventually as eventuallyWithin } from '../support/eventually.ts';

/** Debian's Chromium (or CHROMIUM_PATH); a machine without it fails the test, saying what to install. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}: the browser tests need Debian's chromium (apt-get install chromium; .ci/run installs it), or CHROMIUM_PATH naming another Chromium`,
    );
  }
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}

/** Polls until `check` gives a value (20 s by default: a browser is slower than an API). */
export const eventually = <T>(check: () => Promise<T | undefined>, timeoutMs = 20_000) =>
  eventuallyWithin(check, timeoutMs);
