/**
 * The Instance's inputs and outputs. They are the renting engine's
 * (provider/renting/instance-inputs.ts): every node of a NodeGroup is rented with them too.
 */
export {
  asksOf,
  instanceAttemptSchema,
  instanceInputsSchema,
  instanceOutputsSchema,
  runtypeOf,
  type InstanceAttempt,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../renting/instance-inputs";
