// The credentials file a Google login step leaves in the workspace: found by any of the names the auth step
// sets, once each, and the secrets in it (at any depth, headers included) told from its names and addresses.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialFiles, credentialFileSecrets } from '../../src/sandbox/credential-files.js';
import { useTempDir } from '../support/temp-dir.js';

const tempDir = useTempDir('credential-files');

describe('credentialFiles', () => {
  it('names each file the environment points at once, and none when no name is set', () => {
    expect(credentialFiles({})).toEqual([]);
    expect(
      credentialFiles({
        GOOGLE_APPLICATION_CREDENTIALS: '/w/gha-creds-1.json',
        CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: '/w/gha-creds-1.json',
        GOOGLE_GHA_CREDS_PATH: '/w/other.json',
      }),
    ).toEqual(['/w/gha-creds-1.json', '/w/other.json']);
  });
});

describe('credentialFileSecrets', () => {
  it('finds the secret fields at any depth and every header value, but no URL, type or name', async () => {
    const file = join(tempDir(), 'gha-creds-1.json');
    await writeFile(
      file,
      JSON.stringify({
        type: 'external_account',
        audience: '//iam.example/projects/1',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: 'https://sts.example/v1/token',
        private_key: 'pk-value-1',
        credential_source: {
          url: 'https://runner.example/token?audience=x',
          headers: { Authorization: 'Bearer request-token-2', 'X-Other': 'header-value-3' },
          format: { type: 'json', subject_token_field_name: 'value' },
        },
        nested: { client_secret: 'client-secret-4', refresh_token: 'refresh-5' },
      }),
    );
    expect(credentialFileSecrets({ GOOGLE_GHA_CREDS_PATH: file }).sort()).toEqual(
      ['client-secret-4', 'header-value-3', 'pk-value-1', 'refresh-5', 'request-token-2'].sort(),
    );
  });

  it('gives none for a file that is missing or not JSON', async () => {
    const garbled = join(tempDir(), 'garbled.json');
    await writeFile(garbled, 'private_key: not json');
    expect(
      credentialFileSecrets({
        GOOGLE_APPLICATION_CREDENTIALS: join(tempDir(), 'missing.json'),
        GOOGLE_GHA_CREDS_PATH: garbled,
      }),
    ).toEqual([]);
  });
});
