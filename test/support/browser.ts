import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

const run = promisify(execFile);
const executablePath = '/usr/bin/chromium';

/**
 * Debian's Chromium, installed on first use (the README's test command installs what it needs):
 * browser tools that download a browser of their own cannot reach their servers here.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) {
    await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 64 << 20,
    });
  }
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
