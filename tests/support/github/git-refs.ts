// The Git database's refs: creating a branch (POST /repos/{owner}/{repo}/git/refs) and deleting one
// (DELETE /repos/{owner}/{repo}/git/refs/{ref}), written into the origin.
import { DOCS, HttpError, validationFailed } from './replies.js';
import type { HandlerTable } from './replies.js';
import { originGit } from './origin-git.js';
import type { Emu } from './state.js';

export function gitRefHandlers(emu: Emu): HandlerTable {
  return {
    'git/delete-ref': async ({ match }) => {
      const ref = `refs/${match.params.ref ?? ''}`;
      const { remoteDir } = emu.options;
      if (!remoteDir) {
        emu.violations.push('not emulated: git/delete-ref without a remoteDir');
        throw new HttpError(501, { message: 'Not emulated' });
      }
      const exists = await originGit(remoteDir, ['rev-parse', '--verify', '--quiet', ref]).then(
        () => true,
        () => false,
      );
      if (!exists)
        throw new HttpError(422, {
          message: 'Reference does not exist',
          documentation_url: `${DOCS}/git/refs#delete-a-reference`,
          status: '422',
        });
      await originGit(remoteDir, ['update-ref', '-d', ref]);
      return { status: 204 };
    },
    'git/create-ref': async ({ body }) => {
      const { ref, sha } = body as { ref: string; sha: string };
      const docs = `${DOCS}/git/refs#create-a-reference`;
      const { remoteDir } = emu.options;
      if (!remoteDir) {
        emu.violations.push('not emulated: git/create-ref without a remoteDir');
        throw new HttpError(501, { message: 'Not emulated' });
      }
      // GitHub wants a fully qualified ref with at least two slashes.
      if (!/^refs\/[^/]+\/.+/.test(ref))
        throw validationFailed([{ message: `${ref} is not a valid ref name.` }], docs);
      const known = await originGit(remoteDir, ['cat-file', '-e', `${sha}^{commit}`]).then(
        () => true,
        () => false,
      );
      if (!known)
        throw new HttpError(422, {
          message: 'Object does not exist',
          documentation_url: docs,
          status: '422',
        });
      const exists = await originGit(remoteDir, ['rev-parse', '--verify', '--quiet', ref]).then(
        () => true,
        () => false,
      );
      if (exists)
        throw new HttpError(422, {
          message: 'Reference already exists',
          documentation_url: docs,
          status: '422',
        });
      await originGit(remoteDir, ['update-ref', ref, sha, '0'.repeat(40)]);
      const url = `${emu.api}/repos/${emu.owner}/${emu.repo}/git/${ref}`;
      return {
        status: 201,
        headers: { location: url },
        body: {
          ref,
          node_id: `REF_${Buffer.from(ref).toString('base64')}`,
          url,
          object: {
            type: 'commit',
            sha,
            url: `${emu.api}/repos/${emu.owner}/${emu.repo}/git/commits/${sha}`,
          },
        },
      };
    },
  };
}
