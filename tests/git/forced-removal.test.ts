import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForcedRemoval } from '../../src/git/forced-removal.js';
import { asNotRoot, NOT_ROOT, useGitScratch } from '../support/git-fixture.js';

const asRoot = process.getuid?.() === 0;

let root: string;
let dir: string;

useGitScratch('todo-agent-stubborn-', (scratch) => {
  ({ root, dir } = scratch);
  mkdirSync(dir);
  chmodSync(root, 0o755);
});

/** A tree the model locked: a directory no one but root can list or change, holding more of the same. */
function lockedTree(at: string): void {
  mkdirSync(join(at, 'x', 'y'), { recursive: true });
  writeFileSync(join(at, 'x', 'y', 'f'), 'f\n');
  chmodSync(join(at, 'x', 'y', 'f'), 0o000);
  chmodSync(join(at, 'x', 'y'), 0o000);
  chmodSync(join(at, 'x'), 0o000);
  chmodSync(at, 0o500);
}

describe('ForcedRemoval', () => {
  it('removes a tree its owner locked, opening up each directory first', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    lockedTree(locked);
    const entries = new ForcedRemoval({ root: dir });
    expect(await asNotRoot([dir], () => entries.remove(locked))).toBe(true);
    expect(existsSync(locked)).toBe(false);
    expect(entries.found).toEqual({ left: [], unread: [] });
  });

  it('lists a directory its owner made unreadable, and says which it could not list', async () => {
    mkdirSync(join(dir, 'mine', 'inside'), { recursive: true });
    chmodSync(join(dir, 'mine'), 0o000);
    const entries = new ForcedRemoval({ root: dir });
    const listed = await asNotRoot([dir], () => entries.list(join(dir, 'mine')));
    expect(listed.map((entry) => entry.name)).toEqual(['inside']);
    expect(entries.found.unread).toEqual([]);
    if (!asRoot) return;
    // Another user's, which this one cannot open up: reported, never a throw.
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs);
    chmodSync(theirs, 0o700);
    const other = new ForcedRemoval({ root: dir });
    expect(await asNotRoot([], () => other.list(theirs))).toEqual([]);
    expect(other.found.unread).toEqual(['theirs']);
  });

  it('removes a link, never what it names', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep'), 'keep\n');
    symlinkSync(outside, join(dir, 'link'));
    const entries = new ForcedRemoval({ root: dir });
    expect(await entries.remove(join(dir, 'link'))).toBe(true);
    expect(readFileSync(join(outside, 'keep'), 'utf8')).toBe('keep\n');
  });

  it.runIf(asRoot)(
    "removes another user's entries through the escalation it is given (sudo), where it cannot itself",
    async () => {
      const theirs = join(dir, 'hooks');
      mkdirSync(join(theirs, 'sub'), { recursive: true });
      writeFileSync(join(theirs, 'sub', 'pre-commit'), '#!/bin/sh\n');
      execFileSync('chown', [`${NOT_ROOT}:${NOT_ROOT}`, dir]);
      execFileSync('chown', ['-R', '4343:4343', theirs]);
      // Without the escalation: renamed aside (the parent is this user's), and reported.
      const plain = new ForcedRemoval({ root: dir });
      expect(await asNotRoot([], () => plain.remove(theirs))).toBe(false);
      expect(plain.found.left).toEqual([
        { path: 'hooks', asideAs: expect.stringMatching(/^\.todo-agent-unremovable-\d+-1$/) },
      ]);
      const aside = join(dir, plain.found.left[0]!.asideAs!);
      expect(lstatSync(aside).isDirectory()).toBe(true);
      // With it: gone.
      const escalated = new ForcedRemoval({ root: dir, escalate: ['sudo', '-n', '--'] });
      expect(await asNotRoot([], () => escalated.remove(aside))).toBe(true);
      expect(readdirSync(dir)).toEqual([]);
      expect(escalated.found.left).toEqual([]);
    },
  );

  it.runIf(asRoot)('renames aside what resists even root (an immutable file), and says so', async () => {
    const hooks = join(dir, 'hooks');
    mkdirSync(hooks);
    writeFileSync(join(hooks, 'post-checkout'), '#!/bin/sh\n');
    execFileSync('chattr', ['+i', join(hooks, 'post-checkout')]);
    const entries = new ForcedRemoval({ root: dir });
    try {
      expect(await entries.remove(hooks)).toBe(false);
      const [left] = entries.found.left;
      expect(left?.path).toBe('hooks');
      expect(existsSync(hooks)).toBe(false);
      expect(existsSync(join(dir, left!.asideAs!, 'post-checkout'))).toBe(true);
    } finally {
      execFileSync('chattr', ['-R', '-i', dir]);
    }
  });
});
