// Pages to PNG files with headless Chromium from the system's packages (Debian: `apt-get install chromium
// fonts-noto-color-emoji`), driven by playwright-core, which downloads no browser of its own.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is: CHROMIUM if set, else Debian's path. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path): path is string => Boolean(path) && existsSync(path!));
}

/**
 * Flags for a machine with no network and no display: no first-run or background traffic (its lookups of
 * Google's hosts fail on a closed network), no GPU; no sandbox of Chromium's own where we run as root.
 */
const FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
];

export interface Shooter {
  /** Renders `html` and writes the `.frame` element, at twice the pixels for sharp text, to `path`. */
  shoot(html: string, path: string): Promise<void>;
  close(): Promise<void>;
}

export async function openShooter(executablePath: string): Promise<Shooter> {
  const browser: Browser = await chromium.launch({ executablePath, args: FLAGS, headless: true });
  const context = await browser.newContext({ viewport: { width: 840, height: 600 }, deviceScaleFactor: 2 });
  return {
    async shoot(html, path) {
      const page = await context.newPage();
      try {
        await page.setContent(html, { waitUntil: 'load' });
        await page.locator('.frame').screenshot({ path, animations: 'disabled' });
      } finally {
        await page.close();
      }
    },
    close: () => browser.close(),
  };
}
