// Runs benchmark programs in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core), each in a fresh page served from 127.0.0.1 with COOP/COEP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// Without the networking flags Chromium keeps dialling Google's hosts, which this machine refuses.
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchChromium() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`chromium not found at ${CHROMIUM} (apt-get install chromium)`);
  const { chromium } = await import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export class ChromiumHost {
  name = 'chromium';

  // programDir: the folder holding the programs' .js/.wasm/.worker.js files.
  constructor(programDir) {
    this.programDir = programDir;
  }

  async start() {
    this.browser = await launchChromium();
    this.server = await startServer({ '/programs/': this.programDir, '/harness/': HERE });
  }

  async close() {
    await this.browser?.close();
    await this.server?.close();
  }

  async run(programJs, args, { timeoutMs }) {
    const page = await this.browser.context.newPage();
    const lines = [];
    let finish;
    const finished = new Promise((resolve) => { finish = resolve; });
    page.on('console', (message) => {
      const text = message.text();
      lines.push(text);
      const exit = /^@@exit (-?\d+)/.exec(text);
      if (exit) finish(Number(exit[1]));
      else if (text.startsWith('@@abort')) finish(1);
    });
    page.on('pageerror', (error) => {
      // Emscripten throws an ExitStatus object after onExit has already reported the exit.
      if (!String(error.message).includes('ExitStatus')) {
        lines.push(`@@abort ${error.message}`);
        finish(1);
      }
    });
    const timer = setTimeout(() => {
      lines.push(`@@error timed out after ${timeoutMs} ms`);
      finish(null);
    }, timeoutMs);
    const query = new URLSearchParams({ program: `/programs/${path.basename(programJs)}`,
                                        args: JSON.stringify(args) });
    try {
      await page.goto(`${this.server.origin}/harness/page.html?${query}`);
      const exitCode = await finished;
      return { lines, exitCode };
    } finally {
      clearTimeout(timer);
      await page.close();
    }
  }
}
