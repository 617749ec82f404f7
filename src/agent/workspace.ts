// Path confinement: every path the model names must resolve, symlinks and all, inside the workspace.
import { realpathSync } from 'node:fs';
import { readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, type ToolContext } from './tools/types.js';
import { errorMessage } from '../text/error-sentence.js';

/** Same bound the kernel uses (ELOOP), for links we follow by hand. */
const MAX_LINK_HOPS = 40;

export interface ResolveOptions {
  /** Refuse a path that does not exist yet ("no such file"). */
  mustExist?: boolean;
  /** The caller will write there: refuse anything inside a `.git` directory. */
  forWrite?: boolean;
  /** Files to refuse, read or write (credentials); compared after symlinks are resolved. */
  hidden?: readonly string[];
}

/** Realpaths `dir` and checks it is a directory; the result is what ToolContext.workspace expects. */
export async function openWorkspace(dir: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path.resolve(dir));
  } catch (error) {
    throw new Error(`workspace not found: ${dir} (${errorCode(error)})`, { cause: error });
  }
  if (!(await stat(real)).isDirectory()) throw new Error(`workspace is not a directory: ${dir}`);
  return real;
}

/**
 * Resolves `requested` (relative to the workspace, or absolute) to a real path inside `workspace`,
 * which must itself be a realpath. Throws ToolError when the path escapes, even through a symlink.
 */
export async function resolveInWorkspace(
  workspace: string,
  requested: string,
  opts: ResolveOptions = {},
): Promise<string> {
  if (requested.trim() === '') throw new ToolError('path is empty; give a path relative to the workspace');
  if (requested.includes('\0')) throw new ToolError(`path contains a NUL byte: ${JSON.stringify(requested)}`);

  let resolved: { real: string; exists: boolean };
  try {
    resolved = await resolveReal(path.resolve(workspace, requested));
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(`cannot resolve ${requested}: ${errorCode(error)}`);
  }

  const relative = path.relative(workspace, resolved.real);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new ToolError(`path escapes the workspace: ${requested}`);
  }
  if (opts.forWrite && relative.split(path.sep).some((part) => part.toLowerCase() === '.git')) {
    throw new ToolError(`refusing to write inside .git: ${requested} (git internals are read-only)`);
  }
  if (opts.hidden?.some((file) => realOrResolved(file) === resolved.real)) {
    throw new ToolError(`refusing ${requested}: it holds credentials the tools may not read`);
  }
  if (opts.mustExist && !resolved.exists) throw new ToolError(`no such file: ${requested}`);
  return resolved.real;
}

/**
 * The real path of the file a file tool was asked for: resolveInWorkspace in the context's workspace,
 * refusing the context's hidden files, so that no tool can leave them out.
 */
export async function toolFile(
  context: Pick<ToolContext, 'workspace' | 'hidden'>,
  requested: string,
  opts: Omit<ResolveOptions, 'hidden'> = {},
): Promise<string> {
  return await resolveInWorkspace(context.workspace, requested, { ...opts, hidden: context.hidden ?? [] });
}

function realOrResolved(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * The real path of `target`: the realpath of its deepest existing ancestor plus the missing names.
 * A dangling symlink on the way is followed by hand, so its target is judged like any other path.
 */
async function resolveReal(target: string, hops = 0): Promise<{ real: string; exists: boolean }> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      return { real: path.join(await realpath(current), ...missing), exists: missing.length === 0 };
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const link = await readlinkOrNull(current);
    if (link !== null) {
      if (hops >= MAX_LINK_HOPS) throw new ToolError(`too many levels of symbolic links: ${target}`);
      const linkDir = await realpath(path.dirname(current));
      const next = await resolveReal(path.join(path.resolve(linkDir, link), ...missing), hops + 1);
      return { real: next.real, exists: false };
    }
    const parent = path.dirname(current);
    if (parent === current) return { real: path.join(current, ...missing), exists: false };
    missing.unshift(path.basename(current));
    current = parent;
  }
}

async function readlinkOrNull(file: string): Promise<string | null> {
  try {
    return await readlink(file);
  } catch {
    return null;
  }
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function errorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return errorMessage(error);
}
