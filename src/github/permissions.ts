// Who counts as a maintainer: a collaborator with write or admin permission on the repository.
import type { Permission } from './api/access.js';

const WRITERS: readonly Permission[] = ['admin', 'write'];

/** Write or admin: may run todo-agent, and is shown to the model as a maintainer. */
export function canWrite(permission: Permission | undefined): boolean {
  return WRITERS.includes(permission ?? 'none');
}
