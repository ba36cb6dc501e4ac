import { z } from "zod";

/**
 * The catalogue of notification types: the event keys a webhook may subscribe to. The seeded
 * keys are the ones the service's public documentation shows; the real catalogue is larger,
 * so a user can replace it with the `notificationTypes` option.
 */

/** A notification type's full key, `<context>:<slug>`, e.g. `client:low_credit`. */
export const NotificationTypeKeySchema = z
  .string()
  .regex(/^(client|host):[a-z0-9_]+$/, "must look like client:low_credit (<context>:<slug>)");

interface NotificationTypeSeed {
  key: string;
  category: string;
  displayName: string;
  mandatoryEmail: boolean;
}

const SEEDED: NotificationTypeSeed[] = [
  {
    key: "client:low_credit",
    category: "billing",
    displayName: "Low balance notifications",
    mandatoryEmail: false,
  },
  {
    key: "client:billing_failed",
    category: "billing",
    displayName: "Billing failures",
    mandatoryEmail: true,
  },
  {
    key: "client:payment_receipt",
    category: "billing",
    displayName: "Payment receipts",
    mandatoryEmail: false,
  },
  {
    key: "client:outbid",
    category: "instance",
    displayName: "Instance outbid",
    mandatoryEmail: false,
  },
  {
    key: "host:machine_offline",
    category: "host",
    displayName: "Machine offline",
    mandatoryEmail: false,
  },
];

function seedFor(key: string): NotificationTypeSeed {
  const known = SEEDED.find((seed) => seed.key === key);
  if (known) return known;
  const [context = "client", slug = key] = key.split(":");
  const words = slug.replaceAll("_", " ");
  return {
    key,
    category: context === "host" ? "host" : "general",
    displayName: `${words.charAt(0).toUpperCase()}${words.slice(1)}`,
    mandatoryEmail: false,
  };
}

/** The GET /api/v0/notification-types/ rows, in the documented shape. */
export function notificationTypeRows(keys: readonly string[] | undefined) {
  return (keys ?? SEEDED.map((seed) => seed.key)).map(seedFor).map((seed) => {
    const [context = "client", slug = seed.key] = seed.key.split(":");
    return {
      key: seed.key,
      slug,
      context,
      topic: seed.category,
      category: seed.category,
      display_name: seed.displayName,
      default_preferences: { email: true, webhooks: false },
      mandatory_email: seed.mandatoryEmail,
    };
  });
}
