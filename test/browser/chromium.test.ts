/** Without Chromium the browser tests fail (never skip), saying what to install. */
import { afterEach, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';

const configured = process.env.CHROMIUM_PATH;
afterEach(() => {
  if (configured === undefined) delete process.env.CHROMIUM_PATH;
  else process.env.CHROMIUM_PATH = configured;
});

describe('Chromium for the browser tests', () => {
  it('fails at once, naming the path and what to install, when there is none', async () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';

    const launched = launchChromium();

    await expect(launched).rejects.toThrow(
      "No Chromium at /nonexistent/chromium: the browser tests need Debian's chromium (apt-get install chromium",
    );
  });
});
