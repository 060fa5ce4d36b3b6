// Renders SVG files to PNG with the same headless Chromium the benchmarks use.
import fs from 'node:fs';
import { launchBrowser } from './hosts/browsers.mjs';

export async function svgFilesToPng(svgFiles) {
  if (svgFiles.length === 0) return [];
  const browser = await launchBrowser('chromium');  // Playwright's page API below
  try {
    const page = await browser.newPage();
    const written = [];
    for (const svgFile of svgFiles) {
      const svg = fs.readFileSync(svgFile, 'utf8');
      const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(svg);
      await page.setViewportSize({ width: Number(width), height: Number(height) });
      await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
      const pngFile = svgFile.replace(/\.svg$/, '.png');
      await page.screenshot({ path: pngFile, clip: { x: 0, y: 0, width: Number(width), height: Number(height) } });
      written.push(pngFile);
    }
    return written;
  } finally {
    await browser.close();
  }
}
