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

// After every `up`, the Automation API reads the stack's outputs and its last update with three
// more CLI calls (`stack output` twice, `stack history`: about 1.6 s of CPU, a third of a small
// stack's `up`), and the summary with one more after every `refresh` and `destroy`. Across the
// suite's hundreds of operations that is minutes of the 2-core machine. The tests take the
// summary from the operation's own engine events and the outputs from the file backend's
// checkpoint instead, asking the CLI only to decrypt outputs that hold a secret.

const checkpointSchema = z.object({
  checkpoint: z.object({
    latest: z
      .looseObject({
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
    const shown = await cli(["stack", "output", "--json", "--show-secrets", "--stack", stack.name]);
    const values = z.record(z.string(), z.unknown()).parse(JSON.parse(shown.stdout));
    return Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key,
        { value, secret: isSecret(outputs[key]) },
      ]),
    );
  };
}
