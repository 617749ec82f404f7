// The credentials file a Google login step leaves in the workspace: where it is, so that the action's commit
// leaves it out, and the secrets inside it, so that they are masked wherever they would show.
import { readFileSync } from 'node:fs';
import { envValue } from '../model/providers.js';

/** Where google-github-actions/auth says its credentials file is (in the workspace, by default). */
export function credentialFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const names = [
    'GOOGLE_APPLICATION_CREDENTIALS',
    'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',
    'GOOGLE_GHA_CREDS_PATH',
  ];
  return [...new Set(names.map((name) => envValue(env, name)).filter((path) => path !== undefined))];
}

/**
 * Fields of a Google credentials file that hold a secret (private_key, client_secret, refresh_token…), at any
 * depth; every header value too (they carry the runner's OIDC request token). Not the names and types of
 * tokens (subject_token_type, subject_token_field_name) nor their URLs.
 */
const SECRET_FIELD = /(key|secret|token|authorization|password)$/i;

/**
 * The secret values inside the Google credentials files the environment names, for masking and
 * redaction: google-github-actions/auth writes that file into the workspace, where the agent's tools can read
 * it. A missing or unreadable file gives none (the provider's own error says so when it is needed).
 */
export function credentialFileSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return credentialFiles(env).flatMap(secretsIn);
}

function secretsIn(path: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  const found: string[] = [];
  const visit = (value: unknown, secret: boolean): void => {
    if (typeof value === 'string') {
      // URLs and URNs (token_url, subject_token_type) are addresses and names, not secrets.
      if (secret && !/^(https?|urn):/i.test(value)) found.push(value.replace(/^bearer\s+/i, ''));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value))
        visit(child, secret || SECRET_FIELD.test(key) || key === 'headers');
    }
  };
  visit(parsed, false);
  return found;
}
