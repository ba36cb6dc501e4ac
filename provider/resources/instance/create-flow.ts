import {
  type CreateInstanceRequest,
  GpuCloudError,
  type Instance as InstanceWire,
} from "../../client";
import { encodeOnstart } from "../../onstart";
import { providerClient, reportProgress } from "../../provider-runtime";
import { asksOf, type InstanceAttempt, type InstanceInputs, type InstanceOutputs } from "./inputs";
import {
  type BootOutcome,
  CreateOutcomeUnknownError,
  destroyAndConfirm,
  InstanceLeftBehindError,
  rentInstance,
  waitUntilRunning,
} from "./lifecycle";

export function connectionOutputs(instance: InstanceWire | undefined) {
  return {
    actualStatus: instance?.actual_status ?? null,
    sshHost: instance?.ssh_host ?? null,
    sshPort: instance?.ssh_port ?? null,
    publicIp: instance?.public_ipaddr ?? null,
    gpuRamMb: instance?.gpu_ram ?? null,
    statusMessage: instance?.status_msg ?? null,
  };
}

function describeAttempts(attempts: readonly InstanceAttempt[]): string {
  return attempts
    .map((attempt, index) => {
      const what =
        attempt.instanceId === undefined
          ? `ask ${attempt.askId}: ${attempt.error ?? "not created"}`
          : `instance ${attempt.instanceId} from ask ${attempt.askId}: last status ` +
            (attempt.lastStatus ?? "provisioning") +
            (attempt.statusMessage ? ` (${attempt.statusMessage})` : "") +
            (attempt.error ? `; ${attempt.error}` : "");
      return `  attempt ${index + 1}: ${what}`;
    })
    .join("\n");
}

/**
 * Rents an instance from the asks and waits until it runs, destroying and retrying on dead
 * ends; fails, leaving nothing running, when no attempt succeeds.
 */
export async function createInstance(
  inputs: InstanceInputs,
): Promise<{ id: string; outs: InstanceOutputs }> {
  const client = providerClient();
  const asks = asksOf(inputs);
  const onstart = inputs.onstart === undefined ? undefined : encodeOnstart(inputs.onstart);
  const request: CreateInstanceRequest = {
    image: inputs.image,
    disk: inputs.diskGb,
    onstart: onstart?.ok ? onstart.command : undefined,
    env: inputs.env,
    label: inputs.label,
    runtype: inputs.runtype,
    price: inputs.price,
  };
  const deadlineMs = Date.now() + inputs.createTimeoutSeconds * 1000;
  const attempts: InstanceAttempt[] = [];
  let reason = `every one of ${inputs.maxAttempts} attempts ended without a running instance`;

  for (let number = 1; number <= inputs.maxAttempts; number++) {
    if (number > 1 && Date.now() >= deadlineMs) {
      reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
      break;
    }
    const askId = asks[(number - 1) % asks.length] ?? 0;
    let instanceId: number;
    try {
      instanceId = await rentInstance(client, askId, request, deadlineMs);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      attempts.push({ askId, error: message });
      if (error instanceof CreateOutcomeUnknownError) {
        throw new Error(
          `an instance create from ask ${askId} may have reached the service, but its reply ` +
            `was lost.\n${describeAttempts(attempts)}`,
        );
      }
      // An ask that is gone is worth trying the next one; anything else is not.
      if (error instanceof GpuCloudError && error.code === "no_such_ask") continue;
      reason = "an instance could not be created";
      break;
    }
    const attempt: InstanceAttempt = { askId, instanceId };
    attempts.push(attempt);
    reportProgress(
      `attempt ${number} of ${inputs.maxAttempts}: instance ${instanceId} from ask ${askId}, waiting for running`,
    );
    let outcome: BootOutcome;
    try {
      outcome = await waitUntilRunning(
        client,
        instanceId,
        deadlineMs,
        inputs.pollIntervalSeconds,
        (instance) => {
          reportProgress(
            `instance ${instanceId}: ${instance.actual_status ?? "provisioning"}` +
              (instance.status_msg ? ` (${instance.status_msg})` : ""),
          );
        },
      );
    } catch (error) {
      attempt.error = error instanceof Error ? error.message : String(error);
      outcome = { kind: "deadline", instance: undefined };
      reason = "polling the instance failed";
    }
    const outs: InstanceOutputs = {
      ...inputs,
      instanceId,
      ...connectionOutputs(outcome.kind === "gone" ? undefined : outcome.instance),
      attempts,
    };
    if (outcome.kind === "running") {
      reportProgress(`instance ${instanceId} is running (attempt ${number})`);
      return { id: String(instanceId), outs };
    }
    attempt.lastStatus = outcome.kind === "gone" ? "gone" : (outs.actualStatus ?? "provisioning");
    if (outs.statusMessage) attempt.statusMessage = outs.statusMessage;
    if (outcome.kind !== "gone") {
      reportProgress(`instance ${instanceId} will not run (${attempt.lastStatus}); destroying it`);
      let destroyed = false;
      try {
        destroyed = await destroyAndConfirm(client, instanceId, inputs.pollIntervalSeconds);
      } catch (error) {
        attempt.error = error instanceof Error ? error.message : String(error);
      }
      if (!destroyed) {
        const message =
          `instance ${instanceId} did not reach running and could not be destroyed; it is ` +
          `kept in the stack so that a later \`pulumi up\` or \`pulumi destroy\` deals with it.\n` +
          describeAttempts(attempts);
        throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
      }
    }
    if (outcome.kind === "deadline") {
      if (reason.startsWith("every")) {
        reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
      }
      break;
    }
  }
  throw new Error(
    `no running instance: ${reason}; nothing is left running.\n${describeAttempts(attempts)}`,
  );
}
