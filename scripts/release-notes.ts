// `tsx scripts/release-notes.ts 1.2.3`: prints the CHANGELOG's section for that version, the notes of its
// GitHub release (.github/workflows/release.yml). Fails when the CHANGELOG has no such section, so a tag
// whose version was never written up makes no release.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const CHANGELOG = join(import.meta.dirname, '../CHANGELOG.md');

/** The text under `## [version] - date`, up to the next section; undefined when there is none. */
export function releaseNotes(changelog: string, version: string): string | undefined {
  const heading = new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm');
  const found = heading.exec(changelog);
  if (!found) return undefined;
  const rest = changelog.slice(found.index + found[0].length);
  const next = rest.search(/^## /m);
  return (next === -1 ? rest : rest.slice(0, next)).trim();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const version = process.argv[2] ?? '';
  const notes = /^\d+\.\d+\.\d+$/.test(version)
    ? releaseNotes(readFileSync(CHANGELOG, 'utf8'), version)
    : undefined;
  if (!notes) {
    process.stderr.write(`CHANGELOG.md has no section "## [${version}] - <date>" to release\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`${notes}\n`);
  }
}
