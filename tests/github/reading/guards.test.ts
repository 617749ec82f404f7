import { describe, expect, it } from 'vitest';
import { plainRef, scopedQuery } from '../../../src/github/reading/guards.js';

describe('plainRef', () => {
  it('takes branch, tag and commit names', () => {
    for (const ref of ['main', 'feature/x-1', 'v1.2.3', 'a'.repeat(40), 'release_2026.12'])
      expect(plainRef(ref)).toBe(ref);
  });

  it('refuses anything that is not a plain name', () => {
    for (const ref of [
      '',
      '-x',
      '.hidden',
      'a..b',
      'a//b',
      'a/',
      'x.lock',
      'main@{1}',
      'a b',
      '../../etc',
      'a?b=c',
      'HEAD~1',
    ])
      expect(() => plainRef(ref), ref).toThrow(/is not a plain branch, tag or commit name/);
  });
});

describe('scopedQuery', () => {
  it('scopes a query to this repository', () => {
    expect(scopedQuery(' crash is:open label:bug ', 'o/r')).toBe('crash is:open label:bug repo:o/r');
  });

  it('refuses a query that names another repository, organisation or user, rather than narrowing it', () => {
    for (const query of [
      'x repo:a/b',
      'org:github x',
      'USER:someone',
      '-repo:o/r x',
      'x (repo:a/b)',
      'owner:x',
      // Glued to whatever comes before it: a quote, a bracket, a comma, a dash, a letter, a colon.
      '"crash"repo:a/b',
      '(x)repo:a/b',
      'label:bug,repo:a/b',
      'x--org:github',
      'crash-user:someone',
      'is:open,owner:x',
      'xrepo:a/b',
      '\\repo:a/b',
      // Spelled so that GitHub may read it as the qualifier: full-width letters, an invisible character.
      'ｒｅｐｏ：a/b',
      're\u200bpo:a/b',
      'org\u2060:github',
    ])
      expect(() => scopedQuery(query, 'o/r'), query).toThrow(/names a scope/);
    expect(() => scopedQuery('   ', 'o/r')).toThrow('search needs a query');
  });

  it('takes the words repo, org, user and owner when no colon follows them', () => {
    expect(scopedQuery('repo org user owner, the "owner" field', 'o/r')).toBe(
      'repo org user owner, the "owner" field repo:o/r',
    );
  });
});
