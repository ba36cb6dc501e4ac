import { z } from "zod";
import type { Instance as InstanceWire } from "../client";

// An instance's mapped ports as outputs: what the service's port map says (its v1 rows' `ports`,
// Docker's `{"8000/tcp": [{HostIp, HostPort}]}`, present only while it runs) in the outputs'
// shape, and the URL of each TCP port, the common case a program exports.

export const instancePortSchema = z
  .object({
    publicIp: z
      .string()
      .nullable()
      .describe("The address the port answers on: the instance's public IP (or its binding's)."),
    hostPort: z
      .number()
      .int()
      .describe("The external port the service mapped to the container port (random per start)."),
  })
  .meta({
    pulumiType: "InstancePort",
    description: "Where a container port answers from outside: public address and host port.",
  });

export const portsOutputSchema = z
  .record(z.string(), instancePortSchema)
  .nullable()
  .describe(
    "The instance's mapped ports as the service reports them, keyed by container port and " +
      'protocol (`"8000/tcp"`, `"22/tcp"`): each one\'s public address and host port. Ports ' +
      "are opened by `exposePorts` (`-p 8000:8000`) or the template's docker options; the " +
      "service maps them only while the instance runs (null otherwise), to new host ports at " +
      "each start; kept current by refresh.",
  );

export const urlsOutputSchema = z
  .record(z.string(), z.string())
  .nullable()
  .describe(
    'For each mapped TCP port but SSH\'s, keyed by container port (`"8000"`): ' +
      "`http://<publicIp>:<hostPort>`, the address a program exports for its server (e.g. " +
      '`instance.urls.apply(u => u?.["8000"])`). Null while the instance does not run.',
  );

export type InstancePorts = z.infer<typeof portsOutputSchema>;

/** "0.0.0.0" and "::" bind every address: the port answers on the public one. */
const bindsEveryAddress = (hostIp: string): boolean =>
  hostIp === "" || hostIp === "0.0.0.0" || hostIp === "::";

/** The ports and URLs an instance shows; both null while it maps none. */
export function portsShownBy(instance: InstanceWire | undefined): {
  ports: InstancePorts;
  urls: Record<string, string> | null;
} {
  const map = instance?.ports;
  if (map === null || map === undefined || instance === undefined)
    return { ports: null, urls: null };
  const ports: Record<string, z.infer<typeof instancePortSchema>> = {};
  const urls: Record<string, string> = {};
  for (const [key, bindings] of Object.entries(map)) {
    const binding = bindings[0];
    const hostPort = Number(binding?.HostPort);
    if (binding === undefined || !Number.isInteger(hostPort) || hostPort <= 0) continue;
    const hostIp = binding.HostIp ?? "";
    const publicIp = bindsEveryAddress(hostIp) ? (instance.public_ipaddr ?? null) : hostIp;
    ports[key] = { publicIp, hostPort };
    const [containerPort, protocol = "tcp"] = key.split("/");
    if (protocol === "tcp" && containerPort !== "22" && publicIp !== null) {
      const host = publicIp.includes(":") ? `[${publicIp}]` : publicIp;
      urls[containerPort ?? key] = `http://${host}:${String(hostPort)}`;
    }
  }
  return { ports, urls };
}

/** A container port to expose: a number (TCP) or `"<port>/udp"` (`"<port>/tcp"` also taken). */
const exposedPortSchema = z.union(
  [
    z
      .number()
      .int("a port is a whole number")
      .min(1, "ports are 1-65535")
      .max(65535, "ports are 1-65535"),
    z
      .string()
      .regex(/^[0-9]{1,5}\/(tcp|udp)$/, 'a port string is "<port>/udp" or "<port>/tcp"')
      .refine((port) => {
        const number = Number(port.split("/")[0]);
        return number >= 1 && number <= 65535;
      }, "ports are 1-65535"),
  ],
  { error: 'each port is a number 1-65535 or a string "<port>/udp" (e.g. 8000, "5353/udp")' },
);

export const exposePortsSchema = z
  .array(exposedPortSchema, { error: 'a list of container ports, e.g. [8000, "5353/udp"]' })
  .max(64, "at most 64 ports (the service's limit per instance)")
  .describe(
    'Container ports to open: a number (TCP) or `"<port>/udp"`, sent as the service\'s ' +
      "`-p <port>:<port>` docker options (its docker-environment guide: each maps to a random " +
      "external port). `ports` and `urls` then say where each answers. A template's ports " +
      "apply as well. Changing them replaces the instance.",
  )
  .meta({ willReplaceOnChanges: true })
  .optional();

/** The create's env entries that open the ports, as the official client sends `-p` options. */
export function exposePortsEnv(
  ports: readonly (number | string)[] | undefined,
): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const port of ports ?? []) {
    const [number, protocol = "tcp"] = String(port).split("/");
    const key = `-p ${number ?? ""}:${number ?? ""}${protocol === "udp" ? "/udp" : ""}`;
    entries[key] = "1";
  }
  return entries;
}
