import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import {
  DEFAULT_USER,
  SecretSchema,
  SshKeyAttachmentSchema,
  SshKeySchema,
  UserSchema,
  WebhookSchema,
} from "./account-state";

const FIRST_SSH_KEY_ID = 1;

/** The account's user, secrets, webhooks and SSH keys in the state (account-state.ts). */
export const records = areaRecords({
  shape: {
    user: UserSchema,
    secrets: z.array(SecretSchema),
    webhooks: z.array(WebhookSchema),
    sshKeys: z.array(SshKeySchema).default([]),
    sshKeyAttachments: z.array(SshKeyAttachmentSchema).default([]),
    nextSshKeyId: z.int().default(FIRST_SSH_KEY_ID),
  },
  firstIds: { webhook: 1 },
  initial: () => ({
    user: { ...DEFAULT_USER },
    secrets: [],
    webhooks: [],
    sshKeys: [],
    sshKeyAttachments: [],
    nextSshKeyId: FIRST_SSH_KEY_ID,
  }),
  // The user is the world around the account: it stays.
  clear: (account) => {
    account.secrets = [];
    account.webhooks = [];
    account.sshKeys = [];
    account.sshKeyAttachments = [];
    account.nextSshKeyId = FIRST_SSH_KEY_ID;
  },
});
