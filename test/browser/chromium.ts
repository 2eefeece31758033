/** What both browser tests share: Debian's Chromium, driven by playwright-core, and patience. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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

/** Polls until `check` returns a value, or fails after `timeoutMs`. No fixed sleeps. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
