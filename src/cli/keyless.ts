// What the CLI takes from its environment for keyless auth, and its --output-schema file. The federation's
// names are the variables the WIF reference gives the SDKs (ANTHROPIC_FEDERATION_RULE_ID,
// ANTHROPIC_ORGANIZATION_ID, ANTHROPIC_SERVICE_ACCOUNT_ID, ANTHROPIC_WORKSPACE_ID), and the OIDC token is
// read from ANTHROPIC_IDENTITY_TOKEN_FILE at each exchange, so a token the file is given anew is used.
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import type { ModelOptions } from '../model/client.js';
import { envValue } from '../model/providers.js';
import type { OutputSchema } from '../model/output-schema.js';
import { DEFAULT_AUDIENCE } from '../settings/parse.js';
import { redactor } from '../text/redact.js';

/** Keyless auth from the environment, when ANTHROPIC_FEDERATION_RULE_ID is set; its problem as a sentence. */
export function cliFederation(
  env: NodeJS.ProcessEnv,
): Pick<ModelOptions, 'federation'> | { problem: string } | undefined {
  const federationRuleId = envValue(env, 'ANTHROPIC_FEDERATION_RULE_ID');
  if (!federationRuleId) return undefined;
  const organizationId = envValue(env, 'ANTHROPIC_ORGANIZATION_ID');
  const serviceAccountId = envValue(env, 'ANTHROPIC_SERVICE_ACCOUNT_ID');
  const file = envValue(env, 'ANTHROPIC_IDENTITY_TOKEN_FILE');
  const missing = [
    organizationId ? undefined : 'ANTHROPIC_ORGANIZATION_ID',
    serviceAccountId ? undefined : 'ANTHROPIC_SERVICE_ACCOUNT_ID',
    file ? undefined : 'ANTHROPIC_IDENTITY_TOKEN_FILE',
  ].filter((name) => name !== undefined);
  if (missing.length > 0)
    return { problem: `keyless auth (ANTHROPIC_FEDERATION_RULE_ID) needs ${missing.join(', ')}` };
  const workspaceId = envValue(env, 'ANTHROPIC_WORKSPACE_ID');
  return {
    federation: {
      federationRuleId,
      organizationId: organizationId!,
      serviceAccountId: serviceAccountId!,
      ...(workspaceId ? { workspaceId } : {}),
      audience: DEFAULT_AUDIENCE,
      identityToken: async () => (await readFile(file!, 'utf8')).trim(),
      onSecret: (value) => redactor.add(value),
    },
  };
}

/** --output-schema FILE, read and checked now; its problem as a sentence. */
export async function outputSchemaFile(path: string): Promise<OutputSchema | { problem: string }> {
  const { parseOutputSchema, OutputSchemaError } = await import('../model/output-schema.js');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      problem: `--output-schema: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    };
  }
  try {
    return parseOutputSchema(text, `--output-schema ${path}`);
  } catch (error) {
    if (error instanceof OutputSchemaError) return { problem: error.message };
    throw error;
  }
}
