// What the CLI takes from its environment for keyless auth, and its --output-schema file: each missing name
// or bad file said in one sentence, and the identity token read anew from its file at each exchange.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFederation, outputSchemaFile } from '../../src/cli/keyless.js';
import { DEFAULT_AUDIENCE } from '../../src/settings/parse.js';
import { redactor } from '../../src/text/redact.js';
import { useTempDir } from '../support/temp-dir.js';

const tempDir = useTempDir('cli-keyless');

describe('cliFederation', () => {
  it('is off without a federation rule, and names every variable a rule still needs', () => {
    expect(cliFederation({ ANTHROPIC_ORGANIZATION_ID: 'org' })).toBeUndefined();
    expect(
      cliFederation({ ANTHROPIC_FEDERATION_RULE_ID: 'fdrl_1', ANTHROPIC_ORGANIZATION_ID: 'org' }),
    ).toEqual({
      problem:
        'keyless auth (ANTHROPIC_FEDERATION_RULE_ID) needs ANTHROPIC_SERVICE_ACCOUNT_ID, ANTHROPIC_IDENTITY_TOKEN_FILE',
    });
  });

  it('reads the identity token from its file at each exchange, and hides every token it is handed', async () => {
    const file = join(tempDir(), 'token');
    const auth = cliFederation({
      ANTHROPIC_FEDERATION_RULE_ID: 'fdrl_1',
      ANTHROPIC_ORGANIZATION_ID: 'org-1',
      ANTHROPIC_SERVICE_ACCOUNT_ID: 'svac_1',
      ANTHROPIC_WORKSPACE_ID: 'wrkspc_1',
      ANTHROPIC_IDENTITY_TOKEN_FILE: file,
    });
    if (!auth || 'problem' in auth) throw new Error('expected keyless auth');
    const { federation } = auth;
    expect(federation).toMatchObject({
      federationRuleId: 'fdrl_1',
      organizationId: 'org-1',
      serviceAccountId: 'svac_1',
      workspaceId: 'wrkspc_1',
      audience: DEFAULT_AUDIENCE,
    });
    await writeFile(file, 'first-token\n');
    expect(await federation!.identityToken(federation!.audience)).toBe('first-token');
    await writeFile(file, 'second-token\n');
    expect(await federation!.identityToken(federation!.audience)).toBe('second-token');
    federation!.onSecret('cli-keyless-minted-9');
    expect(redactor.redact('token cli-keyless-minted-9')).not.toContain('cli-keyless-minted-9');
  });
});

describe('outputSchemaFile', () => {
  it('reads and checks the schema, and says what is wrong with a missing file or a bad schema', async () => {
    const good = join(tempDir(), 'answer.json');
    await writeFile(good, '{"type":"object","properties":{"ok":{"type":"boolean"}}}');
    const schema = await outputSchemaFile(good);
    expect('mismatch' in schema && schema.mismatch({ ok: 'no' })).toBeTruthy();
    expect(await outputSchemaFile(join(tempDir(), 'missing.json'))).toEqual({
      problem: `--output-schema: cannot read ${join(tempDir(), 'missing.json')} (ENOENT)`,
    });
    const bad = join(tempDir(), 'bad.json');
    await writeFile(bad, '[1]');
    expect(await outputSchemaFile(bad)).toEqual({
      problem: `--output-schema ${bad} must be a JSON Schema object, like {"type": "object", …}`,
    });
  });
});
