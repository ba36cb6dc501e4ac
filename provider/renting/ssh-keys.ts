import type { GpuCloudClient, SshKey } from "../client";
import { GpuCloudError } from "../client";
import { containsUnknown } from "../shared/validation";
import { InstanceLeftBehindError } from "./errors";
import type { InstanceInputs, InstanceOutputs } from "./instance-inputs";

// The account SSH keys an instance lists in `sshKeyIds`: looked up before renting, attached
// once it runs, attached and detached in place after. A VM needs a key before it is created.

/**
 * True when the program declares the keys a VM will have: `sshKeyIds` not known yet at
 * preview (an SshKey of the same program) or listing at least one id. Check then leaves the
 * account to create, which verifies it before renting.
 */
export function declaresSshKeys(news: Record<string, unknown>): boolean {
  const ids = news["sshKeyIds"];
  return containsUnknown(ids) || (Array.isArray(ids) && ids.length > 0);
}

/**
 * Before renting: the listed keys as the account holds them (their public keys are what the
 * attach call takes), or a failure naming the ids the account lacks; a VM that lists none needs
 * some key on the account. Either failure happens before anything is rented.
 */
export async function sshKeysBeforeRenting(
  client: GpuCloudClient,
  inputs: Pick<InstanceInputs, "sshKeyIds" | "runtype">,
): Promise<SshKey[]> {
  const ids = inputs.sshKeyIds ?? [];
  if (ids.length === 0) {
    if (inputs.runtype === "vm" && !(await client.users.current()).hasSshKey) {
      throw new Error(
        "runtype: a VM needs an SSH key registered on the account before it is created, and " +
          "the account has none; list a gpucloud.SshKey in sshKeyIds. Nothing was rented.",
      );
    }
    return [];
  }
  const account = await client.sshKeys.list();
  const missing = ids.filter((id) => !account.some((key) => key.id === id));
  if (missing.length > 0) {
    throw new Error(
      `sshKeyIds: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not an SSH key ` +
        `of the account (it has ${account.map((key) => key.id).join(", ") || "none"}). ` +
        `Nothing was rented.`,
    );
  }
  return ids.flatMap((id) => account.filter((key) => key.id === id));
}

/**
 * Attaches the keys to a running instance. When one cannot be attached, the instance (which
 * runs and bills) is kept in the stack with the keys attached so far, so that the next
 * `pulumi up` attaches the rest in place.
 */
export async function attachAfterRunning(
  client: GpuCloudClient,
  created: { id: string; outs: InstanceOutputs },
  keys: readonly SshKey[],
): Promise<{ id: string; outs: InstanceOutputs }> {
  const attached: number[] = [];
  for (const key of keys) {
    try {
      await client.sshKeys.attach(created.outs.instanceId, key.publicKey);
      attached.push(key.id);
    } catch (error) {
      const message =
        `instance ${created.id} runs, but SSH key ${key.id} could not be attached ` +
        `(${error instanceof Error ? error.message : String(error)}); the next \`pulumi up\` ` +
        `attaches it.`;
      const outs = { ...created.outs, sshKeyIds: attached };
      throw new InstanceLeftBehindError(message, created.id, outs, [message]);
    }
  }
  return created;
}

/**
 * In place: attaches to the instance the keys added to `sshKeyIds` and detaches those removed
 * (an Instance's, or each node of a NodeGroup).
 */
export async function updateSshKeys(
  client: GpuCloudClient,
  instanceId: number,
  before: readonly number[] = [],
  news: Pick<InstanceInputs, "sshKeyIds" | "runtype">,
): Promise<void> {
  const after = news.sshKeyIds ?? [];
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  if (added.length > 0) {
    const keys = await sshKeysBeforeRenting(client, { ...news, sshKeyIds: added });
    for (const key of keys) await client.sshKeys.attach(instanceId, key.publicKey);
  }
  for (const id of removed) {
    try {
      await client.sshKeys.detach(instanceId, id);
    } catch (error) {
      // Already off the instance, or deleted from the account: detached either way.
      if (!(error instanceof GpuCloudError && error.isNotFound)) throw error;
    }
  }
}

/**
 * What refresh sees: the listed keys still on the instance. A key detached (or deleted) outside
 * Pulumi drops out, and the next `pulumi up` attaches it again.
 */
export async function sshKeyIdsOnInstance(
  client: GpuCloudClient,
  props: InstanceOutputs,
): Promise<number[] | undefined> {
  if (props.sshKeyIds === undefined || props.sshKeyIds.length === 0) return props.sshKeyIds;
  const onInstance = new Set((await client.sshKeys.onInstance(props.instanceId)).map((k) => k.id));
  return props.sshKeyIds.filter((id) => onInstance.has(id));
}
