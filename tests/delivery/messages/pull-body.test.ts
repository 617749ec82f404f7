// The pull request description: secrets are gone before escaping or rewriting can hide them from the API's
// own redaction (an escaped `ghp\_…` or a mention put in a code span still renders as the secret).
import { describe, expect, it } from 'vitest';
import { type AgentResult } from '../../../src/agent/events.js';
import { emptyUsage } from '../../../src/model/usage.js';
import { MAX_PULL_PATCH_CHARS, pullBody } from '../../../src/delivery/messages/pull-body.js';
import { workflowRule } from '../../../src/delivery/messages/refusal.js';
import { Redactor, redactor } from '../../../src/text/redact.js';

const TOKEN_BODY = 'Pb7kQ2mX9vL4nR8sT1wY6zA3cE5gH0jK2dF4';
const TOKEN = `ghp_${TOKEN_BODY}`;
const PASSWORD = 'deploy@Secr3t_Passw0rd';

function result(overrides: Partial<AgentResult> = {}): AgentResult {
  return {
    status: 'completed',
    reason: 'done',
    todos: [
      { id: '1', text: `Rotate ${TOKEN} (not verified: no network)`, status: 'completed' },
      { id: '2', text: 'Write NOTES.md', status: 'completed' },
    ],
    lastText: `Done. The old password was ${PASSWORD}, and ${TOKEN} is gone.`,
    turns: 3,
    toolCalls: 2,
    usage: emptyUsage(),
    costUsd: 0.01,
    ...overrides,
  };
}

/** What the API's redaction (the Octokit hook) would still find: nothing, if the body holds no secret at all. */
function hookWouldMiss(body: string): string[] {
  const hook = new Redactor();
  hook.add(PASSWORD);
  const pieces = [TOKEN_BODY, 'Secr3t', 'Passw0rd'];
  return pieces.filter((piece) => hook.redact(body).includes(piece));
}

describe('pullBody: the network gate', () => {
  it('lists every host the gate refused the tools, each with its count, and how to allow one', () => {
    const body = pullBody({
      result: result({
        refusedHosts: [
          { host: 'exfil.example', count: 3, allow: 'exfil.example' },
          { host: 'db.internal:5432', count: 1 },
        ],
      }),
    });
    expect(body).toContain(
      "### Blocked network requests\n\nThe tools' network gate refused these hosts (`tool_network: allowlist`); a host the work needs is allowed by adding it to the workflow's `allowed_hosts` input:\n\n- `exfil.example` ×3\n- `db.internal:5432` ×1\n\n### Summary",
    );
    expect(pullBody({ result: result() })).not.toContain('Blocked network requests');
  });
});

describe('pullBody', () => {
  it('holds no secret in any form: not in the list, the unverified checks or the summary', () => {
    redactor.add(PASSWORD);
    const body = pullBody({ closes: 7, result: result() });
    expect(body.startsWith('Closes #7')).toBe(true);
    expect(body).toContain('### Checks that did not run');
    expect(body).toContain('- Rotate \\*\\*\\*: no network');
    expect(body).toContain('The old password was ***');
    expect(hookWouldMiss(body)).toEqual([]);
  });

  it('says which workflow files it leaves out and why, with their change as a patch that nothing in it can break out of', () => {
    const patch =
      'diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n+run: echo ```</details>\n';
    const workflowPatch = {
      paths: ['.github/workflows/ci.yml'],
      refusal: workflowRule(['.github/workflows/ci.yml']),
      patch,
      refused: true,
    };
    const body = pullBody({ closes: 7, result: result(), workflowPatch });
    const section = body.slice(body.indexOf('### Not in this pull request'), body.indexOf('### Summary'));
    expect(section).toContain(
      'The run also changed `.github/workflows/ci.yml`, which this pull request leaves out: the token may not create or change workflow files \\(.github/workflows/ci.yml\\) (GitHub refused them).',
    );
    expect(section).toContain('<details><summary>The workflow change, as a patch');
    expect(section).toContain('````diff\n' + patch + '````');
    const large = pullBody({
      result: result(),
      workflowPatch: { ...workflowPatch, patch: 'x'.repeat(MAX_PULL_PATCH_CHARS + 1) },
    });
    expect(large).toContain('is too large to attach here; it is kept in the run');
    expect(large.length).toBeLessThan(MAX_PULL_PATCH_CHARS);
  });
});
