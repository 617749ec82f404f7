// The two shell scripts that build the sandbox. Every path reaches them as an argument, never as script text.
//
// TEMPLATE runs once per run, as root, in a mount namespace of its own (and a network namespace of its
// own with `tool_network: none`); it stays alive, reading its stdin, so that each call can copy its mounts:
//
//   sh -c TEMPLATE todo-agent-sandbox PRIVATE WORKSPACE ACCESS HOME M HIDDEN…
//
// PRIVATE is the sandbox's own directory on the host (private-dirs.ts). The script makes every
// mount read-only, then puts the sandbox's own views in place: PRIVATE/tmp and PRIVATE/var-tmp as /tmp and
// /var/tmp; an overlay on HOME (when HOME is not empty) whose lower layer is the real HOME, read-only, and
// whose upper layer is PRIVATE/home-upper, so tools find what a setup step installed there and every write
// lands in PRIVATE; and the workspace, writable unless ACCESS is `read-only`. It gives a /dev of harmless
// devices only, and covers each HIDDEN path (a directory with an empty read-only tmpfs, a file with
// /dev/null). It prints `ready <its pid>` when done and exits when its stdin closes.
//
// When the host's temp directory cannot hold the overlay's upper layer, a tmpfs holds it instead.
//
// The new views are first mounted on staging points inside PRIVATE, while every path is still the host's,
// and moved into place from there, PRIVATE being the script's working directory: HOME and the workspace
// may lie under /tmp (or the workspace under HOME), and covering one must not lose the other. Those moves
// name their sources relative to the working directory, so mount must not canonicalize them.
//
// CALL is PID 1 of each call's fresh PID namespace (with a /proc that shows only that namespace), in a
// copy of the template's mounts:
//
//   sh -c CALL todo-agent-call UID GID SETPRIV CWD SHELL -c COMMAND
//
// It runs the command through `setpriv` with no capabilities, no supplementary groups and no_new_privs:
// as UID when it is not 0; when it is 0, already inside a child user namespace (where the template's mounts
// are locked), with /proc/sys read-only and the "no root" securebits. PID 1 waits for the command: when it
// returns, the kernel kills every process left in the namespace, setsid and double-forked ones included.

/** `${D}{…}` in the text below is the shell's `${…}`: a template literal would read it as its own. */
const D = '$';

export const TEMPLATE = String.raw`
set -euf
PATH=/usr/sbin:/usr/bin:/sbin:/bin
private=$1 workspace=$2 access=$3 home=$4
shift 4

cd "$private"
mount --rbind "$workspace" workspace
if [ -n "$home" ] &&
  ! mount -t overlay overlay -o "lowerdir=$home,upperdir=$private/home-upper,workdir=$private/home-work" home 2>/dev/null
then
  # The host's temp directory cannot hold an upper layer (an overlayfs itself, as in many containers):
  # the layer goes to a tmpfs instead, in memory, with the owner and mode prepared for it.
  mount -t tmpfs -o mode=700 tmpfs home-layer
  mkdir home-layer/upper home-layer/work
  chown "$(stat -c %u:%g home-upper)" home-layer/upper
  chmod "$(stat -c %a home-upper)" home-layer/upper
  mount -t overlay overlay -o "lowerdir=$home,upperdir=$private/home-layer/upper,workdir=$private/home-layer/work" home
fi
mount --bind tmp tmp
mount --bind var-tmp var-tmp
# Rootless, no one may make devices: the host's own are bound in instead (rootless.ts), as bubblewrap does.
host_devices=
if ! mknod -m 600 device-probe c 1 3 2>/dev/null; then
  host_devices=$private/host-dev
  mkdir "$host_devices"
  mount --rbind /dev "$host_devices"
fi
rm -f device-probe

stays_writable() {
  case "$1" in
    "$private"/workspace | "$private"/workspace/*) [ "$access" = read-write ] ;;
    "$private" | "$private"/*) return 0 ;;
    *) return 1 ;;
  esac
}

while read -r _id _parent _dev _root mp opts _rest; do
  case "$mp" in /proc | /proc/* | /dev | /dev/*) continue ;; esac
  case ",$opts," in *,ro,*) continue ;; esac
  stays_writable "$mp" || mount -o remount,bind,ro "$mp" 2>/dev/null || true
done < /proc/self/mountinfo
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
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /dev/shm
# The mount, not the tmpfs, is made read-only: rootless, the tmpfs's own options (its uid) cannot be restated.
mount -o remount,bind,ro,nosuid,noexec /dev

place() {
  mkdir -p "$2"
  mount -n --no-canonicalize --move "$1" "$2"
}
place tmp /tmp
if [ -d /var/tmp ]; then place var-tmp /var/tmp; fi
if [ -n "$home" ]; then place home "$home"; fi
place workspace "$workspace"
cd /

n=$1; shift
while [ "$n" -gt 0 ]; do
  if [ -d "$1" ] && [ ! -L "$1" ]; then
    mount -t tmpfs -o ro,nosuid,nodev,noexec,mode=555,size=4k tmpfs "$1"
  elif [ -e "$1" ] && [ ! -L "$1" ]; then
    mount --bind /dev/null "$1"
  fi
  n=$((n - 1)); shift
done

ip link set lo up 2>/dev/null || true
echo "ready $$"
while read -r _line; do :; done
`;

export const CALL = String.raw`
tool_path=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin
uid=$1 gid=$2 setpriv_bin=$3 cwd=$4
shift 4
# Resolved again through this namespace's mounts (a directory opened outside would bypass them).
cd -- "$cwd" || exit 125
if [ "$uid" -eq 0 ]; then
  mount --bind -o ro /proc/sys /proc/sys || exit 125
  if [ -e /proc/sysrq-trigger ]; then mount --bind /dev/null /proc/sysrq-trigger || exit 125; fi
  PATH=$tool_path "$setpriv_bin" --inh-caps=-all --ambient-caps=-all --bounding-set=-all \
    --securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked \
    --no-new-privs -- "$@"
else
  PATH=$tool_path "$setpriv_bin" --reuid="$uid" --regid="$gid" --clear-groups \
    --inh-caps=-all --ambient-caps=-all --bounding-set=-all --no-new-privs -- "$@"
fi
exit $?
`;
