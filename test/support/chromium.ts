/**
 * Debian's chromium, driven by playwright-core (no browser download works here; .ci/run installs the package), for
 * the browser leg's tests. `CHROMIUM_PATH` names another binary.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { cannotRun } from './legs.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A headless chromium, or the browser leg told it cannot run (a failure under CI=true, a skip elsewhere). */
export async function launchChromium(context: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) cannotRun(context, 'browser', `no chromium at ${CHROMIUM} (.ci/run installs Debian's chromium; CHROMIUM_PATH names another)`);
  // The flags keep a root, headless chromium from reaching out to Google's services on its own.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}
