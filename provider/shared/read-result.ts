import { isDeepStrictEqual } from "node:util";

/**
 * A `read`'s answer for a resource it found. Given no inputs, the engine keeps the recorded
 * ones, so a resource found as recorded (outputs unchanged) is answered without them: its state
 * stays as it was, and the SDK converts one property map for it instead of two, which is most of
 * what a read costs the provider process (refresh of 200: docs/maintainers/performance.md). A
 * resource that drifted is answered with `inputs`, so that the next `up` compares the program
 * with what the service holds.
 */
export function readResult<Inputs, Outputs extends object>(
  id: string,
  recorded: Outputs | undefined,
  outs: Outputs,
  inputs: Inputs,
): { id: string; props: Outputs; inputs?: Inputs } {
  return recorded !== undefined && sameOutputs(recorded, outs)
    ? { id, props: outs }
    : { id, props: outs, inputs };
}

// The SDK hands `read` the recorded outputs with the provider's reference (`__provider`), and
// adds that back to the answer itself: it is not an output of ours.
function sameOutputs(recorded: object, outs: object): boolean {
  const { __provider: _recordedProvider, ...recordedOutputs } = recorded as Record<string, unknown>;
  const { __provider: _provider, ...outputs } = outs as Record<string, unknown>;
  return isDeepStrictEqual(recordedOutputs, outputs);
}
