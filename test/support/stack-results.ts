import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type {
  EngineEvent,
  OutputMap,
  Stack,
  SummaryEvent,
  UpdateKind,
  UpdateSummary,
} from "@pulumi/pulumi/automation";
import { z } from "zod";
import { keeperDecryptedKey, keeperSecretsProvider, runKeeperUrl } from "./secrets-keeper";
import { openedSecret } from "./secret-cipher";

// After every `up`, the Automation API reads the stack's outputs and its last update with three
// more CLI calls (`stack output` twice, `stack history`: about 1.6 s of CPU, a third of a small
// stack's `up`), and the summary with one more after every `refresh` and `destroy`. Across the
// suite's hundreds of operations that is minutes of the 2-core machine. The tests take the
// summary from the operation's own engine events and the outputs from the file backend's
// checkpoint instead. Secret outputs of a stack whose secrets the run's keeper holds
// (secrets-keeper.ts) are decrypted here too; the CLI is asked (`stack output --show-secrets`)
// only for other stacks' secrets and for outputs holding assets or resource references.

const checkpointSchema = z.object({
  checkpoint: z.object({
    latest: z
      .looseObject({
        secrets_providers: z
          .object({
            type: z.string(),
            state: z.looseObject({
              url: z.string().optional(),
              encryptedkey: z.string().optional(),
            }),
          })
          .nullish(),
        resources: z
          .array(
            z.looseObject({
              type: z.string(),
              outputs: z.record(z.string(), z.unknown()).optional(),
            }),
          )
          .nullish(),
      })
      .nullish(),
  }),
});
type Checkpoint = z.infer<typeof checkpointSchema>["checkpoint"];

/**
 * The stack's checkpoint in the file backend; undefined when the backend holds no checkpoint of
 * that name or several (a test that made other stacks in it).
 */
export async function readCheckpoint(
  backendDir: string,
  stackName: string,
): Promise<Checkpoint | undefined> {
  const stacksDir = path.join(backendDir, ".pulumi", "stacks");
  const files = await readdir(stacksDir, { recursive: true }).catch(() => []);
  const checkpoints = files.filter((file) => path.basename(file) === `${stackName}.json`);
  if (checkpoints.length !== 1) return undefined;
  const text = await readFile(path.join(stacksDir, checkpoints[0] ?? ""), "utf8");
  return checkpointSchema.parse(JSON.parse(text)).checkpoint;
}

// The key Pulumi marks a special value with in state: a secret, an asset, a resource reference.
const specialValueKey = "4dabf18193072939515e22adb298388d";
const secretValueSig = "1b47061264138c4ac30d75fd1eb44270";

const isSecret = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  (value as Record<string, unknown>)[specialValueKey] === secretValueSig;

/**
 * Makes `stack`'s `up`, `refresh` and `destroy` return the results the Automation API returns,
 * without its follow-up CLI calls: the summary from the operation's summary event, the outputs
 * from the checkpoint (through `stack output --show-secrets` when one holds a special value).
 * Falls back to the Automation API's own calls when either is missing.
 */
export function withResultsFromTheRun(
  stack: Stack,
  backendDir: string,
  cli: (args: string[]) => Promise<{ stdout: string }>,
): void {
  const originalInfo = stack.info.bind(stack);
  const originalOutputs = stack.outputs.bind(stack);
  let pending: { kind: UpdateKind; startTime: Date; summary?: SummaryEvent } | undefined;

  const observed =
    <O extends { onEvent?: (event: EngineEvent) => void }, R>(
      kind: UpdateKind,
      operation: (options?: O) => Promise<R>,
    ) =>
    (options?: O): Promise<R> => {
      const run = { kind, startTime: new Date() } as NonNullable<typeof pending>;
      pending = run;
      return operation({
        ...options,
        onEvent: (event: EngineEvent) => {
          if (event.summaryEvent) run.summary = event.summaryEvent;
          options?.onEvent?.(event);
        },
      } as O);
    };
  stack.up = observed("update", stack.up.bind(stack));
  stack.refresh = observed("refresh", stack.refresh.bind(stack));
  stack.destroy = observed("destroy", stack.destroy.bind(stack));

  stack.info = async (showSecrets?: boolean): Promise<UpdateSummary | undefined> => {
    const run = pending;
    pending = undefined;
    if (!run?.summary) return originalInfo(showSecrets);
    return {
      kind: run.kind,
      startTime: run.startTime,
      endTime: new Date(),
      message: "",
      environment: {},
      config: {},
      result: "succeeded",
      // The update's number is known only to `stack history`; no test reads it.
      version: Number.NaN,
      resourceChanges: run.summary.resourceChanges,
    };
  };

  stack.outputs = async (): Promise<OutputMap> => {
    const checkpoint = await readCheckpoint(backendDir, stack.name);
    const root = checkpoint?.latest?.resources?.find(({ type }) => type === "pulumi:pulumi:Stack");
    if (checkpoint === undefined) return originalOutputs();
    const outputs = root?.outputs ?? {};
    if (!JSON.stringify(outputs).includes(specialValueKey)) {
      return Object.fromEntries(
        Object.entries(outputs).map(([key, value]) => [key, { value, secret: false }]),
      );
    }
    const shown = await keeperDecrypted(checkpoint, outputs);
    if (shown !== undefined) {
      return Object.fromEntries(
        Object.entries(shown).map(([key, value]) => [
          key,
          { value, secret: isSecret(outputs[key]) },
        ]),
      );
    }
    const output = await cli([
      "stack",
      "output",
      "--json",
      "--show-secrets",
      "--stack",
      stack.name,
    ]);
    const values = z.record(z.string(), z.unknown()).parse(JSON.parse(output.stdout));
    return Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key,
        { value, secret: isSecret(outputs[key]) },
      ]),
    );
  };
}

/**
 * The outputs with their secrets decrypted, as `stack output --show-secrets` prints them, when
 * the run's keeper holds the stack's data key and every special value is a secret; undefined
 * otherwise (the CLI decrypts).
 */
async function keeperDecrypted(
  checkpoint: Checkpoint,
  outputs: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const provider = checkpoint?.latest?.secrets_providers;
  const keeperUrl = runKeeperUrl();
  const encryptedKey = provider?.state.encryptedkey;
  if (
    keeperUrl === undefined ||
    provider?.type !== "cloud" ||
    provider.state.url !== keeperSecretsProvider ||
    encryptedKey === undefined
  ) {
    return undefined;
  }
  const key = await keeperDecryptedKey(keeperUrl, encryptedKey);
  const shown = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(shown);
    if (typeof value !== "object" || value === null) return value;
    const record = value as Record<string, unknown>;
    if (specialValueKey in record) {
      const ciphertext = record["ciphertext"];
      if (record[specialValueKey] !== secretValueSig || typeof ciphertext !== "string") {
        throw new SpecialValueError();
      }
      return shown(JSON.parse(openedSecret(key, ciphertext).toString("utf8")));
    }
    return Object.fromEntries(Object.entries(record).map(([name, inner]) => [name, shown(inner)]));
  };
  try {
    return Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, shown(value)]));
  } catch (error) {
    if (error instanceof SpecialValueError) return undefined;
    throw error;
  }
}

/** An asset, archive or resource reference among the outputs: the CLI shows those. */
class SpecialValueError extends Error {}
