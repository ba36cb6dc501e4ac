import type { State } from "../shared/state";
import { describeInstance } from "./instance-row";
import type { Instance } from "./instance-state";

/**
 * The environment an instance's container has, as the service's docker-environment guide lists
 * it, for running its onstart on this machine. Nothing of the emulator's own environment goes in
 * but PATH (so that sh finds curl, wget, python3): no key or secret of whoever runs it.
 */

/** Where sh looks for commands when the emulator itself has no PATH. */
export const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Env entries that are variables; the others are Docker flags (`-p 8000:8000`, `-n NAME`). */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ContainerPlace {
  /** The instance's own key (CONTAINER_API_KEY). */
  readonly apiKey: string;
  /** The container's directory: its HOME, so that what it writes stays in it. */
  readonly directory: string;
  /** The PATH: the emulator's, after the stand-in GPUs' directory (stand-in-gpus.ts). */
  readonly path: string | undefined;
}

/**
 * The variables, lowest precedence first: the account's environment variables (the guide's
 * "User Account Variables", which the secrets endpoints keep), the instance's own env, then
 * what the platform sets (its id, key, address and ports), which an env entry cannot override.
 */
export function containerEnv(
  state: State,
  instance: Instance,
  place: ContainerPlace,
  nowMs: number,
): Record<string, string> {
  const row = describeInstance(instance, nowMs);
  const ports: Record<string, string> = {};
  for (const [port, bindings] of Object.entries(row.ports ?? {})) {
    const [number, protocol] = port.split("/");
    const hostPort = bindings[0]?.HostPort;
    if (number === undefined || hostPort === undefined) continue;
    ports[`VAST_${protocol === "udp" ? "UDP" : "TCP"}_PORT_${number}`] = hostPort;
  }
  const variables = (entries: Iterable<[string, string]>) =>
    Object.fromEntries([...entries].filter(([name]) => VARIABLE_NAME.test(name)));
  return {
    PATH: place.path ?? defaultPath,
    HOME: place.directory,
    ...variables(state.secrets.map((secret): [string, string] => [secret.key, secret.value])),
    ...variables(Object.entries(instance.env)),
    CONTAINER_ID: String(instance.id),
    CONTAINER_API_KEY: place.apiKey,
    VAST_CONTAINERLABEL: `C.${String(instance.id)}`,
    GPU_COUNT: String(instance.offer.numGpus),
    ...(row.public_ipaddr === null ? {} : { PUBLIC_IPADDR: row.public_ipaddr }),
    ...ports,
  };
}
