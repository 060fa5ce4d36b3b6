// Runs programs in a headless browser (browsers.mjs: Chromium or Firefox), each in a fresh page
// served from 127.0.0.1 with COOP/COEP by the harness page (page.html), which reports the end
// through the console.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server.mjs';
import { launchBrowser } from './browsers.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
// Firefox hands worker console lines to WebDriver BiDi after the page's own, sometimes after the
// exit report: a run ends once the console has been quiet this long after it.
const QUIET_MS = { chromium: 0, firefox: 1000 };

export class BrowserHost {
  // name: 'chromium' or 'firefox'; programDir: the folder holding the programs' files.
  constructor(name, programDir) {
    this.name = name;
    this.programDir = programDir;
  }

  async start() {
    this.browser = await launchBrowser(this.name);
    this.server = await startServer({ '/programs/': this.programDir, '/harness/': HERE });
  }

  async close() {
    await this.browser?.close();
    await this.server?.close();
  }

  // Opens a page of the program folder itself (an emcc-made .html, with its own shell), waits
  // until ready() holds in it, and returns what read() gives there.
  async inspect(pageFile, ready, read, { timeoutMs }) {
    const page = await this.browser.newPage();
    try {
      await page.goto(`${this.server.origin}/programs/${pageFile}`);
      await this.browser.waitFor(page, ready, timeoutMs);
      return await page.evaluate(read);
    } finally {
      await page.close();
    }
  }

  async run(programJs, args, { timeoutMs }) {
    const page = await this.browser.newPage();
    const lines = [];
    let finish, exitCode, quietTimer;
    const finished = new Promise((resolve) => { finish = resolve; });
    const ended = (code) => {
      exitCode = exitCode === undefined ? code : exitCode;
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish(exitCode), QUIET_MS[this.name] ?? 0);
    };
    page.on('console', (message) => {
      const text = message.text();
      lines.push(text);
      const exit = /^@@exit (-?\d+)/.exec(text);
      if (exit) ended(Number(exit[1]));
      else if (text.startsWith('@@abort')) ended(1);
      else if (exitCode !== undefined) ended(exitCode);  // a late line: wait for quiet again
    });
    page.on('pageerror', (error) => {
      // Emscripten throws an ExitStatus object after onExit has already reported the exit.
      if (!String(error.message).includes('ExitStatus')) {
        lines.push(`@@abort ${error.message}`);
        ended(1);
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
      return { lines, exitCode: await finished };
    } finally {
      clearTimeout(timer);
      clearTimeout(quietTimer);
      await page.close();
    }
  }
}
