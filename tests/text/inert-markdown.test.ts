// The model's summary in the PR body: still Markdown, but it cannot ping, close issues, embed images or HTML.
import { describe, expect, it } from 'vitest';
import { inertMarkdown } from '../../src/text/inert-markdown.js';
import { redactor } from '../../src/text/redact.js';

describe('inertMarkdown', () => {
  it.each([
    ['a mention', 'Thanks @octocat!', 'Thanks `@octocat`!'],
    ['a team mention', 'cc @octo-org/security', 'cc `@octo-org/security`'],
    ['a closing keyword', 'Closes #7 and fixes #8.', '`Closes #7` and `fixes #8`.'],
    ['a colon form', 'Resolves: #9', '`Resolves: #9`'],
    ['another repository', 'fixed octo-org/other#3', '`fixed octo-org/other#3`'],
    ['an issue URL', 'closes https://github.com/o/r/issues/4', '`closes https://github.com/o/r/issues/4`'],
    ['an inline image', 'See ![chart](https://x.test/c.png)', 'See [chart](https://x.test/c.png)'],
    ['a reference image', '![logo][l]', '[logo][l]'],
    ['an HTML image', '<img src="https://x.test/t.gif">', '&lt;img src="https://x.test/t.gif">'],
    ['an HTML comment', 'a <!-- b --> c', 'a &lt;!-- b --> c'],
  ])('neutralises %s', (_case, input, output) => {
    expect(inertMarkdown(input)).toBe(output);
  });

  it('keeps ordinary Markdown, plain issue references and e-mail addresses as they are', () => {
    const text = '- Added type hints (see #3)\n- **Bold** and `code`\n\nMail a@b.test. Closing the loop.';
    expect(inertMarkdown(text)).toBe(text);
  });

  it('leaves code spans and fences alone: GitHub acts on nothing inside them', () => {
    const text = 'Use `@decorator` here:\n\n```python\n@cache\ndef f(): ...  # fixes #1\n```\n';
    expect(inertMarkdown(text)).toBe(text);
  });

  it('treats as prose what GitHub shows as text: a fence mid-line, an escaped or unclosed backtick', () => {
    expect(inertMarkdown('see ``` here. @admin Fixes #5')).toBe('see ``` here. `@admin` `Fixes #5`');
    expect(inertMarkdown('a \\`@user\\` b')).toBe('a \\``@user`\\` b');
    expect(inertMarkdown('one ` tick, cc @octocat')).toBe('one ` tick, cc `@octocat`');
    expect(inertMarkdown('x ~~~ inline ~~~ closes #2')).toBe('x ~~~ inline ~~~ `closes #2`');
  });

  it('leaves an unclosed fence at the start of a line alone: it runs to the end, as on GitHub', () => {
    const text = 'Intro @octocat\n   ```\n@cache # fixes #1';
    expect(inertMarkdown(text)).toBe('Intro `@octocat`\n   ```\n@cache # fixes #1');
    expect(inertMarkdown('``double `tick` span`` @x')).toBe('``double `tick` span`` `@x`');
  });

  it('removes invisible characters', () => {
    expect(inertMarkdown('Done\u200b.\u{e0041}\u202e')).toBe('Done.');
  });

  it('redacts before it rewrites: a secret with an @ is not split by a code span the API would not see through', () => {
    redactor.add('ci-bot@Hunter2-Passw0rd');
    expect(inertMarkdown('Logged in as ci-bot@Hunter2-Passw0rd, thanks @octocat')).toBe(
      'Logged in as ***, thanks `@octocat`',
    );
  });
});
