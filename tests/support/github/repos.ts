// The repository, collaborator permissions, the authenticated user, and GitHub's own facts (`GET /meta`).
import { repositoryJson, timestamp, userJson } from './json.js';
import { DOCS, notAccessible, notFound } from './replies.js';
import type { HandlerTable } from './replies.js';
import type { Emu } from './state.js';

/** The package hosts the emulator's `GET /meta` lists by default: made up, as no test may name a registry. */
export const PACKAGE_HOSTS = ['packages.github.test', 'layers.packages.github.test'] as const;

export function repoHandlers(emu: Emu): HandlerTable {
  return {
    // GitHub's answer carries many more lists (hooks, web, api, git, actions… address ranges); the fields the
    // action reads, and the one the description requires.
    'meta/get': () => {
      const { packageHosts = PACKAGE_HOSTS } = emu.options;
      const domains = packageHosts === null ? {} : { domains: { packages: [...packageHosts] } };
      return { status: 200, body: { verifiable_password_authentication: false, ...domains } };
    },
    'repos/get': () => ({ status: 200, body: repositoryJson(emu) }),
    'repos/get-collaborator-permission-level': ({ match }) => {
      const login = match.params.username ?? '';
      const permission = Object.entries(emu.permissions).find(
        ([name]) => name.toLowerCase() === login.toLowerCase(),
      );
      if (!permission) throw notFound();
      const [name, level] = permission;
      const flags = {
        admin: level === 'admin',
        maintain: level === 'admin',
        push: level === 'admin' || level === 'write',
        triage: level !== 'none',
        pull: level !== 'none',
      };
      const user = { ...userJson(emu, name), permissions: flags, role_name: level };
      return { status: 200, body: { permission: level, role_name: level, user } };
    },
    'users/get-authenticated': () => {
      const { tokenUser } = emu.options;
      if (tokenUser === undefined) throw notAccessible(`${DOCS}/users/users#get-the-authenticated-user`);
      const created = timestamp(new Date('2015-01-01T00:00:00Z'));
      const profile = { name: null, company: null, blog: '', location: null, email: null, hireable: null };
      const counts = { bio: null, public_repos: 1, public_gists: 0, followers: 0, following: 0 };
      const json = { ...userJson(emu, tokenUser), ...profile, ...counts };
      return { status: 200, body: { ...json, created_at: created, updated_at: created } };
    },
  };
}
