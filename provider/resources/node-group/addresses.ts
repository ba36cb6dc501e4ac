// Overlay addresses: which of a node's local addresses is on the group's overlay network.

function ipv4ToNumber(address: string): number | undefined {
  const parts = address.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

function numberToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

/** `10.100.0.0/24` → its first address and size; undefined for anything else. */
function parseSubnet(subnet: string): { base: number; size: number } | undefined {
  const [address = "", bitsText = ""] = subnet.split("/");
  const base = ipv4ToNumber(address);
  const bits = Number(bitsText);
  if (base === undefined || !Number.isInteger(bits) || bits < 8 || bits > 30) return undefined;
  const size = 2 ** (32 - bits);
  return { base: base - (base % size), size };
}

/**
 * The address in `localIpaddrs` (the service's space-separated list of an instance's local
 * addresses) that lies in the subnet: the instance's address on that overlay.
 */
export function addressIn(
  localIpaddrs: string | null | undefined,
  subnet: string | null | undefined,
): string | undefined {
  const parsed = subnet ? parseSubnet(subnet) : undefined;
  if (parsed === undefined) return undefined;
  return (localIpaddrs ?? "").split(/\s+/).find((address) => {
    const value = ipv4ToNumber(address);
    return value !== undefined && value >= parsed.base && value < parsed.base + parsed.size;
  });
}

/**
 * The subnet's first host address (`10.100.0.1` of `10.100.0.0/24`): the address an overlay's
 * first member is expected to get. Only an expectation: the group checks it once rank 0 runs.
 */
export function firstHostOf(subnet: string | null | undefined): string | undefined {
  const parsed = subnet ? parseSubnet(subnet) : undefined;
  return parsed === undefined ? undefined : numberToIpv4(parsed.base + 1);
}
