// The browsers the tests and benchmarks drive, behind one small interface: Debian's Chromium
// through playwright-core, and Debian's Firefox ESR through puppeteer-core over WebDriver BiDi
// (Playwright drives only a Firefox build of its own, which cannot be had here).
//
//   const browser = await launchBrowser('firefox', { quotaBytes });
//   const page = await browser.newPage();   // page.on('console' | 'pageerror'), goto, reload,
//                                           // evaluate(fn, arg), close: the same in both
//   await browser.waitFor(page, () => ready(), timeoutMs);
//   await browser.close();
//
// quotaBytes limits each origin's storage: in Chromium through DevTools
// (Storage.overrideQuotaForOrigin, set on each page's origin as it loads), in Firefox through
// the dom.quotaManager.temporaryStorage.fixedLimit preference, set at launch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const BROWSERS = ['chromium', 'firefox'];
// The browser of this run: WASMSCALE_BROWSER, else Chromium.
export const BROWSER = process.env.WASMSCALE_BROWSER || 'chromium';
export const TITLES = { chromium: 'Chromium', firefox: 'Firefox' };

const EXECUTABLES = {
  chromium: { path: process.env.CHROMIUM || '/usr/bin/chromium', install: 'apt-get install chromium' },
  firefox: { path: process.env.FIREFOX || '/usr/bin/firefox-esr', install: 'apt-get install firefox-esr' },
};
// Without the networking flags Chromium keeps dialling Google's hosts, which this machine refuses.
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(name = BROWSER, { quotaBytes = null } = {}) {
  const executable = EXECUTABLES[name];
  if (!executable) throw new Error(`unknown browser '${name}': expected one of ${BROWSERS.join(', ')}`);
  if (!fs.existsSync(executable.path)) {
    throw new Error(`${name} not found at ${executable.path} (${executable.install})`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), `wasmscale-${name}-`));
  const removeProfile = () => fs.rmSync(profile, { recursive: true, force: true });
  return name === 'chromium' ? launchChromiumWith(executable.path, profile, removeProfile, quotaBytes)
                             : launchFirefoxWith(executable.path, profile, removeProfile, quotaBytes);
}

async function launchChromiumWith(executablePath, profile, removeProfile, quotaBytes) {
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args: CHROMIUM_ARGS,
  });
  return {
    name: 'chromium',
    context,
    async newPage() {
      const page = await context.newPage();
      if (quotaBytes !== null) {
        // The override is per origin: set it for each origin the page loads, before it runs.
        const cdp = await context.newCDPSession(page);
        page.on('request', (request) => {
          if (request.isNavigationRequest()) {
            const origin = new URL(request.url()).origin;
            cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: quotaBytes }).catch(() => {});
          }
        });
      }
      return page;
    },
    waitFor: (page, condition, timeoutMs) => page.waitForFunction(condition, null, { timeout: timeoutMs }),
    async close() {
      await context.close();
      removeProfile();
    },
  };
}

async function launchFirefoxWith(executablePath, profile, removeProfile, quotaBytes) {
  const { default: puppeteer } = await import('puppeteer-core');
  const prefs = quotaBytes === null ? {}
    : { 'dom.quotaManager.temporaryStorage.fixedLimit': Math.ceil(quotaBytes / 1024) };  // KiB
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath, headless: true, userDataDir: profile, extraPrefsFirefox: prefs,
  });
  return {
    name: 'firefox',
    newPage: () => browser.newPage(),
    waitFor: (page, condition, timeoutMs) => page.waitForFunction(condition, { timeout: timeoutMs }),
    async close() {
      await browser.close();
      removeProfile();
    },
  };
}
