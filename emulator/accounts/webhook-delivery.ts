import { createHmac, randomUUID } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { request } from "undici";
import type { Webhook } from "./account-state";

/** The service delivers only to public addresses; these never are. */
const privateAddresses = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  privateAddresses.addSubnet(network, prefix, "ipv4");
}
privateAddresses.addAddress("::", "ipv6");
privateAddresses.addAddress("::1", "ipv6");
privateAddresses.addSubnet("fc00::", 7, "ipv6");
privateAddresses.addSubnet("fe80::", 10, "ipv6");

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  if (family === 0) return false;
  return privateAddresses.check(host, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Why a URL cannot receive deliveries, or undefined when it can. Plain http and private
 * targets are allowed only when the emulator was started to allow them (local receivers).
 */
export function webhookUrlProblem(url: string, allowInsecure: boolean): string | undefined {
  if (!URL.canParse(url)) return "must be an absolute URL";
  const parsed = new URL(url);
  const schemes = allowInsecure ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(parsed.protocol)) return "must be an https URL";
  if (!allowInsecure && isPrivateHost(parsed.hostname)) {
    return "must point at a public address, not a loopback or private one";
  }
  return undefined;
}

/** The documented signature: `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>`. */
export function signatureOf(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");
  return `sha256=${digest}`;
}

const DELIVERY_TIMEOUT_MS = 10_000;

export type DeliveryOutcome = { delivered: true } | { delivered: false; reason: string };

/** Sends one signed `webhook_test` event to the webhook's URL, as a real delivery would be. */
export async function deliverTestEvent(webhook: Webhook): Promise<DeliveryOutcome> {
  return deliverEvent(webhook, {
    notif_type: "webhook_test",
    title: "Test webhook",
    message: "This is a test delivery from the gpucloud emulator.",
  });
}

/**
 * Sends one signed event to the webhook's URL: `notif_type` is the event's slug (as real
 * deliveries name it), `title`, `message` and any further fields are the event's.
 */
export async function deliverEvent(
  webhook: Webhook,
  event: { notif_type: string; title: string; message: string } & Record<string, unknown>,
): Promise<DeliveryOutcome> {
  const eventId = randomUUID();
  const timestampSeconds = Math.floor(Date.now() / 1000);
  const { notif_type, ...rest } = event;
  const body = JSON.stringify({
    event_id: eventId,
    notif_type,
    webhook_id: webhook.id,
    created_at: timestampSeconds,
    ...rest,
  });
  try {
    const response = await request(webhook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-vast-event-id": eventId,
        "x-vast-timestamp": String(timestampSeconds),
        "x-vast-signature-256": signatureOf(webhook.secret, timestampSeconds, body),
      },
      body,
      headersTimeout: DELIVERY_TIMEOUT_MS,
      bodyTimeout: DELIVERY_TIMEOUT_MS,
    });
    await response.body.dump();
    if (response.statusCode >= 200 && response.statusCode < 300) return { delivered: true };
    return { delivered: false, reason: `the receiver answered HTTP ${response.statusCode}` };
  } catch (error) {
    const code =
      typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    return { delivered: false, reason: `the receiver could not be reached (${code || "error"})` };
  }
}
