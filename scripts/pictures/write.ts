// What `npm run pictures` (`npm run demo -- --pictures`) writes from a demo run: a PNG of each moment in
// docs/pictures/, the moments' fingerprints in docs/pictures/pictures.json, and the mid-run checklist quoted
// in docs/how-it-works.md with the version it is. `--sources DIR` writes the fingerprints alone, without
// Chromium, so that a test can tell whether the committed pictures still show what the demo posts.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { fingerprint, type Moment, type MomentName, type PullRequestView } from './moments.js';
import { pageHtml } from './render.js';
import { chromiumPath, openShooter } from './screenshot.js';

const ROOT = join(import.meta.dirname, '../..');
export const PICTURES = join(ROOT, 'docs/pictures');
export const HOW_IT_WORKS = join(ROOT, 'docs/how-it-works.md');
export const SOURCES_FILE = 'pictures.json';

export type Fingerprints = Record<MomentName, { title: string; version?: string; fingerprint: string }>;

export function fingerprints(found: readonly Moment[]): Fingerprints {
  return Object.fromEntries(
    found.map((moment) => [
      moment.name,
      {
        title: moment.title,
        ...(moment.version ? { version: moment.version } : {}),
        fingerprint: fingerprint(moment.markdown),
      },
    ]),
  ) as Fingerprints;
}

export async function writeSources(dir: string, found: readonly Moment[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, SOURCES_FILE);
  await writeFile(path, `${JSON.stringify(fingerprints(found), null, 2)}\n`);
  return path;
}

const QUOTE_START = '<!-- demo: the checklist half-way, written by `npm run pictures` from a demo run -->';
const QUOTE_END = '<!-- end of demo -->';

/** The quote in docs/how-it-works.md: the mid-run version, as a picture and as the Markdown posted. */
export function quotedMidRun(page: string): { version: string; markdown: string } | undefined {
  const from = page.indexOf(QUOTE_START);
  const to = page.indexOf(QUOTE_END);
  if (from === -1 || to < from) return undefined;
  const part = page.slice(from, to);
  const version = /This is (version \d+ of \d+) from `npm run demo`/.exec(part)?.[1];
  const markdown = /^(`{3,})markdown\n([\s\S]*?)\n\1$/m.exec(part)?.[2];
  return version && markdown ? { version, markdown } : undefined;
}

async function writeQuote(midRun: Moment): Promise<void> {
  const page = await readFile(HOW_IT_WORKS, 'utf8');
  const from = page.indexOf(QUOTE_START);
  const to = page.indexOf(QUOTE_END);
  if (from === -1 || to < from) throw new Error('docs/how-it-works.md has no demo markers');
  const quote = [
    QUOTE_START,
    '',
    `This is ${midRun.version} from \`npm run demo\`, as GitHub shows it and as the action posted it:`,
    '',
    `![${midRun.title}](pictures/${midRun.name}.png)`,
    '',
    '````markdown',
    midRun.markdown,
    '````',
    '',
  ].join('\n');
  const written = `${page.slice(0, from)}${quote}${page.slice(to)}`;
  const options = (await resolveConfig(HOW_IT_WORKS)) ?? {};
  await writeFile(HOW_IT_WORKS, await format(written, { ...options, filepath: HOW_IT_WORKS }));
}

/** Every picture, the fingerprints and the quote; fails, saying what to install, without Chromium. */
export async function writePictures(
  found: readonly Moment[],
  pull: PullRequestView,
  author: string,
): Promise<string[]> {
  const executable = chromiumPath();
  if (!executable) {
    throw new Error(
      'the pictures need Chromium: apt-get install chromium fonts-noto-color-emoji (or set CHROMIUM to its path)',
    );
  }
  await mkdir(PICTURES, { recursive: true });
  const shooter = await openShooter(executable);
  const written: string[] = [];
  try {
    for (const moment of found) {
      const path = join(PICTURES, `${moment.name}.png`);
      await shooter.shoot(pageHtml(moment, pull, author), path);
      written.push(path);
    }
  } finally {
    await shooter.close();
  }
  written.push(await writeSources(PICTURES, found));
  const midRun = found.find((moment) => moment.name === 'checklist-mid-run');
  if (midRun) {
    await writeQuote(midRun);
    written.push(HOW_IT_WORKS);
  }
  return written;
}
