// The shell scripts that build the sandbox, and the perl lines they use for system calls util-linux has no
// command for (and for an environment kept off sudo's command line). Every path reaches them as an argument, never as script text.
//
// TEMPLATE runs once per run, as root (rootless: as root of a user namespace of its own, rootless.ts), as
// PID 1 of a PID namespace and in a mount namespace of its own (and a network namespace of its own unless
// NETWORK is `host`); it stays alive, reading its stdin, so that each call can copy its mounts. Every call
// runs inside its PID namespace: when the template ends (its stdin closes because the action's process died,
// however it died), the kernel kills every process of every call with it, so no tool outlives the action.
//
//   sh -c TEMPLATE todo-agent-sandbox PRIVATE WORKSPACE ACCESS NETWORK OWNER IDMAP TEMP_SIZE IDMAP_PL HOME
//     TOOLS GIT SNAPSHOT GUARD C GITS… M HIDDEN… K (TARGET NAME)…
//
// PRIVATE is the sandbox's own directory on the host (private-dirs.ts). The script puts the sandbox's own
// views in place: a tmpfs of TEMP_SIZE each as /tmp and /var/tmp; an overlay on HOME and on TOOLS (the
// runner's tool cache), each when not empty, whose lower layer is the real directory, read-only, and whose
// upper layer lives in PRIVATE and belongs to OWNER (the tools' uid:gid as these namespaces number them), so
// tools find what a setup step installed and every write lands in PRIVATE; and the workspace, writable
// unless ACCESS is `read-only`. With GIT `layer`, the workspace's `.git` gets such an overlay too, mounted on
// it: the tools' git works as usual, but every write lands in PRIVATE, and `.git`, a mount point, can be
// neither renamed nor replaced, so the real one stays as the checkout left it. When IDMAP is a uid, the
// workspace belongs to root and is shown to that uid as its own through an idmapped mount (IDMAP_PL), so
// that the tools never need uid 0. Then it makes every
// other mount read-only and checks that it did (mountinfo's escapes decoded): a mount it cannot make
// read-only stops the build. It gives a /dev of harmless devices only (made, or bound in from the host's
// where it may not make devices, as rootless), and covers each HIDDEN path (a directory with an empty
// read-only tmpfs, a file with /dev/null). With NETWORK `none` or `gated` it also covers /run (where host
// sockets live) and answers name lookups from /etc/hosts only, so they fail at once (gated, the proxy looks
// names up outside). Then it shows each file NAME of PRIVATE/shown read-only at its TARGET (the runner's
// settings with their secrets left out, and the CA files they name). It prints `ready <its pid>` (as the host numbers it) when done and exits when stdin
// closes. With SNAPSHOT a directory (the trusted snapshot, src/git/snapshot.ts), it is shown read-only at
// SNAPSHOT_MOUNT in this sandbox's own /tmp: the sandbox of one MCP server, which no tool can reach. With
// GUARD (GIT_GUARD's text) and C paths of git programs (GITS, the first the one to run), each of them is
// covered by GIT_GUARD, which runs that git from GUARD_DIR only in a repository the tools cannot have made.
//
// When the host's temp directory cannot hold an overlay's upper layer, a tmpfs holds it instead.
//
// The new views are first mounted on staging points inside PRIVATE, while every path is still the host's,
// and moved into place from there, PRIVATE being the script's working directory: HOME and the workspace
// may lie under /tmp (or the workspace under HOME), and covering one must not lose the other. Those moves
// name their sources relative to the working directory, so mount must not canonicalize them.
//
// CALL is PID 1 of each call's fresh PID namespace, made with a user namespace in which it is root mapped to
// the tools' uid (so nothing in it is ever the host's root), an IPC namespace and a copy of the template's
// mounts with a /proc of the call's own:
//
//   sh -c CALL todo-agent-call UID GID PROCESSES SHM_SIZE KEYCTL KEYRING_PL CWD PROGRAM ARGS…
//
// It makes /proc/sys read-only and gives the call a /dev/shm of its own, then becomes the command: with a
// limit of PROCESSES processes, in a second user namespace in which it is UID:GID (the tools' own ids, as on
// the host; rootless too, where the template's namespace numbers the action's user 0), in a session keyring of its own (KEYRING_PL), with no capabilities and no_new_privs.
// Keys, shared memory and semaphores therefore go with the call's namespaces. Nothing privileged stays in the
// namespace, and when the command returns, the kernel kills every process left in it, setsid and
// double-forked ones included.

import { SHOW_FILES } from './private-dirs.js';

/** Where a server's sandbox shows the trusted snapshot (SNAPSHOT), read-only, in its own /tmp. */
export const SNAPSHOT_MOUNT = '/tmp/todo-agent-snapshot';

/** `${D}{…}` in the text below is the shell's `${…}`: a template literal would read it as its own. */
const D = '$';

/**
 * git, as an MCP server's sandbox has it: the real git (bound read-only at GUARD_DIR/real), refused in any
 * repository inside the workspace but the workspace's own `.git` (the server's private layer of it), and
 * held to the repository it was checked in (GIT_DIR and GIT_WORK_TREE set to it, but for `init` and `clone`).
 * A repository the tools make inside the work tree (`sub/.git`, a bare one, a `.git` file leading into the
 * work tree) carries configuration of theirs: filter, diff and merge drivers that no setting names in
 * advance, which a git as old as 2.39 cannot be told to ignore. git starts its children (a submodule's
 * status) from its exec path, whose `git` is this too.
 */
export const GIT_GUARD = String.raw`#!/bin/sh
guard=/tmp/todo-agent-git
real=$guard/real
workspace=$(cat "$guard/workspace") allowed=$(cat "$guard/allowed")
# How many arguments are git's own options, before its command (-C, --git-dir, -c… take a value).
n=0 value=
for arg in "$@"; do
  if [ -n "$value" ]; then value= n=$((n + 1)); continue; fi
  case $arg in
    -C | -c | --git-dir | --work-tree | --namespace | --config-env | --super-prefix | --attr-source) value=1 n=$((n + 1)) ;;
    -*) n=$((n + 1)) ;;
    *) break ;;
  esac
done
# The repository git would work in, given the same options: its directory and its work tree.
probe() {
  count=$# i=0
  for arg in "$@"; do
    i=$((i + 1))
    if [ "$i" -le "$n" ]; then set -- "$@" "$arg"; fi
  done
  shift "$count"
  "$real" "$@" rev-parse --absolute-git-dir --show-toplevel 2>/dev/null
}
found=$(probe "$@")
dir=$(printf '%s\n' "$found" | sed -n 1p) top=$(printf '%s\n' "$found" | sed -n 2p)
case $dir in /*) ;; *) exec "$real" "$@" ;; esac
dir=$(cd "$dir" && pwd -P) || exit 128
ws=$(cd "$workspace" && pwd -P) || exit 128
own=/nowhere
if [ -n "$allowed" ]; then own=$(cd "$allowed" && pwd -P) || own=/nowhere; fi
case $dir/ in
  "$ws"/*)
    case $dir/ in
      "$own"/*) ;;
      *)
        echo "fatal: $dir is a repository the workspace holds that is not its own: an MCP server's git works in the workspace's own repository only (todo-agent)" >&2
        exit 128
        ;;
    esac
    ;;
esac
eval "command=\${$((n + 1))-}"
case $command in
  init | clone) ;;
  *)
    GIT_DIR=$dir
    export GIT_DIR
    if [ -n "$top" ]; then GIT_WORK_TREE=$top; export GIT_WORK_TREE; fi
    ;;
esac
exec "$real" "$@"
`;

/**
 * `perl -e IDMAP_PL USERNS SOURCE TARGET`: a copy of the mount tree at SOURCE, shown through USERNS's id
 * mapping, at TARGET (open_tree, mount_setattr and move_mount, numbered alike on every architecture).
 */
export const IDMAP_PL = String.raw`
use strict; use warnings;
my ($userns, $source, $target) = @ARGV;
my ($here, $there) = ('', '');
open(my $ns, '<', $userns) or die "$userns: $!
";
my $tree = syscall(428, -100, $source, 0x1 | 0x80000 | 0x8000);
die "open_tree $source: $!
" if $tree < 0;
my $attr = pack('QQQQ', 0x100000, 0, 0, fileno($ns));
syscall(442, $tree, $here, 0x1000 | 0x8000, $attr, length $attr) == 0 or die "mount_setattr $source: $!
";
syscall(429, $tree, $there, -100, $target, 0x4) == 0 or die "move_mount $target: $!
";
`;

/** `perl -e KEYRING_PL KEYCTL PROGRAM ARGS…`: joins a new anonymous session keyring, then runs PROGRAM. */
export const KEYRING_PL = String.raw`
my $keyctl = shift;
syscall($keyctl, 1, 0) >= 0 or die "todo-agent-call: no session keyring of its own: $!
";
exec { $ARGV[0] } @ARGV or die "todo-agent-call: $ARGV[0]: $!
";
`;

/**
 * `perl -e ENV_FILE_PL FILE PROGRAM ARGS…`, as root through sudo: runs PROGRAM with exactly FILE's
 * environment (`NAME=value` entries, each ended by a NUL), and removes FILE once read. A command line is
 * anyone's to read (/proc/PID/cmdline, for as long as sudo waits for the call), a file of mode 600 its owner's.
 */
export const ENV_FILE_PL = String.raw`
my $file = shift;
open(my $in, '<', $file) or die "todo-agent-call: $file: $!
";
my $pairs = do { local $/; <$in> };
close $in;
unlink $file;
%ENV = map { split /=/, $_, 2 } split /\0/, $pairs;
exec { $ARGV[0] } @ARGV or die "todo-agent-call: $ARGV[0]: $!
";
`;

export const TEMPLATE = String.raw`
set -euf
PATH=/usr/sbin:/usr/bin:/sbin:/bin
private=$1 workspace=$2 access=$3 network=$4 owner=$5 idmap=$6 temp_size=$7 idmap_pl=$8 home=$9
shift 9
tools=$1 git=$2 snapshot=$3 guard=$4
shift 4
real_git=${D}{2-}

fail() { echo "todo-agent-sandbox: $*" >&2; exit 1; }

# The host's /proc, still mounted here, numbers this shell as the host does: the calls find its namespaces
# there. Then a /proc of this PID namespace, in which the pids below ($!) are valid.
read -r host_pid _ < /proc/self/stat
mount -t proc -o nosuid,nodev,noexec proc /proc

# A user namespace whose one mapping shows on-disk uid and gid 0 as $idmap, for an idmapped mount.
idmap_ns=
if [ -n "$idmap" ]; then
  unshare --user sleep 60 &
  idmap_ns=$!
  while [ "$(readlink /proc/$idmap_ns/ns/user)" = "$(readlink /proc/self/ns/user)" ]; do :; done
  echo "0 $idmap 1" > /proc/$idmap_ns/uid_map
  echo "0 $idmap 1" > /proc/$idmap_ns/gid_map
fi
# SOURCE TARGET: SOURCE, with what lies below it, at TARGET; through the mapping above when there is one.
show() {
  if [ -z "$idmap_ns" ]; then mount --rbind "$1" "$2"; return; fi
  perl -e "$idmap_pl" "/proc/$idmap_ns/ns/user" "$1" "$2" || fail "cannot show $1 to uid $idmap (idmapped mounts need Linux 5.12 and a filesystem that has them)"
}
# In a user namespace (rootless), an overlay may not set the trusted.* attributes that mark what was removed
# or replaced: without user.* ones in their stead, removing a directory of the lower layer fails (EIO).
userxattr=
if [ "$(cat /proc/self/uid_map)" != "$(printf '%10s %10s %10s' 0 0 4294967295)" ]; then userxattr=,userxattr; fi
# LOWER UPPER WORK TARGET: an overlay, with user.* attributes where they are needed and the filesystem has
# them; the last attempt says why it failed.
overlay() {
  if [ -n "$userxattr" ] && mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3$userxattr" "$4" 2>/dev/null; then return; fi
  mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" 2>"$private/overlay-error"
}
# NAME LOWER OWNER: an overlay at NAME whose lower layer is LOWER, read-only, and whose upper layer is
# NAME-upper, owned by OWNER with LOWER's mode (the overlay's root shows the upper layer's).
layer() {
  chown "$3" "$1-upper"
  chmod "$(stat -c %a "$2")" "$1-upper"
  if overlay "$2" "$private/$1-upper" "$private/$1-work" "$1"; then return; fi
  mount -t tmpfs -o mode=700 tmpfs "$1-layer"
  mkdir "$1-layer/upper" "$1-layer/work"
  chown "$(stat -c %u:%g "$1-upper")" "$1-layer/upper"
  chmod "$(stat -c %a "$1-upper")" "$1-layer/upper"
  overlay "$2" "$private/$1-layer/upper" "$private/$1-layer/work" "$1" ||
    fail "cannot lay a private layer over $2: $(cat "$private/overlay-error")"
}

cd "$private"
show "$workspace" workspace
if [ -n "$git" ]; then
  if [ ! -d workspace/.git ] || [ -L workspace/.git ]; then fail "the workspace's .git is not a directory"; fi
  layer git "$private/workspace/.git" "$owner"
  mount -n --no-canonicalize --move git workspace/.git
fi
if [ -n "$home" ]; then layer home "$home" "$owner"; fi
if [ -n "$tools" ] && [ -z "$idmap_ns" ]; then layer tools "$tools" "$owner"; fi
if [ -n "$tools" ] && [ -n "$idmap_ns" ]; then
  # The tool cache belongs to root as the workspace does: its lower layer is shown to the tools as theirs
  # where the kernel can, so that their installs there can change what is in it.
  perl -e "$idmap_pl" "/proc/$idmap_ns/ns/user" "$tools" tools-lower 2>/dev/null || mount --rbind "$tools" tools-lower
  layer tools "$private/tools-lower" "$owner"
fi
mount -t tmpfs -o "nosuid,nodev,mode=1777,size=$temp_size" tmpfs tmp
# The files to show, in reach once the host's /tmp (which holds PRIVATE) is covered; gone once shown.
mkdir tmp/.todo-agent-shown
mount --bind shown tmp/.todo-agent-shown
if [ -n "$snapshot" ]; then
  mkdir tmp/todo-agent-snapshot
  mount --rbind "$snapshot" tmp/todo-agent-snapshot
  mount -o remount,bind,ro tmp/todo-agent-snapshot
fi
if [ -n "$guard" ]; then
  # The real git, and what GIT_GUARD needs to know, read-only in this sandbox's own /tmp.
  mkdir tmp/todo-agent-git
  printf '%s' "$guard" > tmp/todo-agent-git/git
  chmod 755 tmp/todo-agent-git/git
  printf '%s' "$workspace" > tmp/todo-agent-git/workspace
  if [ -n "$git" ]; then printf '%s' "$workspace/.git" > tmp/todo-agent-git/allowed; else : > tmp/todo-agent-git/allowed; fi
  : > tmp/todo-agent-git/real
  mount --bind "$real_git" tmp/todo-agent-git/real
  mount -o remount,bind,ro tmp/todo-agent-git/real 2>/dev/null || true
  mount --rbind tmp/todo-agent-git tmp/todo-agent-git
  mount -o remount,bind,ro tmp/todo-agent-git
fi
mount -t tmpfs -o "nosuid,nodev,mode=1777,size=$temp_size" tmpfs var-tmp
if [ -n "$idmap_ns" ]; then kill "$idmap_ns"; fi
# Rootless, no one may make devices: the host's own are bound in instead (as bubblewrap does),
# staged here while the host's /dev is still in place and this directory writable.
host_devices=
if ! mknod -m 600 device-probe c 1 3 2>/dev/null; then
  host_devices=$private/host-dev
  mkdir "$host_devices"
  mount --rbind /dev "$host_devices"
fi
rm -f device-probe
if [ "$network" != host ]; then
  # Name lookups that fail at once: only /etc/hosts is asked, and there is no name server to wait for.
  printf '# todo-agent sandbox, network %s: no name server\nhosts: files\n' "$network" > "$private/nsswitch.conf"
  printf '# todo-agent sandbox, network %s: no name server\noptions attempts:1 timeout:1\n' "$network" > "$private/resolv.conf"
  if [ -f /etc/nsswitch.conf ]; then mount --bind -o ro "$private/nsswitch.conf" /etc/nsswitch.conf; fi
  if [ -f /etc/resolv.conf ] && [ ! -L /etc/resolv.conf ]; then mount --bind -o ro "$private/resolv.conf" /etc/resolv.conf; fi
fi

# The mounts still writable that must not be: mountinfo's escapes (\040 space, \011 tab, \012 newline,
# \134 backslash) decoded; a mount covered by another at the same place is out of reach and skipped.
writable_mounts() {
  awk -v private="$private" -v access="$access" '
    function unescape(s) {
      gsub(/\\040/, " ", s); gsub(/\\011/, "\t", s); gsub(/\\012/, "\n", s); gsub(/\\134/, "\\", s)
      return s
    }
    function under(p, dir) { return p == dir || index(p, dir "/") == 1 }
    {
      id[NR] = $1; raw[NR] = $5; mp[NR] = unescape($5); rw[NR] = ("," $6 ",") !~ /,ro,/
      covered[$2 SUBSEP $5] = 1
    }
    END {
      for (i = 1; i <= NR; i++) {
        p = mp[i]
        if (!rw[i] || covered[id[i] SUBSEP raw[i]]) continue
        if (under(p, "/proc") || under(p, "/dev")) continue
        if (under(p, private "/workspace")) { if (access == "read-write") continue }
        else if (under(p, private)) continue
        print p
      }
    }' /proc/self/mountinfo
}
writable_mounts | while IFS= read -r mp; do mount -o remount,bind,ro "$mp" 2>/dev/null || true; done
left=$(writable_mounts | tr '\n' ' ')
[ -z "$left" ] || fail "cannot make these mounts read-only, so the sandbox is not built: $left"
if [ "$access" != read-write ]; then mount -o remount,bind,ro workspace; fi

mount -t tmpfs -o nosuid,noexec,mode=755,size=64k tmpfs /dev
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  name=${D}{node%%:*} numbers=${D}{node#*:}
  if [ -n "$host_devices" ]; then
    : > "/dev/$name"
    mount --bind "$host_devices/$name" "/dev/$name"
  else
    mknod -m 666 "/dev/$name" c "${D}{numbers%%:*}" "${D}{numbers#*:}"
  fi
done
if [ -n "$host_devices" ]; then umount -l "$host_devices"; fi
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir /dev/shm /dev/pts
# The mount, not the tmpfs, is made read-only: rootless, the tmpfs's own options (its uid) cannot be restated.
mount -o remount,bind,ro,nosuid,noexec /dev

place() {
  mkdir -p "$2"
  mount -n --no-canonicalize --move "$1" "$2"
}
place tmp /tmp
if [ -d /var/tmp ]; then place var-tmp /var/tmp; fi
if [ -n "$home" ]; then place home "$home"; fi
if [ -n "$tools" ]; then place tools "$tools"; fi
place workspace "$workspace"
cd /

if [ "$network" != host ]; then
  # No path to a host socket.
  if [ -d /run ] && [ ! -L /run ]; then mount -t tmpfs -o ro,nosuid,nodev,noexec,mode=755,size=4k tmpfs /run; fi
  if [ -d /var/run ] && [ ! -L /var/run ]; then mount -t tmpfs -o ro,nosuid,nodev,noexec,mode=755,size=4k tmpfs /var/run; fi
fi

# Every git the server could start, its own children included (git finds them in its exec path), is GIT_GUARD
# (one that a view above now covers, as /run, is out of its reach anyway).
c=$1; shift
while [ "$c" -gt 0 ]; do
  if [ -e "$1" ]; then
    mount --bind /tmp/todo-agent-git/git "$1"
    mount -o remount,bind,ro "$1"
  fi
  c=$((c - 1)); shift
done

n=$1; shift
while [ "$n" -gt 0 ]; do
  if [ -d "$1" ] && [ ! -L "$1" ]; then
    # Read-only as a mount (not as a filesystem), so that a file to show below can get its mount point.
    mount -t tmpfs -o nosuid,nodev,noexec,mode=555,size=4k todo-agent-hidden "$1"
    mount -o remount,bind,ro,nosuid,nodev,noexec "$1"
  elif [ -e "$1" ] && [ ! -L "$1" ]; then
    mount --bind /dev/null "$1"
  fi
  n=$((n - 1)); shift
done

${SHOW_FILES}

ip link set lo up 2>/dev/null || true
echo "ready $host_pid"
while read -r _line; do :; done
`;

export const CALL = String.raw`
tool_path=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin
uid=$1 gid=$2 processes=$3 shm_size=$4 keyctl=$5 keyring_pl=$6 cwd=$7
shift 7
# Resolved again through this namespace's mounts (a directory opened outside would bypass them).
cd -- "$cwd" || exit 125
mount --bind -o ro /proc/sys /proc/sys || exit 125
if [ -e /proc/sysrq-trigger ]; then mount --bind /dev/null /proc/sysrq-trigger || exit 125; fi
mount -t tmpfs -o "nosuid,nodev,mode=1777,size=$shm_size" tmpfs /dev/shm || exit 125
exec prlimit --nproc="$processes:$processes" -- unshare --user --map-user="$uid" --map-group="$gid" -- \
  perl -e "$keyring_pl" "$keyctl" setpriv --inh-caps=-all --ambient-caps=-all --no-new-privs -- \
  env PATH="$tool_path" "$@"
`;
