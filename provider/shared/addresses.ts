// Overlay addresses: which of an instance's local addresses lies in an overlay's subnet, and the
// address an overlay's first member is expected to get. Shared by Instance (its localIp) and
// NodeGroup (each node's localIp, rank 0's MASTER_ADDR).

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

/** `10.100.0.0/24` → its first address, prefix length and size; undefined for anything else. */
function parseSubnet(subnet: string): { base: number; bits: number; size: number } | undefined {
  const [address = "", bitsText = ""] = subnet.split("/");
  const base = ipv4ToNumber(address);
  const bits = Number(bitsText);
  if (base === undefined || bitsText === "" || !Number.isInteger(bits) || bits < 0 || bits > 32) {
    return undefined;
  }
  const size = 2 ** (32 - bits);
  return { base: base - (base % size), bits, size };
}

/** Whether an IPv4 address is inside a subnet written `a.b.c.d/n`. */
export function inSubnet(address: string, subnet: string): boolean {
  const parsed = parseSubnet(subnet);
  const value = ipv4ToNumber(address);
  return (
    parsed !== undefined &&
    value !== undefined &&
    value >= parsed.base &&
    value < parsed.base + parsed.size
  );
}

/**
 * The address in `localIpaddrs` (the service's space-separated list of an instance's local
 * addresses) that lies in the subnet: the instance's address on that overlay.
 */
export function addressIn(
  localIpaddrs: string | null | undefined,
  subnet: string | null | undefined,
): string | undefined {
  if (!subnet) return undefined;
  return (localIpaddrs ?? "").split(/\s+/).find((address) => inSubnet(address, subnet));
}

/**
 * The subnet's first host address (`10.100.0.1` of `10.100.0.0/24`): the address an overlay's
 * first member is expected to get. Only an expectation: the group checks it once rank 0 runs.
 */
export function firstHostOf(subnet: string | null | undefined): string | undefined {
  const parsed = subnet ? parseSubnet(subnet) : undefined;
  // A subnet of fewer than 4 addresses has no room for a network, a host and a broadcast.
  return parsed === undefined || parsed.bits > 30 ? undefined : numberToIpv4(parsed.base + 1);
}
