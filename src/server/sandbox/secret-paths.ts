/**
 * What a sandboxed agent must not read although its user can: credentials kept in the home
 * directory, other users' homes, and the host's own secrets. A prompt injection in a
 * repository asks the model for exactly these (`cat ~/.ssh/id_rsa`, `env`, `~/.aws/credentials`)
 * and the answer goes to the model's provider and into the transcript.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isWithin } from "../../util/path-within.js";

/** Under the user's home: keys, cloud and registry credentials, tokens of CLIs. */
const HOME_SECRETS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker",
  ".netrc",
  ".git-credentials",
  ".config/gh",
  ".npmrc",
  ".pypirc",
  ".cargo/credentials.toml",
  ".password-store",
];

/**
 * The host's own: password hashes, the SSH host keys, and the sockets of container engines (a
 * read-only mount does not stop a connection to a socket, and Docker's is root on the host).
 */
const HOST_SECRETS = [
  "/etc/shadow",
  "/etc/gshadow",
  "/etc/ssh",
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/containerd/containerd.sock",
  "/run/podman/podman.sock",
];

/**
 * The secret paths for a user whose home is `home`: those above, and every other user's home
 * (a directory under `/home`, or `/root`). An other home that holds a directory the agent must
 * see (`visible`: the session directory, OpenCode's state) cannot be hidden whole: its
 * credentials are, as the user's own are. Paths that do not exist are left to the caller.
 */
export function secretPaths(home: string, visible: readonly string[]): string[] {
  const paths = homeSecrets(home);
  paths.push(...HOST_SECRETS);
  for (const other of otherHomes(home)) {
    const holdsVisible = visible.some((dir) => isWithin(dir, other));
    paths.push(...(holdsVisible ? homeSecrets(other) : [other]));
  }
  return paths;
}

function homeSecrets(home: string): string[] {
  return HOME_SECRETS.map((path) => join(home, path));
}

/** `/root` and the directories under `/home`, but the user's own home and what holds it. */
function otherHomes(home: string): string[] {
  const homes = ["/root", ...listDirectory("/home").map((entry) => join("/home", entry))];
  return homes.filter((other) => !isWithin(home, other));
}

function listDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
