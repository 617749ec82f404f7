// GitHub's own hosts in the default allowlist: the web host the runner's GITHUB_SERVER_URL names, the hosts
// GitHub documents for archives, raw content, release assets and Git LFS, and the hosts its `GET /meta` lists
// for packages (its registries, asked at the start of the run, never written here). Not its API: the tools
// reach that only when allowed_hosts names it (with a token handed to it in an issue, a tool could act on
// GitHub; without one, the `github` tool reads what it needs).
import { normalizeHost, parseHostEntry, type HostRule } from './hosts.js';

const SOURCE = 'GitHub';

/**
 * github.com's hosts besides github.com itself, as GitHub's page on communicating with self-hosted runners
 * lists them: archives (codeload), raw files, release assets (objects, release-assets, github-releases) and
 * Git LFS (media, github-cloud). Its registries' hosts come from `GET /meta` (`domains.packages`).
 */
const GITHUB_COM_HOSTS = [
  'codeload.github.com',
  'raw.githubusercontent.com',
  'gist.githubusercontent.com',
  'objects.githubusercontent.com',
  'release-assets.githubusercontent.com',
  'github-releases.githubusercontent.com',
  'media.githubusercontent.com',
  'github-cloud.githubusercontent.com',
];

function hostOf(url: string): string | undefined {
  try {
    return normalizeHost(new URL(url).hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return undefined;
  }
}

/**
 * The rules for the GitHub the run belongs to, and its API host to guard. On github.com, its documented
 * hosts; on GitHub Enterprise Server or a GHE.com subdomain, the server's host and every name below it (its
 * subdomain isolation puts raw files, archives, assets and packages there), the API host excepted. Either
 * way, the package hosts `GET /meta` gave (`packages`; none when it gave none).
 */
export function githubHosts(
  serverUrl: string,
  apiUrl: string,
  packages: readonly string[] = [],
): {
  rules: HostRule[];
  guarded: Array<{ host: string; what: string }>;
} {
  const server = hostOf(serverUrl);
  const api = hostOf(apiUrl);
  // GitHub Enterprise Server serves its API on the web host (/api/v3): a name cannot tell them apart there.
  const guarded = api && api !== server ? [{ host: api, what: "GitHub's API" }] : [];
  const fromMeta = packages.flatMap((entry) => parseHostEntry(entry, SOURCE) ?? []);
  const notApi = fromMeta.filter((rule) => rule.host !== api && rule.port === undefined);
  if (!server) return { rules: notApi, guarded };
  const hosts = server === 'github.com' ? [server, ...GITHUB_COM_HOSTS] : [server, `*.${server}`];
  return { rules: [...hosts.map((host) => ({ host, source: SOURCE })), ...notApi], guarded };
}
