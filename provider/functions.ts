import * as pulumi from "@pulumi/pulumi";
import type { CurrentUser } from "./client";
import { clientFor, resolveConfig } from "./config";

// Functions run in the program's process: configuration comes from the stack's config
// (read raw, so a secret key is not echoed in a warning) or the environment.
function programClient() {
  return clientFor(resolveConfig({ get: (key) => pulumi.runtime.getConfig(key) }));
}

/**
 * The account behind the configured API key (calling it also verifies the key): id, email,
 * credit, balance, the id of the API key in use and whether an SSH key is registered. Never the
 * key material or an API key.
 */
export function getCurrentUser(): pulumi.Output<CurrentUser> {
  return pulumi.output(programClient().users.current());
}

/**
 * Cancels the rsync copy running into instance `dstId`. Rejects with the service's message
 * (`Invalid dst_id.` or `Remote instance does not have an open port`) when it cannot. During a
 * preview it sends nothing and resolves: a preview changes nothing.
 */
export async function cancelRsyncCopy(dstId: string | number): Promise<void> {
  if (pulumi.runtime.isDryRun()) return;
  await programClient().commands.cancelRsyncCopy(String(dstId));
}
