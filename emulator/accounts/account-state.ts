import { z } from "zod";

/**
 * The account's own records in the state file: its user, secrets, webhooks and SSH keys. API
 * keys are not among them: they live in memory only (key-ring.ts).
 */

export const UserSchema = z.object({
  id: z.int(),
  email: z.string(),
  creditDollars: z.number(),
  sshKey: z.string(),
});

/** ssh_key is empty so that tests of VM instances must register one first, as on the real service. */
export const DEFAULT_USER = { id: 1, email: "dev@example.com", creditDollars: 100, sshKey: "" };

export const SecretSchema = z.object({ key: z.string(), value: z.string() });

export const WebhookSchema = z.object({
  id: z.int(),
  name: z.string().nullable(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  createdAt: z.string(),
  /** Absent in state files written before updates were recorded. */
  updatedAt: z.string().optional(),
  secret: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

// SSH keys (ssh-keys.ts). Attachment records are made per instance on first use: an instance
// carries the account's keys from before its creation plus those attached since.
export const SshKeySchema = z.object({
  id: z.int(),
  publicKey: z.string(),
  createdAtMs: z.number(),
});
export type SshKey = z.infer<typeof SshKeySchema>;
export const SshKeyAttachmentSchema = z.object({
  instanceId: z.int(),
  sshKeyIds: z.array(z.int()),
});
export type SshKeyAttachment = z.infer<typeof SshKeyAttachmentSchema>;
