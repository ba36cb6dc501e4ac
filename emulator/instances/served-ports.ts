import type { Instance } from "./instance-state";

/**
 * The host ports an instance's mapped container ports answer on, while the emulator serves
 * them (`servePorts`, instances/port-server.ts): the row reports these in place of its made-up
 * direct ports, at the loopback address. Keyed by the instance's record, never persisted: the
 * ports are this process's sockets, and a WeakMap keeps two emulators of one process apart.
 */
export interface ServedPorts {
  /** The boot they belong to: a start after a stop maps fresh ports, as the service does. */
  readonly bootKey: string;
  /** The loopback address they answer on, reported as the instance's public address. */
  readonly address: string;
  /** Host port by container port and protocol ("8000/tcp"). */
  readonly ports: ReadonlyMap<string, number>;
  /** Ports still being bound (a tick): an onstart waits for them, as its env names them. */
  readonly pending: ReadonlySet<string>;
}

/** Whether the instance's ports, if served, are all bound (or given up on). */
export function portsSettled(instance: Instance): boolean {
  return (servedPortsOf(instance)?.pending.size ?? 0) === 0;
}

const served = new WeakMap<Instance, ServedPorts>();

export const bootKeyOf = (instance: Instance): string =>
  String(instance.restartedAtMs ?? instance.createdAtMs);

/** The ports served for the instance's current boot, if any. */
export function servedPortsOf(instance: Instance): ServedPorts | undefined {
  const ports = served.get(instance);
  return ports?.bootKey === bootKeyOf(instance) ? ports : undefined;
}

export function recordServedPorts(instance: Instance, ports: ServedPorts | undefined): void {
  if (ports === undefined) served.delete(instance);
  else served.set(instance, ports);
}
