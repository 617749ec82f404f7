// The pictures of a demo run (scripts/pictures/): which versions of the checklist they show, what of the
// Markdown their fingerprint keeps, how a moment is rendered, and, where Chromium is installed, the PNG.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { fingerprint, moments, steadyPart, type PullRequestView } from '../scripts/pictures/moments.js';
import { pageHtml } from '../scripts/pictures/render.js';
import { chromiumPath, openShooter } from '../scripts/pictures/screenshot.js';

const state = (...statuses: string[]) =>
  `<!-- agent-state ${JSON.stringify({ v: 1, items: statuses.map((status, i) => ({ id: String(i + 1), status })) })} -->`;
const working = (done: number, statuses: string[], footer = 'turn 3 · 2 s') =>
  `### 🤖 todo-agent is working on: x\n\n**${done} of 4 done**\n\n<sub>${footer} · sandbox: root</sub>\n${state(...statuses)}`;
const VERSIONS = [
  `### 🤖 todo-agent is working on: x\n\n_planning…_\n\n<sub>0 s</sub>\n${state()}`,
  working(0, ['in_progress', 'pending', 'pending', 'pending']),
  working(1, ['completed', 'in_progress', 'pending', 'pending']),
  working(2, ['completed', 'completed', 'in_progress', 'pending']),
  working(3, ['completed', 'completed', 'completed', 'in_progress']),
  `### ✅ todo-agent finished: x\n\n<sub>turn 9</sub>\n${state('completed', 'completed', 'completed', 'completed')}`,
];
const PULL: PullRequestView = {
  number: 2,
  title: 'Refactor <hello>',
  head: 'agent/issue-1-4242',
  base: 'main',
  body: 'Closes #1\n\n- [x] Read it\n- [ ] Not yet\n\n<sub>11 turns</sub>\n<!-- hidden -->',
  commits: 1,
};

describe('the pictures of a demo run', () => {
  it('show the checklist planning, half-way (half the items done, one in progress) and done', () => {
    const found = moments(VERSIONS, PULL);
    expect(found.map((moment) => [moment.name, moment.version])).toEqual([
      ['checklist-planning', 'version 1 of 6'],
      ['checklist-mid-run', 'version 4 of 6'],
      ['checklist-done', 'version 6 of 6'],
      ['pull-request', undefined],
    ]);
    expect(() => moments(VERSIONS.slice(0, 3), PULL)).toThrow('no checklist version shows the run half-way');
  });

  it('fingerprint what a run of the same script posts again, not its timings or the machine', () => {
    const later = working(2, ['completed', 'completed', 'in_progress', 'pending'], 'turn 3 · 7 s');
    expect(steadyPart(later)).toContain('<sub>turn # · # s · sandbox: …</sub>');
    expect(fingerprint(later)).toBe(fingerprint(VERSIONS[3]!.replace('sandbox: root', 'sandbox: sudo')));
    // A change a reader would see changes it.
    expect(fingerprint(later)).not.toBe(fingerprint(later.replace('2 of 4 done', '3 of 4 done')));
  });

  it('render GitHub-flavoured Markdown: task lists, inline HTML, hidden comments, escaped titles', () => {
    const html = pageHtml(moments(VERSIONS, PULL)[3]!, PULL, 'github-actions');
    expect(html).toContain('<ul class="contains-task-list">');
    expect(html).toMatch(
      /<li class="task-list-item"><input class="task-list-item-checkbox" checked="" disabled=""/,
    );
    expect(html).toContain('<sub>11 turns</sub>');
    expect(html).toContain('<!-- hidden -->'); // a comment: the browser shows nothing of it
    expect(html).toContain('Refactor &lt;hello&gt;');
    expect(html).toContain('wants to merge 1 commit into');
  });

  it.skipIf(!chromiumPath())(
    'screenshot a moment with the system’s Chromium, at twice the pixels',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'todo-agent-pictures-'));
      const shooter = await openShooter(chromiumPath()!);
      try {
        const path = join(dir, 'mid-run.png');
        await shooter.shoot(pageHtml(moments(VERSIONS, PULL)[1]!, PULL, 'github-actions'), path);
        const png = PNG.sync.read(readFileSync(path));
        expect(png.width).toBe(1600); // the 800 px frame at a device scale of 2
        expect(png.height).toBeGreaterThan(200);
        // Not blank: the comment's header is grey, its text dark.
        const dark = [...png.data].filter((value, index) => index % 4 === 0 && value < 80).length;
        expect(dark).toBeGreaterThan(1000);
      } finally {
        await shooter.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
