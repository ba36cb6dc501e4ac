import { type ExampleInputs, withExample } from "../../shared/reference-examples";
import { type InstanceInputs, instanceInputsSchema } from "../../renting/instance-inputs";

/**
 * The Instance's inputs and outputs. They are the renting engine's
 * (provider/renting/instance-inputs.ts): every node of a NodeGroup is rented with them too.
 */
export {
  asksOf,
  instanceAttemptSchema,
  instanceInputsSchema,
  instanceOutputsSchema,
  instanceResourceInputs,
  runtypeOf,
  type InstanceAttempt,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../renting/instance-inputs";

/**
 * Instance's example on its reference page (docs/reference/Instance.md): the cheapest RTX 4090 at
 * 50 cents an hour or less. cancelRsyncCopy's example rents the same.
 */
export const instanceExample: ExampleInputs<InstanceInputs> = {
  offerQuery: { gpuName: "RTX 4090" },
  maxDollarsPerHour: 0.5,
  image: "pytorch/pytorch",
  diskGb: 20,
};
withExample(instanceInputsSchema, { inputs: instanceExample });
