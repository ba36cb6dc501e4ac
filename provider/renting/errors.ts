import type { InstanceOutputs } from "./instance-inputs";

/** A create that leaves an instance behind: Pulumi records it (with init errors) by this id. */
export class InstanceLeftBehindError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: InstanceOutputs,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** A create whose reply was lost, and whose instance could not be found by its token. */
export class CreateOutcomeUnknownError extends Error {}
